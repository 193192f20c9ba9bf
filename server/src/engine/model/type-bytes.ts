/**
 * The bytes a count of a datatype touches, from the type's layout (its blocks, sent by the shim for a committed
 * type with gaps): for buffer-overlap (local buffers) and rma-race (window memory at the target).
 */
import type { DtypeInfo } from './datatypes';

/** Most blocks of memory followed on each side before giving up (a type with gaps and a huge count). */
const MAX_BLOCKS = 50_000;

/** One element's blocks (offset from the true lb, length); undefined when the type has gaps and no layout. */
function blocksOf(t: DtypeInfo): readonly (readonly [number, number])[] | undefined {
  if (t.layout !== undefined) return t.layout;
  return t.size === t.trueExtent ? [[0, t.trueExtent]] : undefined;
}

/** The merged [from, to) blocks of count × t at base (= buf + true lb) inside [lo, hi); undefined if unknown. */
function blocksIn(
  base: number,
  count: number,
  t: DtypeInfo,
  lo: number,
  hi: number,
): [number, number][] | undefined {
  const blocks = blocksOf(t);
  if (blocks === undefined) return undefined;
  let k0 = 0;
  let k1 = count - 1;
  if (t.extent > 0) {
    k0 = Math.max(0, Math.ceil((lo - base - t.trueExtent + 1) / t.extent));
    k1 = Math.min(count - 1, Math.floor((hi - 1 - base) / t.extent));
  }
  const out: [number, number][] = [];
  for (let k = k0; k <= k1; k++) {
    for (const [off, len] of blocks) {
      const from = Math.max(lo, base + k * t.extent + off);
      const to = Math.min(hi, base + k * t.extent + off + len);
      if (from < to) out.push([from, to]);
    }
    if (out.length > MAX_BLOCKS) return undefined;
  }
  out.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const b of out) {
    const last = merged[merged.length - 1];
    if (last !== undefined && b[0] <= last[1]) last[1] = Math.max(last[1], b[1]);
    else merged.push(b);
  }
  return merged;
}

/** count × dtype laid out from base (= the buffer's address + the type's true lb). */
export interface Placed {
  readonly base: number;
  readonly count: number;
  readonly dtype: DtypeInfo;
}

/**
 * How many bytes both touch inside [lo, hi): exact from the types' layouts; undefined when a type has gaps
 * and no known layout (or too many blocks to follow).
 */
export function commonBytes(a: Placed, b: Placed, lo: number, hi: number): number | undefined {
  const x = blocksIn(a.base, a.count, a.dtype, lo, hi);
  const y = blocksIn(b.base, b.count, b.dtype, lo, hi);
  if (x === undefined || y === undefined) return undefined;
  let shared = 0;
  for (let i = 0, j = 0; i < x.length && j < y.length;) {
    const [xa, xb] = x[i] as [number, number];
    const [ya, yb] = y[j] as [number, number];
    shared += Math.max(0, Math.min(xb, yb) - Math.max(xa, ya));
    if (xb < yb) i++;
    else j++;
  }
  return shared;
}
