/**
 * What the net-test heatmap shows, computed without the DOM: the grid of values in display order (ranks
 * ordered by host), its normalization range, the host blocks, and the colour of a value. The component
 * (components/mpi-heatmap) only draws this.
 */
import { hostOrder, type DelayMatrix, type NetTestFile, type Statistic } from './net-test-file';

export type Normalization = 'global' | 'local';
export type ColourScale = 'grey' | 'colour';
/** One run; two runs side by side; or the first run divided by the second, cell by cell. */
export type Compare = 'single' | 'side-by-side' | 'ratio';

/** A rectangle of the displayed grid: rows r0..r1 and columns c0..c1, inclusive, in display positions. */
export interface Zoom {
  readonly r0: number;
  readonly r1: number;
  readonly c0: number;
  readonly c1: number;
}

export interface Grid {
  /** Display position → rank, for rows and for columns. */
  readonly rows: readonly number[];
  readonly cols: readonly number[];
  /** values[a][b]: the cell of rank rows[a] to rank cols[b]; null where nothing was measured. */
  readonly values: readonly (readonly (number | null)[])[];
  /** The range the colours span. */
  readonly lo: number;
  readonly hi: number;
  /** Where a new host starts, as display positions (> 0), for rows and columns. */
  readonly rowBreaks: readonly number[];
  readonly colBreaks: readonly number[];
}

function matrixOf(file: NetTestFile, stat: Statistic, lengthIndex: number): DelayMatrix {
  const r = file.results[Math.min(lengthIndex, file.results.length - 1)];
  if (r === undefined) throw new Error('a net-test file without results');
  return r[stat];
}

/** The matrix a view of a run shows: its own, or (ratio) the cell-by-cell quotient by the other run's. */
export function shownMatrix(
  a: NetTestFile,
  b: NetTestFile | undefined,
  compare: Compare,
  stat: Statistic,
  lengthIndex: number,
): DelayMatrix {
  const ma = matrixOf(a, stat, lengthIndex);
  if (compare !== 'ratio' || b === undefined) return ma;
  const mb = matrixOf(b, stat, lengthIndex);
  return ma.map((row, i) =>
    row.map((x, j) => {
      const y = mb[i]?.[j];
      return x === null || y === null || y === undefined || y === 0 ? null : x / y;
    }),
  );
}

function rangeOf(values: Iterable<number | null>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? [0, 0] : [lo, hi];
}

function* cells(m: DelayMatrix): Generator<number | null> {
  for (const row of m) yield* row;
}

/**
 * The normalization range. Local: the cells shown (the zoomed rectangle when zoomed). Global: every matrix
 * of the run(s) for this statistic, all message lengths (as PARUS network_viewer normalizes over all the
 * matrices of its file, which holds one statistic), and in side-by-side mode both runs, so that equal
 * colours mean equal delays everywhere. A zoomed view is always local: it exists to tell apart cells that
 * the whole picture paints alike.
 */
export function normalizationRange(
  runs: readonly NetTestFile[],
  compare: Compare,
  stat: Statistic,
  lengthIndex: number,
  normalization: Normalization,
  shown: readonly (readonly (number | null)[])[],
  zoomed: boolean,
): [number, number] {
  if (normalization === 'local' || zoomed) return rangeOf(shown.flat());
  const [a, b] = runs;
  if (a === undefined) return [0, 0];
  const all: (number | null)[] = [];
  if (compare === 'ratio' && b !== undefined) {
    const n = Math.min(a.results.length, b.results.length);
    for (let k = 0; k < n; k++) all.push(...cells(shownMatrix(a, b, 'ratio', stat, k)));
  } else {
    for (const run of compare === 'side-by-side' ? runs : [a])
      for (let k = 0; k < run.results.length; k++) all.push(...cells(matrixOf(run, stat, k)));
  }
  return rangeOf(all);
}

function breaks(order: readonly number[], hosts: readonly string[]): number[] {
  const out: number[] = [];
  for (let p = 1; p < order.length; p++)
    if (hosts[order[p] as number] !== hosts[order[p - 1] as number]) out.push(p);
  return out;
}

/** The grid of one run's view (ratio: run a over run b), zoomed or not. */
export function buildGrid(
  runs: readonly NetTestFile[],
  which: number,
  compare: Compare,
  stat: Statistic,
  lengthIndex: number,
  normalization: Normalization,
  zoom: Zoom | undefined,
): Grid {
  const run = runs[which];
  if (run === undefined) throw new Error(`no run ${which}`);
  const m = shownMatrix(run, runs[1], which === 0 ? compare : 'single', stat, lengthIndex);
  const order = hostOrder(run.hosts);
  const rows = zoom === undefined ? order : order.slice(zoom.r0, zoom.r1 + 1);
  const cols = zoom === undefined ? order : order.slice(zoom.c0, zoom.c1 + 1);
  const values = rows.map((i) => cols.map((j) => m[i]?.[j] ?? null));
  const [lo, hi] = normalizationRange(
    compare === 'side-by-side' ? runs : [run, ...(compare === 'ratio' ? runs.slice(1) : [])],
    compare,
    stat,
    lengthIndex,
    normalization,
    values,
    zoom !== undefined,
  );
  return {
    rows,
    cols,
    values,
    lo,
    hi,
    rowBreaks: breaks(rows, run.hosts),
    colBreaks: breaks(cols, run.hosts),
  };
}

/**
 * How values map onto the colour range. Logarithmic is the default: delays on a loaded or hierarchical
 * machine span orders of magnitude (2 µs within a host, 20 µs across, a 25 ms cell where a rank was
 * descheduled), and on a linear scale one slow cell paints every other cell alike.
 */
export type ValueMapping = 'log' | 'linear';

/** 0..1 within [lo, hi]; a flat range maps to the middle; log needs a positive range (else linear). */
export function level(v: number, lo: number, hi: number, mapping: ValueMapping = 'linear'): number {
  if (!(hi > lo)) return 0.5;
  if (mapping === 'log' && lo > 0 && v > 0)
    return Math.min(1, Math.max(0, Math.log(v / lo) / Math.log(hi / lo)));
  return Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
}

/** Viridis at five stops: perceptually even, readable by the colour-blind, and printable in grey. */
const VIRIDIS: readonly (readonly [number, number, number])[] = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

/** The colour of level t (0 = fastest, 1 = slowest): grey runs from black to white. */
export function colourOf(t: number, scale: ColourScale): string {
  if (scale === 'grey') {
    const g = Math.round(t * 255);
    return `rgb(${g},${g},${g})`;
  }
  const x = t * (VIRIDIS.length - 1);
  const k = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - k;
  const a = VIRIDIS[k] as readonly [number, number, number];
  const b = VIRIDIS[k + 1] as readonly [number, number, number];
  const mix = (p: number): number => Math.round((a[p] as number) + ((b[p] as number) - (a[p] as number)) * f);
  return `rgb(${mix(0)},${mix(1)},${mix(2)})`;
}

/** A delay for people: ns, µs, ms or s with three significant digits. */
export function formatSeconds(s: number): string {
  const a = Math.abs(s);
  if (a === 0) return '0 s';
  if (a < 1e-6) return `${(s * 1e9).toPrecision(3)} ns`;
  if (a < 1e-3) return `${(s * 1e6).toPrecision(3)} µs`;
  if (a < 1) return `${(s * 1e3).toPrecision(3)} ms`;
  return `${s.toPrecision(3)} s`;
}
