/**
 * A map from numbers (request handles) to values that allocates nothing while its size stays under what it
 * grew to: an open-addressing table (linear probing, deletion by shifting back) in typed arrays, doubled when
 * half full and never shrunk. A rank's live requests come and go at every nonblocking call; a `Map` rehashed
 * into a smaller table when they went (it shrinks below a quarter full) and into a bigger one when they came
 * back: 8% of the bytes the engine allocated per call in bench/engine-throughput.
 *
 * `values()` lists the values in the order their keys were first set (a key set again keeps its place; deleted
 * and set again, it goes last): the order a `Map` iterates in, which the end-of-run checks report in. It sorts,
 * so it is for the rare walks (end of run, deadlock), not the hot path.
 */
import { hashHandle as hash } from './recent-map';

export interface HandleMap<V> {
  readonly size: number;
  get(key: number): V | undefined;
  has(key: number): boolean;
  values(): V[];
}

export class HandleTable<V> implements HandleMap<V> {
  private keys = new Float64Array(16);
  private vals: (V | undefined)[] = new Array<V | undefined>(16).fill(undefined);
  /** When each key was first set (see values()); exact integers in a double up to 2^53. */
  private order = new Float64Array(16);
  private mask = 15;
  private count = 0;
  private stamps = 0;

  get size(): number {
    return this.count;
  }

  get(key: number): V | undefined {
    const at = this.find(key);
    return at < 0 ? undefined : this.vals[at];
  }

  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  set(key: number, value: V): void {
    // undefined marks an empty entry: a key set to it would be lost.
    if (value === undefined) throw new TypeError('HandleTable.set: value must not be undefined');
    const at = this.find(key);
    if (at >= 0) {
      this.vals[at] = value;
      return;
    }
    if ((this.count + 1) * 2 > this.vals.length) this.grow();
    this.place(key, value, ++this.stamps);
    this.count++;
  }

  delete(key: number): boolean {
    const at = this.find(key);
    if (at < 0) return false;
    this.unlink(at);
    this.count--;
    return true;
  }

  values(): V[] {
    const live: number[] = [];
    for (let i = 0; i < this.vals.length; i++) if (this.vals[i] !== undefined) live.push(i);
    live.sort((a, b) => (this.order[a] as number) - (this.order[b] as number));
    return live.map((i) => this.vals[i] as V);
  }

  /** Entry index of the key, or -1. */
  private find(key: number): number {
    let at = hash(key) & this.mask;
    for (;;) {
      if (this.vals[at] === undefined) return -1;
      if (this.keys[at] === key) return at;
      at = (at + 1) & this.mask;
    }
  }

  private place(key: number, value: V, stamp: number): void {
    let at = hash(key) & this.mask;
    while (this.vals[at] !== undefined) at = (at + 1) & this.mask;
    this.keys[at] = key;
    this.vals[at] = value;
    this.order[at] = stamp;
  }

  /** Empties an entry and shifts back the entries after it that probed past it. */
  private unlink(at: number): void {
    const mask = this.mask;
    let hole = at;
    let j = at;
    this.vals[hole] = undefined;
    for (;;) {
      j = (j + 1) & mask;
      const v = this.vals[j];
      if (v === undefined) return;
      const home = hash(this.keys[j] as number) & mask;
      // Move the entry into the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        this.keys[hole] = this.keys[j] as number;
        this.vals[hole] = v;
        this.order[hole] = this.order[j] as number;
        this.vals[j] = undefined;
        hole = j;
      }
    }
  }

  private grow(): void {
    const { keys, vals, order } = this;
    const n = vals.length * 2;
    this.keys = new Float64Array(n);
    this.vals = new Array<V | undefined>(n).fill(undefined);
    this.order = new Float64Array(n);
    this.mask = n - 1;
    for (let i = 0; i < vals.length; i++) {
      const v = vals[i];
      if (v !== undefined) this.place(keys[i] as number, v, order[i] as number);
    }
  }
}
