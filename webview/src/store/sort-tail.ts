import type { Growable } from './growable';
import { upperBound } from './search';

/**
 * Restores key order after appending rows [sortedUpTo, length): sorts the new rows, then merges them
 * into the suffix of the old rows they interleave with. Batches arrive roughly in time order, so the
 * merged suffix is short and a batch costs about its own size, not the size of the whole table.
 */
/** Returns the first row that may have changed (the table's length when none did). */
export function sortTail(key: Growable, columns: readonly Growable[], sortedUpTo: number): number {
  const n = key.length;
  if (sortedUpTo >= n) return n;
  const k = key.values;
  const fresh = Array.from({ length: n - sortedUpTo }, (_, i) => sortedUpTo + i).sort(
    (a, b) => (k[a] ?? 0) - (k[b] ?? 0) || a - b,
  );
  const firstFresh = k[fresh[0] ?? 0] ?? 0;
  const from = upperBound(k, sortedUpTo, firstFresh);
  const order: number[] = [];
  let i = from;
  let j = 0;
  while (i < sortedUpTo || j < fresh.length) {
    const f = fresh[j];
    if (i < sortedUpTo && (f === undefined || (k[i] ?? 0) <= (k[f] ?? 0))) order.push(i++);
    else if (f !== undefined) {
      order.push(f);
      j++;
    }
  }
  if (from === sortedUpTo && order.every((v, x) => v === from + x)) return sortedUpTo;
  for (const col of columns) col.permuteFrom(from, order);
  return from;
}
