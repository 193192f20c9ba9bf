/**
 * How many shard threads the analysis gets: `--analyzers K` (CLI), `"analyzers"` (launch configuration), else
 * the cores this process may use. One means no thread at all (the lone engine on the session's thread).
 */
import { availableParallelism } from 'node:os';

/** Beyond this, threads only add copies of the model (each shard keeps one) for no more parallelism. */
export const MAX_ANALYZERS = 64;

export function defaultAnalyzers(): number {
  return Math.min(MAX_ANALYZERS, Math.max(1, availableParallelism()));
}

/** Why `k` is not a number of analyzers, or undefined when it is one. `given`: how the user wrote it. */
export function analyzersProblem(k: unknown, given = String(k)): string | undefined {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= MAX_ANALYZERS) return undefined;
  return `must be a whole number of analyzer shards from 1 to ${MAX_ANALYZERS} (got ${given}); 1 analyzes on one thread`;
}
