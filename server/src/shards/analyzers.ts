/**
 * How many shard threads the analysis gets: `--analyzers K|auto` (CLI), `"analyzers"` (launch configuration).
 * One means no thread at all (the lone engine on the session's thread); `auto` follows the cores this process
 * may use.
 *
 * The default is one, not the cores: every shard still decodes every record and rebuilds the whole model
 * (ARCHITECTURE.md, "Shards"), so on bench/shard-sim (1,024 ranks) two shards cost 2.8 times the CPU of one
 * engine and four 4.8 times, for the same findings. The default follows the cores once shards take only the
 * records of what they own.
 */
import { availableParallelism } from 'node:os';

/** Beyond this, threads only add copies of the model (each shard keeps one) for no more parallelism. */
export const MAX_ANALYZERS = 64;

export const DEFAULT_ANALYZERS = 1;

/** `auto`: one shard per core this process may use. */
export function coreAnalyzers(): number {
  return Math.min(MAX_ANALYZERS, Math.max(1, availableParallelism()));
}

/** Why `k` is not a number of analyzers, or undefined when it is one. `given`: how the user wrote it. */
export function analyzersProblem(k: unknown, given = String(k)): string | undefined {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= MAX_ANALYZERS) return undefined;
  return `must be a whole number of analyzer shards from 1 to ${MAX_ANALYZERS}, or auto for one per core (got ${given}); 1 analyzes on one thread`;
}

/** `--analyzers TEXT` as a number, or NaN when it is none (analyzersProblem says why). */
export function parseAnalyzers(text: string): number {
  if (text === 'auto') return coreAnalyzers();
  return /^\d+$/.test(text) ? Number(text) : Number.NaN;
}
