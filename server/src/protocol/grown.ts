/** The typed-array columns that grow by copying into a larger array of their own kind. */
export type GrowableColumn = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/** A copy of `a` in a new array of the same kind and `n` elements (n ≥ a.length); the rest is zeros. */
export function grown<T extends GrowableColumn>(a: T, n: number): T {
  const b = new (a.constructor as new (length: number) => T)(n);
  b.set(a);
  return b;
}
