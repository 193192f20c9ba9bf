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
  // Rows appended in order after the old ones (a rank's calls come by start) move nothing: no index array,
  // no sort (the sort was a tenth of a million-event trace's ingest).
  let ordered = sortedUpTo === 0 || (k[sortedUpTo - 1] ?? 0) <= (k[sortedUpTo] ?? 0);
  for (let i = sortedUpTo + 1; ordered && i < n; i++) ordered = (k[i - 1] ?? 0) <= (k[i] ?? 0);
  if (ordered) return sortedUpTo;
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
