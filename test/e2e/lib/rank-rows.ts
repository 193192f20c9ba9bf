/** Fails unless the Problems rows are one per rank, for exactly the given ranks. A row belongs to
 * the first rank its message names ("rank 2: MPI_Recv … waits for rank 1"), since the message may
 * go on to name the other ranks of the finding. */
export function expectOneRowPerRank(rows: readonly string[], ranks: readonly number[]): void {
  const owners = rows
    .map((r) => /\brank (\d+)\b/i.exec(r)?.[1])
    .map((r) => (r === undefined ? NaN : Number(r)));
  const got = [...owners].sort((a, b) => a - b);
  const want = [...ranks].sort((a, b) => a - b);
  if (got.length !== want.length || got.some((r, i) => r !== want[i])) {
    throw new Error(
      `expected one Problems row for each of ranks ${want.join(',')}, got ${JSON.stringify(rows)}`,
    );
  }
}
