/**
 * Growable struct-of-arrays columns: one Float64Array per column, doubled when full, so a million rows
 * cost a few typed-array copies instead of a million small objects.
 */
export class ColumnStore<K extends string> {
  private cols: Record<K, Float64Array>;
  /** The same columns in the constructor's order: push indexes them instead of looking names up per row. */
  private ordered: Float64Array[];
  private capacity: number;
  length = 0;

  constructor(
    private readonly names: readonly K[],
    initial = 1024,
  ) {
    this.capacity = initial;
    this.cols = this.allocate(initial);
    this.ordered = names.map((k) => this.cols[k]);
  }

  private allocate(n: number): Record<K, Float64Array> {
    const out = {} as Record<K, Float64Array>;
    for (const k of this.names) out[k] = new Float64Array(n);
    return out;
  }

  /** Appends one row; values in the order of the constructor's names. */
  push(values: readonly number[]): void {
    if (this.length === this.capacity) this.grow();
    const i = this.length++;
    // A plain loop over the columns: this runs once per call of a traced job (a million times for a large
    // trace); the closure and name lookups it replaced were the timeline model's largest self time.
    const cols = this.ordered;
    for (let j = 0; j < cols.length; j++) (cols[j] as Float64Array)[i] = values[j] ?? 0;
  }

  column(name: K): Float64Array {
    return this.cols[name].subarray(0, this.length);
  }

  /** Rows [from, to) of every column as plain arrays (the JSON wire form). */
  slice(from: number, to: number): Record<K, number[]> {
    const out = {} as Record<K, number[]>;
    // A counted loop: Array.from over a subarray goes through the iterator, 9 % of a trace's open.
    for (const k of this.names) {
      const col = this.cols[k];
      const a: number[] = [];
      for (let i = from; i < to; i++) a.push(col[i] as number);
      out[k] = a;
    }
    return out;
  }

  private grow(): void {
    this.capacity *= 2;
    const next = this.allocate(this.capacity);
    for (const k of this.names) next[k].set(this.cols[k]);
    this.cols = next;
    this.ordered = this.names.map((k) => next[k]);
  }
}
