/** Where the cells of a heatmap canvas are: square cells after a margin for host and rank labels. */
export interface HeatGeometry {
  readonly left: number;
  readonly top: number;
  readonly cell: number;
  readonly rows: number;
  readonly cols: number;
}

export function heatGeometry(rows: number, cols: number, width: number, height: number): HeatGeometry {
  const left = 74;
  const top = 34;
  const cell = Math.max(
    1,
    Math.floor(Math.min((width - left - 4) / Math.max(1, cols), (height - top - 4) / Math.max(1, rows))),
  );
  return { left, top, cell, rows, cols };
}

/** The [row, column] display position under a point, clamped into the grid when `clamp`, else undefined outside. */
export function positionAt(
  g: HeatGeometry,
  x: number,
  y: number,
  clamp = false,
): [number, number] | undefined {
  let r = Math.floor((y - g.top) / g.cell);
  let c = Math.floor((x - g.left) / g.cell);
  if (clamp) {
    r = Math.min(g.rows - 1, Math.max(0, r));
    c = Math.min(g.cols - 1, Math.max(0, c));
  } else if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return undefined;
  return [r, c];
}
