/**
 * Spans [from, to) of memory, sorted by `from`, each with its item: which of them meet a given span, without
 * walking them all. The buffer-overlap check asks this for every send and receive a rank posts while others are
 * pending; a walk of every pending request made that quadratic in what is pending.
 *
 * Three parallel arrays sorted by `from` (no object per entry); adding and removing move the tail (a memmove of
 * at most the pending count, far cheaper than a check per entry). A query starts at the first entry that could
 * reach the span (its `from` after `lo - longest`, by binary search) and stops at the first that starts at or
 * after `hi`: entries are visited only near the span. `longest` is the longest span held since the index was last
 * empty (not shrunk on removal: exact shrinking would need a heap, and an overestimate only widens the search).
 */
export class SpanIndex<T> {
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  private readonly items: T[] = [];
  private longest = 0;

  get size(): number {
    return this.items.length;
  }

  add(from: number, to: number, item: T): void {
    // After the entries with the same start: among equal starts, the order of adding.
    const i = this.firstAfter(from);
    // Grown by one at the end, then the tail moved up by one: splice would allocate the (empty) array of what it
    // removed, at every insertion not at the end.
    this.from.push(from);
    this.to.push(to);
    this.items.push(item);
    const last = this.items.length - 1;
    if (i < last) {
      this.from.copyWithin(i + 1, i, last);
      this.to.copyWithin(i + 1, i, last);
      this.items.copyWithin(i + 1, i, last);
      this.from[i] = from;
      this.to[i] = to;
      this.items[i] = item;
    }
    if (to - from > this.longest) this.longest = to - from;
  }

  /** Removes `item` added at `from`; false when it is not there. */
  remove(from: number, item: T): boolean {
    for (let i = this.firstAtOrAfter(from); i < this.items.length && this.from[i] === from; i++) {
      if (this.items[i] !== item) continue;
      // The tail moved down by one, then the last slot dropped: splice would allocate the array it removed.
      const n = this.items.length;
      if (i < n - 1) {
        this.from.copyWithin(i, i + 1, n);
        this.to.copyWithin(i, i + 1, n);
        this.items.copyWithin(i, i + 1, n);
      }
      this.from.pop();
      this.to.pop();
      this.items.pop();
      if (this.items.length === 0) this.longest = 0;
      return true;
    }
    return false;
  }

  /** Appends to `out` every item whose span shares a byte with [lo, hi). */
  meeting(lo: number, hi: number, out: T[]): void {
    const n = this.items.length;
    if (n === 0) return;
    // An entry starting at or before lo - longest ends at or before lo.
    for (let i = this.firstAfter(lo - this.longest); i < n; i++) {
      if ((this.from[i] as number) >= hi) break;
      if ((this.to[i] as number) > lo) out.push(this.items[i] as T);
    }
  }

  /** Index of the first entry whose from is > x. */
  private firstAfter(x: number): number {
    let a = 0;
    let b = this.from.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if ((this.from[m] as number) <= x) a = m + 1;
      else b = m;
    }
    return a;
  }

  /** Index of the first entry whose from is >= x. */
  private firstAtOrAfter(x: number): number {
    let a = 0;
    let b = this.from.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if ((this.from[m] as number) < x) a = m + 1;
      else b = m;
    }
    return a;
  }
}
