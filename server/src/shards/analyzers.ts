/**
 * How many shard threads the analysis gets: `--analyzers K|auto` (CLI), `"analyzers"` (launch configuration).
 * One means no thread at all (the lone engine on the session's thread); `auto` follows the cores this process
 * may use.
 *
 * The default is one, not the cores: each shard takes only the calls of what it owns (router.ts), but shard 0,
 * the global shard, is still sent every call for the global questions (potential deadlocks, races, bsend space),
 * so on bench/shard-sim (1,024 ranks, 2 cores) two or four shards cost 2.5 to 3.4 times the CPU per record of
 * one engine. The default follows the cores once the global shard is sent only blocked ranks and replay steps
 * (ARCHITECTURE.md, "Towards a small coordinator").
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
