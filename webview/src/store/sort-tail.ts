import type { Growable } from './growable';
import { lowerBound, upperBound } from './search';

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
  const fresh = sortedIndices(k, sortedUpTo, n);
  const firstFresh = k[fresh[0] ?? 0] ?? 0;
  const from = upperBound(k, sortedUpTo, firstFresh);
  // The merge of the old suffix [from, sortedUpTo) with the sorted fresh rows, old rows first among equals.
  const order = new Float64Array(n - from);
  let i = from;
  let j = 0;
  let moved = false;
  for (let o = 0; o < order.length; o++) {
    const f = j < fresh.length ? (fresh[j] as number) : -1;
    const next = i < sortedUpTo && (f < 0 || (k[i] as number) <= (k[f] as number)) ? i++ : (j++, f);
    order[o] = next;
    if (next !== from + o) moved = true;
  }
  if (!moved) return sortedUpTo;
  for (const col of columns) col.permuteFrom(from, order);
  return from;
}

/**
 * The indices of rows [lo, hi) of `k` in key order, equal keys in row order. The keys are sorted as a typed
 * array (the engine's numeric sort, no comparator call per pair), and each row is then placed at its key's
 * first slot in them, plus how many earlier rows had the same key. A sort of an index array by a comparator
 * was half of a million-event trace's ingest (messages come in receive order, so every batch is sorted).
 */
function sortedIndices(k: Float64Array, lo: number, hi: number): Float64Array {
  const m = hi - lo;
  const keys = k.slice(lo, hi).sort();
  const out = new Float64Array(m);
  const taken = new Uint32Array(m);
  for (let r = lo; r < hi; r++) {
    const at = lowerBound(keys, m, k[r] as number);
    out[at + (taken[at] as number)] = r;
    taken[at] = (taken[at] as number) + 1;
  }
  return out;
}
