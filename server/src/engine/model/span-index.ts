import { grown } from '../../protocol/grown';

/**
 * Entries moved by a loop, not by `copyWithin`, when an add or a removal shifts at most this many: a typed
 * array's `copyWithin` is a call into V8's runtime (~2% of the warm engine on the halo exchange of
 * bench/engine-throughput, whose Waitall removes each of four pending requests from a handful), and a rank's
 * pending requests are nearly always a handful.
 */
const SHORT_MOVE = 32;

/** The item of a removed entry (items are request rows, never negative). */
const DEAD = -1;

/**
 * Spans [from, to) of memory, sorted by `from`, each with its item (a request row): which of them meet a given span,
 * without walking them all. The buffer-overlap check asks this for every send and receive a rank posts while others
 * are pending; a walk of every pending request made that quadratic in what is pending.
 *
 * Four parallel typed columns sorted by (`from`, the order of adding), no object per entry. Adding moves the tail (a
 * memmove of at most the pending count; nothing moves when the span starts at or after every other, as a rank's
 * buffers mostly do, or where the entry before the place is a removed one, whose slot it takes). Removing finds the
 * entry by binary search on (`from`, order) — the caller keeps the order `add` returned — and only marks it
 * removed; the removed ones are squeezed out in one pass once they outnumber the rest. So a rank with N requests
 * pending on one buffer, completed in the order posted (a root's Isends of one array to every rank, a Waitall of
 * them), costs O(log N) per request, not the O(N) scan and shift of each removal that made a Waitall of 200,000
 * requests take minutes. A query starts at the first entry that could reach the span (its `from` after
 * `lo - longest`, by binary search) and stops at the first that starts at or after `hi`: entries are visited only
 * near the span. `longest` is the longest span held since the index was last empty (not shrunk on removal: exact
 * shrinking would need a heap, and an overestimate only widens the search).
 */
export class SpanIndex {
  /**
   * Typed columns with a count, grown by doubling and never shrunk, not plain arrays kept at their length: V8 drops
   * the backing store of an array popped to empty, and a rank's pending requests empty at every Waitall, so each
   * Waitall reallocated the arrays (and `copyWithin` on a plain array is a generic builtin call).
   */
  private from = new Float64Array(8);
  private to = new Float64Array(8);
  /** The order of adding (the key among equal starts; what `remove` is given). */
  private ords = new Float64Array(8);
  private items = new Int32Array(8);
  /** Slots in use, removed ones included. */
  private n = 0;
  private live = 0;
  private nextOrd = 0;
  /**
   * Minus zero, not 0: a double from the index's birth (spans of addresses are doubles; a field born a small
   * integer and given a double moves the class to a new map, and the code compiled for the rank tracks holding
   * an index of the old one was thrown away when the next engine of the process made one). Compares and
   * subtracts as 0.
   */
  private longest = -0;

  get size(): number {
    return this.live;
  }

  /** Adds `item` (a non-negative integer) over [from, to); returns the order `remove` asks for. */
  add(from: number, to: number, item: number): number {
    const ord = this.nextOrd++;
    // After the entries with the same start: among equal starts, the order of adding.
    let i = this.firstAfter(from);
    if (i > 0 && this.items[i - 1] === DEAD) {
      // The removed entry just before the place: its key is at most this one's, the next one's at least.
      i--;
    } else {
      if (this.n === this.from.length) {
        if (this.n - this.live >= this.n >> 2) {
          this.compact();
          i = this.firstAfter(from);
        } else this.grow();
      }
      const n = this.n;
      if (i < n) {
        const f = this.from;
        const t = this.to;
        const o = this.ords;
        const it = this.items;
        if (n - i <= SHORT_MOVE)
          for (let k = n; k > i; k--) {
            f[k] = f[k - 1] as number;
            t[k] = t[k - 1] as number;
            o[k] = o[k - 1] as number;
            it[k] = it[k - 1] as number;
          }
        else {
          f.copyWithin(i + 1, i, n);
          t.copyWithin(i + 1, i, n);
          o.copyWithin(i + 1, i, n);
          it.copyWithin(i + 1, i, n);
        }
      }
      this.n = n + 1;
    }
    this.from[i] = from;
    this.to[i] = to;
    this.ords[i] = ord;
    this.items[i] = item;
    this.live++;
    if (to - from > this.longest) this.longest = to - from;
    return ord;
  }

  /** Removes `item`, added at `from` with order `ord`; false when it is not there. */
  remove(from: number, ord: number, item: number): boolean {
    const i = this.find(from, ord);
    if (i === this.n || this.from[i] !== from || this.ords[i] !== ord || this.items[i] !== item) return false;
    this.items[i] = DEAD;
    const live = --this.live;
    if (live === 0) {
      this.n = 0;
      this.longest = 0;
    } else if (this.n - live > live && this.n > SHORT_MOVE) this.compact();
    return true;
  }

  /** Appends to `out` every item whose span shares a byte with [lo, hi). */
  meeting(lo: number, hi: number, out: number[]): void {
    const n = this.n;
    if (this.live === 0) return;
    // An entry starting at or before lo - longest ends at or before lo.
    for (let i = this.firstAfter(lo - this.longest); i < n; i++) {
      if ((this.from[i] as number) >= hi) break;
      const item = this.items[i] as number;
      if ((this.to[i] as number) > lo && item !== DEAD) out.push(item);
    }
  }

  /** The removed entries squeezed out, the rest in their order. */
  private compact(): void {
    const f = this.from;
    const t = this.to;
    const o = this.ords;
    const it = this.items;
    let j = 0;
    for (let i = 0; i < this.n; i++) {
      const item = it[i] as number;
      if (item === DEAD) continue;
      if (j !== i) {
        f[j] = f[i] as number;
        t[j] = t[i] as number;
        o[j] = o[i] as number;
        it[j] = item;
      }
      j++;
    }
    this.n = j;
  }

  private grow(): void {
    const size = this.from.length * 2;
    this.from = grown(this.from, size);
    this.to = grown(this.to, size);
    this.ords = grown(this.ords, size);
    this.items = grown(this.items, size);
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

  /** Index of the first entry whose (from, ord) is >= (x, ord). */
  private find(x: number, ord: number): number {
    let a = 0;
    let b = this.n;
    while (a < b) {
      const m = (a + b) >>> 1;
      const fm = this.from[m] as number;
      if (fm < x || (fm === x && (this.ords[m] as number) < ord)) a = m + 1;
      else b = m;
    }
    return a;
  }
}
