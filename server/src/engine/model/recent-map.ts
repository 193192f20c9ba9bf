/**
 * A map from numbers (handles) that keeps what was set recently: the keys of the last `capacity` set() calls
 * that were not deleted or set again since. The engine's per-rank memories of requests (who made a send,
 * which handles were retired) are bounded this way because they are written at every request of every rank,
 * and read almost never: `retired` when a call is given a handle that is not a live request (a stale copy, or
 * a request of a function the shim does not intercept), `sendCreators` for the shim's send-buffer-modified
 * finding.
 *
 * So a set() is two stores into a ring of slots (the keys in the order they were set; evicting is overwriting
 * the oldest slot) and nothing else. The key → slot index is brought up to date when it is read: get(), has(),
 * delete() and size first take in the sets made since the last read (at most the last `capacity`, in order, so
 * each key ends at its latest slot), and an index entry counts only while its slot still holds its key (a slot
 * overwritten since, by a later set, evicted it). The index kept up at every set — an open-addressing table
 * probed, shifted back and rehashed as it grew — cost a cache miss or more per set in tables of up to 65,536
 * handles per rank: 15-18% of the engine's time in bench/engine-throughput, whose handles are never reused.
 *
 * The ring grows by doubling up to `capacity`, so a rank that makes few requests holds a few hundred bytes, not
 * the whole bound. The bound only matters for programs that keep that many requests' handles in play; MPI
 * recycles handles.
 */
export class RecentMap<V> {
  private keys: Float64Array;
  private values: (V | undefined)[];
  /** The slot the next set() writes: set number n goes to slot n % capacity. */
  private next = 0;
  private filled = 0;
  /** set() calls so far, and how many of them the index has taken in. */
  private sets = 0;
  private indexed = 0;
  /** Key → the slot of its latest set, as of `indexed` (entries whose slot was overwritten since are dead). */
  private readonly index = new Map<number, number>();

  constructor(readonly capacity: number) {
    const n = Math.min(capacity, 64);
    this.keys = new Float64Array(n);
    this.values = new Array<V | undefined>(n).fill(undefined);
  }

  /** Nothing was ever set (cheaper than `size`, which brings the index up to date). */
  get empty(): boolean {
    return this.sets === 0;
  }

  get size(): number {
    this.catchUp();
    this.prune();
    return this.index.size;
  }

  has(key: number): boolean {
    return this.slotOf(key) >= 0;
  }

  get(key: number): V | undefined {
    const s = this.slotOf(key);
    return s < 0 ? undefined : this.values[s];
  }

  delete(key: number): void {
    const s = this.slotOf(key);
    if (s < 0) return;
    // NaN equals no key: the slot is dead (an older set of the key, still in the ring, is already out of the index).
    this.keys[s] = NaN;
    this.values[s] = undefined;
    this.index.delete(key);
  }

  set(key: number, value: V): void {
    const slot = this.next;
    if (this.filled < this.capacity) {
      if (this.filled === this.keys.length) this.grow();
      this.filled++;
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    this.sets++;
  }

  /** The slot of the key's latest set while the ring holds it, or -1. */
  private slotOf(key: number): number {
    this.catchUp();
    const s = this.index.get(key);
    return s !== undefined && this.keys[s] === key ? s : -1;
  }

  /** Takes the sets made since the last read into the index, oldest first (those the ring still holds). */
  private catchUp(): void {
    if (this.indexed === this.sets) return;
    const cap = this.capacity;
    const from = Math.max(this.indexed, this.sets - cap);
    for (let n = from; n < this.sets; n++) {
      const s = n % cap;
      const k = this.keys[s] as number;
      if (k === k) this.index.set(k, s);
    }
    this.indexed = this.sets;
    // Dead entries (keys evicted without a read in between) would pile up with keys never set again.
    if (this.index.size > 2 * cap + 64) this.prune();
  }

  /** Drops the index entries whose slot no longer holds their key. */
  private prune(): void {
    for (const [k, s] of this.index) if (this.keys[s] !== k) this.index.delete(k);
  }

  /** Before the ring is full, slots are taken in order: doubling keeps every slot's index. */
  private grow(): void {
    const n = Math.min(this.capacity, this.keys.length * 2);
    const keys = new Float64Array(n);
    keys.set(this.keys);
    this.keys = keys;
    // One new array filled at once, the values copied: a push per new slot (up to 32,768 at the last doubling, on
    // every rank) was 1.4% of the engine's time in bench/engine-throughput.
    const values = new Array<V | undefined>(n).fill(undefined);
    const old = this.values;
    for (let i = 0; i < old.length; i++) values[i] = old[i];
    this.values = values;
  }
}

const bits = new Float64Array(1);
const halves = new Int32Array(bits.buffer);

/** Handles are pointers or small ints: mix both 32-bit halves of the double. (Also HandleTable's.) */
export function hashHandle(key: number): number {
  bits[0] = key;
  const h = Math.imul((halves[0] as number) ^ Math.imul(halves[1] as number, 0x85ebca6b), 0x9e3779b1);
  return h ^ (h >>> 15);
}
