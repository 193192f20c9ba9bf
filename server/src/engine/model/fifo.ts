/**
 * A queue with O(1) push and shift (Array#shift is O(n)): a ring of slots that doubles when full. A queue that
 * empties and fills again (a channel's messages, taken soon after they are sent) reuses its slots: nothing is
 * allocated per item once it has grown to what is pending at once.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [undefined, undefined, undefined, undefined];
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count++;
  }

  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined; // not kept alive by the queue
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return item;
  }

  /** Removes the first item for which pred holds (cancel); O(n), off the hot path. */
  remove(pred: (item: T) => boolean): boolean {
    const mask = this.items.length - 1;
    for (let i = 0; i < this.count; i++) {
      if (!pred(this.items[(this.head + i) & mask] as T)) continue;
      for (let j = i; j + 1 < this.count; j++)
        this.items[(this.head + j) & mask] = this.items[(this.head + j + 1) & mask];
      this.items[(this.head + this.count - 1) & mask] = undefined;
      this.count--;
      return true;
    }
    return false;
  }

  *[Symbol.iterator](): Iterator<T> {
    const mask = this.items.length - 1;
    for (let i = 0; i < this.count; i++) yield this.items[(this.head + i) & mask] as T;
  }

  /** Twice the slots (a power of two), the items moved to the front in order. */
  private grow(): void {
    const n = this.items.length;
    const items = new Array<T | undefined>(n * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) items[i] = this.items[(this.head + i) & (n - 1)];
    this.items = items;
    this.head = 0;
  }
}
