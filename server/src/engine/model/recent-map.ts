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
 */
export class RecentMap<V> {
  private readonly slotOf = new Map<number, number>();
  private readonly keys: Float64Array;
  private readonly values: (V | undefined)[];
  private next = 0;
  private filled = 0;

  constructor(readonly capacity: number) {
    this.keys = new Float64Array(capacity);
    this.values = new Array<V | undefined>(capacity).fill(undefined);
  }

  get size(): number {
    return this.slotOf.size;
  }

  has(key: number): boolean {
    return this.slotOf.has(key);
  }

  get(key: number): V | undefined {
    const slot = this.slotOf.get(key);
    return slot === undefined ? undefined : this.values[slot];
  }

  delete(key: number): void {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return;
    this.slotOf.delete(key);
    this.values[slot] = undefined;
  }

  set(key: number, value: V): void {
    const old = this.slotOf.get(key);
    if (old !== undefined) this.values[old] = undefined;
    const slot = this.next;
    if (this.filled === this.capacity) {
      // The oldest slot: drop its key unless that key has moved to a newer slot (or was deleted).
      const evicted = this.keys[slot] as number;
      if (this.slotOf.get(evicted) === slot) this.slotOf.delete(evicted);
    } else {
      this.filled++;
    }
    this.keys[slot] = key;
    this.values[slot] = value;
    this.slotOf.set(key, slot);
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
  }
}
