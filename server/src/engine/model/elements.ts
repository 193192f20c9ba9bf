/**
 * Empty arrays born in the elements kind they keep for the engine's lifetime (V8 stores an array's elements as
 * small integers, doubles or tagged values, and moves an array to a more general kind, never back, when a value
 * that does not fit arrives). A literal `[]` starts as small integers; a property of an engine instance that
 * holds objects moves on its first push, and the JIT's feedback for the code that reads it keeps only the general
 * kind (an inline cache replaces a map by its generalization). Code compiled while the first engine of a process
 * ran then met the next engine's fresh `[]` with the wrong map and was thrown away and compiled again (`--trace-deopt`:
 * `wrong map`, `not a Smi`): a second engine — the one a warm-up leaves the JIT's work to — recompiled ~46
 * functions. Arrays made here start where they end.
 */

/** An empty array of objects (and undefined): V8's generic kind (PACKED_ELEMENTS), as a push of an object leaves it. */
export function objectArray<T>(): T[] {
  const a = [undefined] as unknown as T[];
  a.pop();
  return a;
}

/**
 * An empty array of numbers that may be doubles (PACKED_DOUBLE_ELEMENTS): MPI handles (Open MPI's are pointers,
 * MPICH's above 2^30, NaN for none) are not small integers, and a small-integer array moves on the first one.
 */
export function doubleArray(): number[] {
  const a = [0.5];
  a.pop();
  return a;
}
