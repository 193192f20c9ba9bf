import { LOD_CLASSES } from '../store/lod';
import type { TimelineStore } from '../store/timeline-store';
import type { Palette } from './palette';

export const MINIMAP_HEIGHT = 36;

/** "#rrggbb" / "#rgb" / "rgb(a)(…)" → [r, g, b]; anything else grey (the canvas paints what it cannot parse). */
export function parseColour(c: string): [number, number, number] {
  const s = c.trim();
  const hex = /^#([0-9a-f]{3,8})$/i.exec(s)?.[1];
  if (hex !== undefined) {
    const full = hex.length <= 4 ? [...hex.slice(0, 3)].map((d) => d + d).join('') : hex.slice(0, 6);
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
  }
  const rgb = /^rgba?\(([^)]*)\)$/i.exec(s)?.[1];
  if (rgb !== undefined) {
    const [r = 128, g = 128, b = 128] = rgb.split(/[ ,/]+/).map((x) => parseFloat(x));
    return [r, g, b];
  }
  return [128, 128, 128];
}

/**
 * The whole job at a glance, as pixels: a row band per rank (ranks share a row when there are more ranks
 * than rows), a column per time slice of [0, end]; each pixel takes the colour of the call class that
 * was busiest there, its opacity how busy the ranks were. Calls still in progress (a blocked receive has no
 * end yet) are busy from their start to `end`, in the blocked colour on a deadlocked rank, as the timeline
 * draws them: without them a deadlocked job's busy area stopped where its last finished call did. Built from the store's level-of-detail pyramid
 * (one pass over its buckets; over every call when the minimap is finer than the pyramid's finest level),
 * and rebuilt only when the job grew, not per frame.
 */
export function minimapPixels(
  store: TimelineStore,
  width: number,
  height: number,
  palette: Palette,
  end: number,
): Uint8ClampedArray<ArrayBuffer> {
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  // The call classes, then one more: blocked (calls in progress on a deadlocked rank).
  const blockedCls = palette.cls.length;
  const classes = blockedCls + 1;
  // busy[(row * w + col) * classes + cls] = nanoseconds of that class in that cell.
  const busy = new Float64Array(w * h * classes);
  const ranks = Math.max(1, store.ranks);
  const nsPerCol = Math.max(1, end) / w;
  const clsOf = new Map<number, number>();
  for (const f of store.functions.values()) clsOf.set(f.id, f.cls);
  // Buckets of a quarter column or less where the pyramid has them: less smearing, still far fewer than calls.
  const fine = store.lod.levelFor(nsPerCol / 4);
  const level = fine >= 0 ? fine : store.lod.levelFor(nsPerCol);
  const adder =
    (rank: number) =>
    (c: number, cls: number, ns: number): void => {
      const rowA = Math.floor((rank * h) / ranks);
      const rowB = Math.max(rowA + 1, Math.floor(((rank + 1) * h) / ranks));
      for (let row = rowA; row < rowB && row < h; row++) {
        const k = (row * w + c) * classes + cls;
        busy[k] = (busy[k] as number) + ns;
      }
    };
  /** Adds [a, b] (in columns) of one class to a rank's rows, split between the columns it covers. */
  const addSpan = (
    add: (c: number, cls: number, ns: number) => void,
    a: number,
    b: number,
    cls: number,
  ): void => {
    const c0 = Math.max(0, Math.floor(a));
    const c1 = Math.min(w - 1, Math.floor(b));
    for (let c = c0; c <= c1; c++) {
      const part = (Math.min(b, c + 1) - Math.max(a, c)) * nsPerCol;
      if (part > 0) add(c, cls, part);
    }
  };
  store.lanes.forEach((lane, rank) => {
    const add = adder(rank);
    const data = level >= 0 ? store.lod.lanes[rank]?.[level] : undefined;
    if (data !== undefined) {
      // From the level-of-detail pyramid: buckets (at most a column wide) shared between the columns they
      // straddle, so the minimap costs buckets, not calls, and rebuilding it while a job grows stays cheap.
      const bw = store.lod.width(level);
      const nb = Math.min(data.length / LOD_CLASSES, Math.ceil(Math.max(1, end) / bw) + 1);
      for (let b = 0; b < nb; b++) {
        const x = (b * bw) / nsPerCol;
        const c = Math.floor(x);
        if (c >= w) break;
        const f = Math.min(1, ((c + 1 - x) * nsPerCol) / bw);
        for (let cls = 0; cls < LOD_CLASSES && cls < classes; cls++) {
          const ns = data[b * LOD_CLASSES + cls] as number;
          if (ns === 0) continue;
          add(c, cls, ns * f);
          if (f < 1 && c + 1 < w) add(c + 1, cls, ns * (1 - f));
        }
      }
      return;
    }
    const starts = lane.start.values;
    const ends = lane.end.values;
    const fns = lane.fn.values;
    for (let i = 0; i < lane.length; i++) {
      const a = (starts[i] as number) / nsPerCol;
      const b = (ends[i] as number) / nsPerCol;
      addSpan(add, a, b, clsOf.get(fns[i] as number) ?? 0);
    }
  });
  // The ranks a deadlock names (draw-timeline's blockedRanks, which imports this module).
  const blocked = new Set<number>();
  for (const f of store.findings) if (f.kind === 'deadlock') for (const l of f.locations) blocked.add(l.rank);
  for (const o of store.open) {
    if (o.rank >= ranks || o.start >= end) continue;
    const cls = blocked.has(o.rank) ? blockedCls : (clsOf.get(o.fn) ?? 0);
    addSpan(adder(o.rank), o.start / nsPerCol, end / nsPerCol, cls);
  }
  const rgb = [...palette.cls, palette.blocked].map(parseColour);
  const bg = parseColour(palette.background);
  const out = new Uint8ClampedArray(w * h * 4);
  const rowsPerRank = Math.max(1, h / ranks);
  for (let px = 0; px < w * h; px++) {
    let total = 0;
    let top = 0;
    let topNs = 0;
    for (let k = 0; k < classes; k++) {
      const ns = busy[px * classes + k] as number;
      total += ns;
      if (ns > topNs) {
        topNs = ns;
        top = k;
      }
    }
    // A cell's share of the time its ranks could have been in MPI (rows shared by several ranks add up).
    const share = Math.min(1, total / (nsPerCol * Math.max(1, 1 / rowsPerRank)));
    const alpha = total > 0 ? 0.25 + 0.75 * share : 0;
    const [r, g, b] = rgb[top] ?? [128, 128, 128];
    out[px * 4] = bg[0] + (r - bg[0]) * alpha;
    out[px * 4 + 1] = bg[1] + (g - bg[1]) * alpha;
    out[px * 4 + 2] = bg[2] + (b - bg[2]) * alpha;
    out[px * 4 + 3] = 255;
  }
  return out;
}
