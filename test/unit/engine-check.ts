/** The one helper engine tests go through: feed a job, compare its findings with what is expected. */
import assert from 'node:assert/strict';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineFinding, FindingKind } from '../../server/src/engine/model/types';
import type { RankEvent } from '../../server/src/engine/model/types';
import { checks, KIND } from '../../server/src/protocol/spec';
import { encodeCall, encodeEvent } from '../../server/src/protocol/testing/encode';
import type { Job } from './engine-dsl';

export interface Expected {
  readonly kind: FindingKind;
  /** Ranks of the locations, in order. */
  readonly ranks: readonly number[];
  /** Substrings that must appear in the message. */
  readonly message?: readonly string[];
  /** Substrings that must appear in the location details, one per location in order ('' to skip). */
  readonly details?: readonly string[];
}

/** Everything the engine finds for the job fed in one interleaving: live findings, the deadlock, end-of-run. */
export function findingsOf(job: Job, seed: number): EngineFinding[] {
  const engine = createEngine({ ranks: job.size });
  for (const e of job.interleave(seed)) engine.push(e);
  const live = engine.takeFindings();
  const deadlock = engine.findDeadlock();
  // The session calls finish() once the job is over: every rank ended, or it ended a deadlocked job.
  const over =
    deadlock !== undefined ||
    engine.rankStates().every((r) => r.state === 'finalized' || r.state === 'ended');
  return [...live, ...(deadlock ? [deadlock] : []), ...(over ? engine.finish() : [])];
}

/**
 * The same job as the shim would send it: every event encoded to records and fed as raw frames through
 * pushRecords (the path of the session and the shards), instead of push(event). Events the wire cannot carry
 * (the session's own END for a closed connection) still go through push().
 */
export function findingsFromFrames(job: Job, seed: number): EngineFinding[] {
  const engine = createEngine({ ranks: job.size });
  for (const e of job.interleave(seed)) {
    const frame = encoded(e);
    if (frame === undefined) engine.push(e);
    else engine.pushRecords(e.rank, frame);
  }
  const live = engine.takeFindings();
  const deadlock = engine.findDeadlock();
  const over =
    deadlock !== undefined ||
    engine.rankStates().every((r) => r.state === 'finalized' || r.state === 'ended');
  return [...live, ...(deadlock ? [deadlock] : []), ...(over ? engine.finish() : [])];
}

/** One event as the shim's records (undefined: the session's own END of a closed connection). */
export function encoded(e: RankEvent): Uint8Array | undefined {
  if (e.type === 'end' && e.how === 'disconnected') return undefined;
  if (e.type !== 'shim-finding') return encodeEvent(e);
  const check = checks.findIndex((c) => c.id === e.check);
  return encodeCall({ kind: KIND.FINDING, func: e.fn.id, seq: e.seq, time: e.time, site: e.site }, [
    check,
    e.param,
    ...e.values,
  ]);
}

function show(fs: readonly EngineFinding[]): string {
  return fs
    .map(
      (f) =>
        `${f.kind} [${f.locations.map((l) => l.rank).join(',')}]: ${f.message}\n    ${f.locations.map((l) => `${l.rank}: ${l.detail}`).join('\n    ')}`,
    )
    .join('\n');
}

const byKind = (
  a: { kind: string; ranks: readonly number[] },
  b: { kind: string; ranks: readonly number[] },
) => a.kind.localeCompare(b.kind) || a.ranks.join().localeCompare(b.ranks.join());

export function check(job: Job, expected: readonly Expected[]): EngineFinding[] {
  const got = findingsOf(job, 0);
  const summary = got.map((f) => ({ kind: f.kind, ranks: f.locations.map((l) => l.rank) })).sort(byKind);
  const want = expected.map((e) => ({ kind: e.kind, ranks: [...e.ranks] })).sort(byKind);
  assert.deepEqual(summary, want, `findings:\n${show(got)}`);
  for (const e of expected) {
    const f = got.find(
      (x) => x.kind === e.kind && x.locations.map((l) => l.rank).join() === e.ranks.join(),
    ) as EngineFinding;
    for (const m of e.message ?? []) assert.ok(f.message.includes(m), `message lacks "${m}":\n${show([f])}`);
    (e.details ?? []).forEach((d, i) => {
      assert.ok(f.locations[i]?.detail.includes(d), `location ${i} lacks "${d}":\n${show([f])}`);
    });
  }
  // Ranks' streams arrive interleaved arbitrarily: every interleaving must give the same findings.
  const norm = (fs: EngineFinding[]) =>
    JSON.stringify(
      [...fs].sort((a, b) =>
        byKind(
          { kind: a.kind, ranks: a.locations.map((l) => l.rank) },
          { kind: b.kind, ranks: b.locations.map((l) => l.rank) },
        ),
      ),
    );
  for (let seed = 1; seed <= 8; seed++)
    assert.equal(norm(findingsOf(job, seed)), norm(got), `interleaving ${seed} differs`);
  // Raw records through the decoder and the columns find the same.
  assert.equal(
    norm(findingsFromFrames(job, 0)),
    norm(got),
    'fed as raw frames (pushRecords), findings differ',
  );
  return got;
}
