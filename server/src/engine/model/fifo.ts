/** A queue with O(1) push and shift that reuses its array (Array#shift is O(n)). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head++;
    if (this.head > 32 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes the first item for which pred holds (cancel); O(n), off the hot path. */
  remove(pred: (item: T) => boolean): boolean {
    for (let i = this.head; i < this.items.length; i++) {
      if (pred(this.items[i] as T)) {
        this.items.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }
}
