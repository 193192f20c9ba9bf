/**
 * A map from numbers (handles) that keeps what was set recently: the keys of the last `capacity` set() calls
 * that were not deleted or set again since. The engine's per-rank memories of requests (who made a send,
 * which handles were retired) are bounded this way because they are touched at every request of every rank:
 * a Map kept in insertion order by delete-and-set, with its oldest key found by an iterator, allocated and
 * rehashed on every call once full. Here a ring of slots holds the keys in the order they were set, and
 * evicting is overwriting the oldest slot: no allocation after the first `capacity` entries.
 *
 * It may hold fewer than `capacity` keys (a slot whose key was set again or deleted stays in the ring until
 * overwritten); it never holds a key set more than `capacity` set() calls ago. The bound only matters for
 * programs that keep that many requests' handles in play; MPI recycles handles.
 *
 * The key → slot index is an open-addressing table of slot numbers (linear probing, deletion by shifting back),
 * not a Map: a Map of 65,536 number keys deleted from and added to at every request was 14% of the engine's
 * time in bench/engine-throughput. Slots and table grow by doubling up to `capacity`, so a rank that makes
 * few requests holds a few hundred bytes, not the whole bound.
 */
export class RecentMap<V> {
  private keys: Float64Array;
  private values: (V | undefined)[];
  /** Open addressing: slot + 1 of the key hashed here, 0 for empty. Twice the slots, a power of two. */
  private table: Int32Array;
  private mask: number;
  private next = 0;
  private filled = 0;
  private live = 0;

  constructor(readonly capacity: number) {
    const n = Math.min(capacity, 64);
    this.keys = new Float64Array(n);
    this.values = new Array<V | undefined>(n).fill(undefined);
    this.table = new Int32Array(tableSize(n));
    this.mask = this.table.length - 1;
  }

  get size(): number {
    return this.live;
  }

  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  get(key: number): V | undefined {
    const at = this.find(key);
    return at < 0 ? undefined : this.values[(this.table[at] as number) - 1];
  }

  delete(key: number): void {
    const at = this.find(key);
    if (at < 0) return;
    this.values[(this.table[at] as number) - 1] = undefined;
    this.unlink(at);
    this.live--;
  }

  set(key: number, value: V): void {
    const old = this.find(key);
    if (old >= 0) {
      this.values[(this.table[old] as number) - 1] = undefined;
      this.unlink(old);
      this.live--;
    }
    const slot = this.next;
    if (this.filled === this.capacity) {
      // The oldest slot: drop its key unless that key has moved to a newer slot (or was deleted).
      const at = this.find(this.keys[slot] as number);
      if (at >= 0 && this.table[at] === slot + 1) {
        this.unlink(at);
        this.live--;
      }
    } else {
      if (this.filled === this.keys.length) this.grow();
      this.filled++;
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    let at = hashHandle(key) & this.mask;
    while (this.table[at] !== 0) at = (at + 1) & this.mask;
    this.table[at] = slot + 1;
    this.live++;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
  }

  /** Table index of the key, or -1. */
  private find(key: number): number {
    const t = this.table;
    let at = hashHandle(key) & this.mask;
    for (;;) {
      const s = t[at] as number;
      if (s === 0) return -1;
      if (this.keys[s - 1] === key) return at;
      at = (at + 1) & this.mask;
    }
  }

  /** Empties a table entry and shifts back the entries after it that probed past it (linear probing). */
  private unlink(at: number): void {
    const t = this.table;
    const mask = this.mask;
    let hole = at;
    let j = at;
    t[hole] = 0;
    for (;;) {
      j = (j + 1) & mask;
      const s = t[j] as number;
      if (s === 0) return;
      const home = hashHandle(this.keys[s - 1] as number) & mask;
      // Move the entry into the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        t[hole] = s;
        t[j] = 0;
        hole = j;
      }
    }
  }

  /** Before the ring is full, slots are taken in order: doubling keeps every slot's index. */
  private grow(): void {
    const n = Math.min(this.capacity, this.keys.length * 2);
    const keys = new Float64Array(n);
    keys.set(this.keys);
    this.keys = keys;
    for (let i = this.values.length; i < n; i++) this.values.push(undefined);
    const old = this.table;
    this.table = new Int32Array(tableSize(n));
    this.mask = this.table.length - 1;
    for (const s of old) {
      if (s === 0) continue;
      let at = hashHandle(this.keys[s - 1] as number) & this.mask;
      while (this.table[at] !== 0) at = (at + 1) & this.mask;
      this.table[at] = s;
    }
  }
}

function tableSize(slots: number): number {
  let n = 8;
  while (n < slots * 2) n *= 2;
  return n;
}

const bits = new Float64Array(1);
const halves = new Int32Array(bits.buffer);

/** Handles are pointers or small ints: mix both 32-bit halves of the double. (Also HandleTable's.) */
export function hashHandle(key: number): number {
  bits[0] = key;
  const h = Math.imul((halves[0] as number) ^ Math.imul(halves[1] as number, 0x85ebca6b), 0x9e3779b1);
  return h ^ (h >>> 15);
}
