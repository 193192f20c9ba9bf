/**
 * Heat-map scaling for the communication matrix. Byte counts span orders of magnitude (a halo exchange
 * next to one gather), so intensity is logarithmic: the smallest non-zero cell is still visible.
 */
export function heat(value: number, max: number): number {
  if (value <= 0 || max <= 0) return 0;
  return Math.max(0.12, Math.log1p(value) / Math.log1p(max));
}

export interface MatrixGeometry {
  readonly cell: number;
  /** Room for the rank numbers on the left and top. */
  readonly margin: number;
  readonly size: number;
}

/** Square cells that fit the box, with at least 2 px per cell and a label margin. */
export function matrixGeometry(ranks: number, width: number, height: number): MatrixGeometry {
  const margin = 34;
  const room = Math.max(0, Math.min(width, height) - margin - 4);
  const cell = Math.max(2, Math.floor(room / Math.max(1, ranks)));
  return { cell, margin, size: margin + cell * ranks };
}

/** The (src, dst) cell under a point, or undefined outside the grid. */
export function cellAt(g: MatrixGeometry, ranks: number, x: number, y: number): [number, number] | undefined {
  const col = Math.floor((x - g.margin) / g.cell);
  const row = Math.floor((y - g.margin) / g.cell);
  if (x < g.margin || y < g.margin || row >= ranks || col >= ranks) return undefined;
  return [row, col];
}
