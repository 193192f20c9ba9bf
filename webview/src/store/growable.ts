/** A Float64Array that doubles when full: lanes grow by batches without a JS object per span. */
export class Growable {
  private data: Float64Array;
  length = 0;

  constructor(initial = 256) {
    this.data = new Float64Array(initial);
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  /** The live values (a view: valid until the next push). */
  get values(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  at(i: number): number {
    return this.data[i] ?? 0;
  }

  /** Rewrites rows [from, from + order.length) with the rows at the absolute indices in order. */
  permuteFrom(from: number, order: ArrayLike<number>): void {
    const src = this.data.slice(from, this.length);
    const data = this.data;
    for (let k = 0; k < order.length; k++) data[from + k] = src[(order[k] as number) - from] ?? 0;
  }
}
