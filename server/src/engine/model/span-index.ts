import { grown } from '../../protocol/grown';

/**
 * Entries moved by a loop, not by `copyWithin`, when an add or a removal shifts at most this many: a typed
 * array's `copyWithin` is a call into V8's runtime (~2% of the warm engine on the halo exchange of
 * bench/engine-throughput, whose Waitall removes each of four pending requests from a handful), and a rank's
 * pending requests are nearly always a handful.
 */
const SHORT_MOVE = 32;

/**
 * Spans [from, to) of memory, sorted by `from`, each with its item: which of them meet a given span, without
 * walking them all. The buffer-overlap check asks this for every send and receive a rank posts while others are
 * pending; a walk of every pending request made that quadratic in what is pending.
 *
 * Three parallel columns sorted by `from` (no object per entry); adding and removing move the tail (a memmove of
 * at most the pending count, far cheaper than a check per entry). A query starts at the first entry that could
 * reach the span (its `from` after `lo - longest`, by binary search) and stops at the first that starts at or
 * after `hi`: entries are visited only near the span. `longest` is the longest span held since the index was last
 * empty (not shrunk on removal: exact shrinking would need a heap, and an overestimate only widens the search).
 */
export class SpanIndex<T> {
  /**
   * Typed columns with a count, grown by doubling and never shrunk, not plain arrays kept at their length: V8 drops
   * the backing store of an array popped to empty, and a rank's pending requests empty at every Waitall, so each
   * Waitall reallocated three arrays (and `copyWithin` on a plain array is a generic builtin call).
   */
  private from = new Float64Array(8);
  private to = new Float64Array(8);
  private items: (T | undefined)[] = new Array<T | undefined>(8).fill(undefined);
  private n = 0;
  /**
   * Minus zero, not 0: a double from the index's birth (spans of addresses are doubles; a field born a small
   * integer and given a double moves the class to a new map, and the code compiled for the rank tracks holding
   * an index of the old one was thrown away when the next engine of the process made one). Compares and
   * subtracts as 0.
   */
  private longest = -0;

  get size(): number {
    return this.n;
  }

  add(from: number, to: number, item: T): void {
    // After the entries with the same start: among equal starts, the order of adding.
    const i = this.firstAfter(from);
    if (this.n === this.from.length) this.grow();
    const n = this.n;
    if (i < n) {
      const f = this.from;
      const t = this.to;
      if (n - i <= SHORT_MOVE)
        for (let k = n; k > i; k--) {
          f[k] = f[k - 1] as number;
          t[k] = t[k - 1] as number;
        }
      else {
        f.copyWithin(i + 1, i, n);
        t.copyWithin(i + 1, i, n);
      }
      const items = this.items;
      for (let k = n; k > i; k--) items[k] = items[k - 1];
    }
    this.from[i] = from;
    this.to[i] = to;
    this.items[i] = item;
    this.n = n + 1;
    if (to - from > this.longest) this.longest = to - from;
  }

  /** Removes `item` added at `from`; false when it is not there. */
  remove(from: number, item: T): boolean {
    const n = this.n;
    for (let i = this.firstAtOrAfter(from); i < n && this.from[i] === from; i++) {
      if (this.items[i] !== item) continue;
      if (i < n - 1) {
        const f = this.from;
        const t = this.to;
        if (n - i <= SHORT_MOVE)
          for (let k = i; k < n - 1; k++) {
            f[k] = f[k + 1] as number;
            t[k] = t[k + 1] as number;
          }
        else {
          f.copyWithin(i, i + 1, n);
          t.copyWithin(i, i + 1, n);
        }
        const items = this.items;
        for (let k = i; k < n - 1; k++) items[k] = items[k + 1];
      }
      // The slot let go, so that the index holds no request it no longer lists.
      this.items[n - 1] = undefined;
      this.n = n - 1;
      if (n === 1) this.longest = 0;
      return true;
    }
    return false;
  }

  /** Appends to `out` every item whose span shares a byte with [lo, hi). */
  meeting(lo: number, hi: number, out: T[]): void {
    const n = this.n;
    if (n === 0) return;
    // An entry starting at or before lo - longest ends at or before lo.
    for (let i = this.firstAfter(lo - this.longest); i < n; i++) {
      if ((this.from[i] as number) >= hi) break;
      if ((this.to[i] as number) > lo) out.push(this.items[i] as T);
    }
  }

  private grow(): void {
    const size = this.from.length * 2;
    this.from = grown(this.from, size);
    this.to = grown(this.to, size);
    for (let i = this.items.length; i < size; i++) this.items.push(undefined);
  }

  /** Index of the first entry whose from is > x. */
  private firstAfter(x: number): number {
    let a = 0;
    let b = this.n;
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
    let b = this.n;
    while (a < b) {
      const m = (a + b) >>> 1;
      if ((this.from[m] as number) < x) a = m + 1;
      else b = m;
    }
    return a;
  }
}
