/**
 * Replaying a message race the other way: the race's id (from the finding or the JSON report), and what the
 * replay run did with the other message. The forcing itself is the shim's (native-shim/src/msc_replay.c); the
 * session passes it in the ranks' environment (SessionOptions.replayRace).
 */
import type { Finding, SessionResult } from './session-api';
import { UsageError } from './session-api';

export interface ReplayTarget {
  readonly rank: number;
  readonly wildcard: number;
  readonly sender: number;
}

/**
 * `RANK.WILDCARD.SENDER` as a race finding's `race.id` gives it; `sender` (--sender R) replaces the id's sender.
 * `RANK.WILDCARD` alone needs --sender.
 */
export function parseRaceId(id: string, sender?: string): ReplayTarget {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(id.trim());
  if (m === null)
    throw new UsageError(
      `--replay-race ${id}: give the race's id as its finding shows it (race.id in the JSON report, e.g. 0.1.2: rank 0's first wildcard receive, from rank 2)`,
    );
  const chosen = sender ?? m[3];
  if (chosen === undefined)
    throw new UsageError(
      `--replay-race ${id} names no sender: add --sender R, one of the ranks the finding says could have been received instead`,
    );
  if (!/^\d+$/.test(chosen))
    throw new UsageError(`--sender must be a world rank, a whole number (got ${chosen})`);
  const t = { rank: Number(m[1]), wildcard: Number(m[2]), sender: Number(chosen) };
  if (t.wildcard < 1)
    throw new UsageError(
      `--replay-race ${id}: wildcard receives are counted from 1 (the id's second number)`,
    );
  if (t.sender === t.rank)
    throw new UsageError(
      `--replay-race ${id}: the sender must be another rank than the receiving rank ${t.rank}`,
    );
  return t;
}

/** What the other message did, in the words of issue 11: a deadlock, a mismatch, a different exit, the same result. */
export type ReplayOutcomeKind = 'not-reached' | 'deadlock' | 'mismatch' | 'different-exit' | 'same-result';

export interface ReplayOutcome {
  readonly race: string;
  readonly rank: number;
  readonly wildcard: number;
  readonly sender: number;
  readonly outcome: ReplayOutcomeKind;
  /** One sentence for a person: what happened, with the evidence (finding, exit status). */
  readonly summary: string;
}

/** Kinds of finding that say the other message did not fit: the messages disagree with the receives. */
const MISMATCH: ReadonlySet<string> = new Set([
  'count-mismatch',
  'type-mismatch',
  'unmatched-message',
  'message-mismatch',
  'collective-mismatch',
]);

/**
 * Classifies the replay run. `baseline`: how the original run ended (its job exit status and its finding kinds),
 * when known (the editor keeps it); otherwise a clean original run (exit status 0) is assumed, which is what a
 * message race that only warns leaves.
 */
export function replayOutcome(
  t: ReplayTarget,
  result: SessionResult,
  baseline?: { readonly exitCode: number | null; readonly kinds: readonly string[] },
): ReplayOutcome {
  const race = `${t.rank}.${t.wildcard}.${t.sender}`;
  const base = { race, ...t };
  const forced = result.findings.some(
    (f) => f.race?.forced === true && f.race.rank === t.rank && f.race.wildcard === t.wildcard,
  );
  const who = `rank ${t.rank}'s wildcard receive number ${t.wildcard} forced to rank ${t.sender}`;
  if (!forced)
    return {
      ...base,
      outcome: 'not-reached',
      summary: `The replay did not reach ${who.replace(' forced to', ' (to force it to')}): the run took another path before it, or rank ${t.sender} is not in its communicator. Check the id against the finding of a run with the same arguments.`,
    };
  const line = (f: Finding): string => {
    const l = f.locations[0];
    return l !== undefined && l.file !== '' ? ` (${l.file}:${l.line}, rank ${l.rank})` : '';
  };
  const others = result.findings.filter((f) => f.race?.forced !== true);
  const deadlock = others.find((f) => f.kind === 'deadlock');
  if (deadlock !== undefined || result.outcome === 'deadlock')
    return {
      ...base,
      outcome: 'deadlock',
      summary: `With ${who}, the job deadlocks${deadlock !== undefined ? `: ${deadlock.message}${line(deadlock)}` : '.'}`,
    };
  const known = new Set(baseline?.kinds ?? []);
  const mismatch = others.find((f) => MISMATCH.has(f.kind) && !known.has(f.kind));
  if (mismatch !== undefined)
    return {
      ...base,
      outcome: 'mismatch',
      summary: `With ${who}, the messages no longer fit the receives: ${mismatch.message}${line(mismatch)}`,
    };
  const before = baseline?.exitCode ?? 0;
  const failed = (result.endings ?? []).filter((e) => e.how !== 'finalized');
  if (result.exitCode !== before || failed.length > 0)
    return {
      ...base,
      outcome: 'different-exit',
      summary: `With ${who}, the job exits differently: status ${result.exitCode ?? 'none (ended by mpiscope)'} instead of ${before}${failed.length > 0 ? `; ${failed.map((e) => `rank ${e.rank} ${e.how}${e.file !== '' ? ` at ${e.file}:${e.line}` : ''}`).join(', ')}` : ''}.`,
    };
  return {
    ...base,
    outcome: 'same-result',
    summary: `With ${who}, the job ends as before (exit status ${before}, no new deadlock or mismatch); compare its output with the original run's to see whether the order changes the results.`,
  };
}
