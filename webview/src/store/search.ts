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
 * Indices [from, to) of the items sorted by start that can overlap the window [t0, t1]: an item starting
 * before t0 - maxDuration has ended before t0, and one starting after t1 is past the window. Items inside
 * the range may still end before t0 (when shorter than maxDuration); the caller skips those while drawing.
 */
export function visibleRange(
  starts: ArrayLike<number>,
  length: number,
  maxDuration: number,
  t0: number,
  t1: number,
): [number, number] {
  const from = lowerBound(starts, length, t0 - maxDuration);
  return [from, Math.max(from, upperBound(starts, length, t1))];
}
