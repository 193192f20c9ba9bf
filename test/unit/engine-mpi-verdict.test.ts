/**
 * MPI's own verdict on a call (lifecycle/mpi-verdict.ts): an error MPI raised under MPI_ERRORS_ARE_FATAL, or a
 * crash inside the call, is a finding at that call; not when the shim's own check explained the call first, and
 * (the session's part, Analysis.verdicts) not where another finding names the same call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import api from '../../native-shim/spec/mpi-api.json';
import type { RankEvent } from '../../server/src/engine/model/types';
import { functionNamed } from '../../server/src/protocol/spec';
import { Analysis } from '../../server/src/session/analysis';
import { parseRankText } from '../../server/src/session/held-ack';
import { describeEnding } from '../../server/src/session/rank-endings';
import { check, encoded, findingsOf } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

const classId = (name: string): number => api.errorClasses.findIndex((c) => c.class === name);

/** Rank 0 calls `name` (entered, not exited), then the shim's FINDING `check` with `values`; returns its seq. */
function verdictAt(
  r: Rank,
  name: string,
  args: Record<string, number>,
  check: string,
  values: number[],
  site: number,
): number {
  const fn = functionNamed(name);
  const seq = r.call(name, args, { hang: true, site });
  r.events.push({
    type: 'shim-finding',
    rank: r.rank,
    seq,
    time: 1e6 + seq,
    fn,
    site,
    check,
    message: '',
    param: -1,
    values,
  });
  return seq;
}

function failedExit(r: Rank, name: string, seq: number, code: number): void {
  r.events.push({
    type: 'exit',
    rank: r.rank,
    seq,
    time: 2e6 + seq,
    fn: functionNamed(name),
    returnCode: code,
    outputs: { flag: 0 },
  });
}

test("MPI's fatal error is a finding at the failing call, named by its class", () => {
  const job = new Job(1);
  const [r0] = job.ranks as [Rank];
  const seq = verdictAt(
    r0,
    'MPI_Type_contiguous',
    { count: 4, oldtype: INT, newtype: 0 },
    'mpi-error',
    [13, classId('MPI_ERR_ARG')],
    0x4242,
  );
  failedExit(r0, 'MPI_Type_contiguous', seq, 13);
  r0.end('abort', 13);
  const [f] = check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0],
      message: [
        "MPI failed rank 0's MPI_Type_contiguous with MPI_ERR_ARG (invalid argument of some other kind)",
        'MPI_ERRORS_ARE_FATAL',
      ],
      details: ['MPI_Type_contiguous: MPI raised MPI_ERR_ARG'],
    },
  ]);
  assert.equal(f?.mpiVerdict, true);
  assert.equal(f?.locations[0]?.site, 0x4242);
});

test('the error class decides the kind: MPI_ERR_TRUNCATE is a count-mismatch, an unknown class says the code', () => {
  for (const [values, kind, says] of [
    [[15, classId('MPI_ERR_TRUNCATE')], 'count-mismatch', 'MPI_ERR_TRUNCATE (message truncated on receive)'],
    [[77, -1], 'invalid-argument', 'with error code 77'],
  ] as const) {
    const job = new Job(1);
    const [r0] = job.ranks as [Rank];
    const seq = verdictAt(r0, 'MPI_Barrier', { comm: r0.handle('world') }, 'mpi-error', [...values], 0x51);
    failedExit(r0, 'MPI_Barrier', seq, values[0]);
    r0.end('abort', values[0]);
    check(job, [{ kind, ranks: [0], message: [says] }]);
  }
});

test("no verdict where the shim's own check refused the call first", () => {
  const job = new Job(1);
  const [r0] = job.ranks as [Rank];
  const fn = functionNamed('MPI_Type_vector');
  const seq = r0.call(
    'MPI_Type_vector',
    { count: 4, blocklength: -1, stride: 4, oldtype: INT, newtype: 0 },
    { hang: true, site: 0x77 },
  );
  r0.events.push({
    type: 'shim-finding',
    rank: 0,
    seq,
    time: 1e6,
    fn,
    site: 0x77,
    check: 'negative-count',
    message: 'count is negative',
    param: 1,
    values: [-1, 0],
  });
  r0.events.push({
    type: 'shim-finding',
    rank: 0,
    seq,
    time: 1e6 + 1,
    fn,
    site: 0x77,
    check: 'mpi-error',
    message: '',
    param: -1,
    values: [13, classId('MPI_ERR_ARG')],
  });
  failedExit(r0, 'MPI_Type_vector', seq, 13);
  r0.end('abort', 13);
  check(job, [{ kind: 'invalid-argument', ranks: [0], message: ['count is negative (blocklength = -1)'] }]);
});

test('a crash inside a call is a finding at it, with the signal and the address', () => {
  const job = new Job(1);
  const [r0] = job.ranks as [Rank];
  verdictAt(r0, 'MPI_Barrier', { comm: r0.handle('world') }, 'crash-in-call', [11, 0x40], 0x99);
  r0.end('signal', 11);
  check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0],
      message: ['Rank 0 died of SIGSEGV at address 0x40 inside MPI_Barrier'],
      details: ['MPI_Barrier: the rank died of SIGSEGV inside the call'],
    },
  ]);
});

test('the same verdict on the same call of two ranks is one finding with both ranks', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    const seq = verdictAt(
      r,
      'MPI_Cart_rank',
      { comm: r.handle('world'), coords: 0, rank: 0 },
      'mpi-error',
      [13, classId('MPI_ERR_ARG')],
      0x300 + r.rank,
    );
    failedExit(r, 'MPI_Cart_rank', seq, 13);
    r.end('abort', 13);
  }
  const found = findingsOf(job, 1);
  assert.equal(found.length, 1, found.map((f) => f.message).join('\n'));
  assert.deepEqual(
    found[0]?.locations.map((l) => l.rank),
    [0, 1],
  );
});

/** The session's share: verdicts wait for the end of the run and yield to a finding of ours at the same call. */
function analysed(...ranks: (readonly RankEvent[])[]): { live: string[]; verdicts: string[] } {
  const analysis = new Analysis(ranks.length, '/nonexistent');
  const live: string[] = [];
  for (const [rank, events] of ranks.entries()) {
    analysis.open(rank);
    for (const e of events) {
      const frame = encoded(e);
      if (frame === undefined) continue;
      analysis.frame(rank, frame);
      live.push(...analysis.takeFindings().map((x) => x.kind));
    }
  }
  analysis.engine.settle();
  live.push(...analysis.takeFindings().map((x) => x.kind));
  analysis.closeAll();
  live.push(...analysis.observedFindings(analysis.engine.finish()).map((x) => x.kind));
  const verdicts = analysis.verdicts();
  for (const v of verdicts) assert.equal(v.mpiVerdict, undefined);
  return { live, verdicts: verdicts.map((x) => x.kind) };
}

test('the session holds a verdict to the end, and drops it where a finding of ours names the same call', () => {
  // Alone: held while the stream is read, handed out by verdicts().
  const alone = new Job(1);
  const [a] = alone.ranks as [Rank];
  const s1 = verdictAt(
    a,
    'MPI_Barrier',
    { comm: a.handle('world') },
    'mpi-error',
    [13, classId('MPI_ERR_ARG')],
    0x61,
  );
  failedExit(a, 'MPI_Barrier', s1, 13);
  a.end('abort', 13);
  assert.deepEqual(analysed(alone.ranks[0]?.events ?? []), { live: [], verdicts: ['invalid-argument'] });

  // MPI failed a Wait on a request the rank never had: the engine's invalid-argument names that Wait already.
  const named = new Job(1);
  const [b] = named.ranks as [Rank];
  const s2 = verdictAt(
    b,
    'MPI_Wait',
    { request: 0x7777, status: 0 },
    'mpi-error',
    [7, classId('MPI_ERR_REQUEST')],
    0x62,
  );
  failedExit(b, 'MPI_Wait', s2, 7);
  b.end('abort', 7);
  const r = analysed(named.ranks[0]?.events ?? []);
  assert.deepEqual(r.verdicts, []);
  assert.ok(r.live.includes('invalid-argument'), r.live.join(', '));
});

test('a rank that died inside a call ends "inside" it; the crash message says so with inCall', () => {
  const crash = parseRankText(
    '{"type":"crash","signal":11,"address":64,"frames":[],"modules":[],"inCall":true}',
  );
  assert.ok(typeof crash !== 'string' && crash.type === 'crash' && crash.crash.inCall === true);
  const plain = parseRankText('{"type":"crash","signal":11,"address":64,"frames":[],"modules":[]}');
  assert.ok(typeof plain !== 'string' && plain.type === 'crash' && plain.crash.inCall === undefined);
  assert.match(
    parseRankText('{"type":"crash","signal":11,"address":64,"frames":[],"modules":[],"inCall":1}') as string,
    /inCall/,
  );
  const ending = {
    rank: 0,
    how: 'signal' as const,
    code: 11,
    signal: 'SIGSEGV',
    lastCall: 'MPI_Pack',
    file: 'a.c',
    line: 3,
    function: 'main',
  };
  assert.equal(
    describeEnding({ ...ending, inCall: true }, 'a.c:3'),
    'rank 0 died of SIGSEGV at a.c:3, inside MPI_Pack',
  );
  assert.equal(describeEnding(ending, 'a.c:3'), 'rank 0 died of SIGSEGV at a.c:3, after MPI_Pack');
});

test('a consequence at the same call (the crashed send is never received) does not hide the verdict', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  verdictAt(
    r0,
    'MPI_Send',
    { buf: 0x9000, count: 4, datatype: INT, dest: 1, tag: 0, comm: r0.handle('world') },
    'crash-in-call',
    [11, 0],
    0x71,
  );
  r0.end('signal', 11);
  r1.recv(0, { hang: true });
  r1.end('signal', 15);
  const r = analysed(r0.events, r1.events);
  assert.ok(r.live.includes('unmatched-message'), r.live.join(', '));
  assert.deepEqual(r.verdicts, ['invalid-argument'], r.live.join(', '));
});

test('a crash inside MPI_Finalize is no verdict: the leak and epoch checks say what MPI tripped over', () => {
  const job = new Job(1);
  const [r0] = job.ranks as [Rank];
  verdictAt(r0, 'MPI_Finalize', {}, 'crash-in-call', [6, 0], 0x81);
  r0.end('signal', 6);
  check(job, []);
});
