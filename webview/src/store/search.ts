import type { Growable } from './growable';

/** First index i in [0, length) with values[i] >= target (length when none). */
export function lowerBound(values: ArrayLike<number>, length: number, target: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i in [0, length) with values[i] > target (length when none). */
export function upperBound(values: ArrayLike<number>, length: number, target: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Indices [from, to) of the items sorted by start that can overlap the window [t0, t1]. `endMax[i]` is the
 * latest end among items 0..i (non-decreasing), so every item before the first i with endMax[i] >= t0 has
 * ended before t0, and one starting after t1 is past the window. Unlike a bound from the longest item's
 * duration, one long call (MPI_Init, a blocked receive) does not make every later frame scan from the start:
 * for a rank's calls, which never overlap, endMax is the end itself. Items inside the range may still end
 * before t0; the caller skips those while drawing.
 */
export function visibleRange(
  starts: ArrayLike<number>,
  endMax: ArrayLike<number>,
  length: number,
  t0: number,
  t1: number,
): [number, number] {
  const from = lowerBound(endMax, length, t0);
  return [from, Math.max(from, upperBound(starts, length, t1))];
}

/** Rewrites endMax[from..] as the running maximum of `ends` (after rows from `from` on changed). */
export function refreshEndMax(ends: Growable, endMax: Growable, from: number): void {
  const e = ends.values;
  while (endMax.length < ends.length) endMax.push(0);
  let m = from > 0 ? endMax.at(from - 1) : -Infinity;
  const out = endMax.values;
  for (let i = from; i < e.length; i++) {
    const v = e[i] as number;
    if (v > m) m = v;
    out[i] = m;
  }
}
