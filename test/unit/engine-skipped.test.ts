// No check silently off: when a check cannot run (records lost, a memory bound reached, threads in MPI at
// once), the engine names it (skippedChecks), and the human and JSON reports say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineFinding, RankEvent, SkippedCheck } from '../../server/src/engine/model/types';
import { humanReport } from '../../server/src/report/human-report';
import { jsonReport } from '../../server/src/report/json-report';
import { functionNamed } from '../../server/src/protocol/spec';
import { INT, Job } from './engine-dsl';
import { SUM, windows } from './rma-dsl';

/** Two blocking sends that complete only because MPI buffers them: a potential deadlock. */
function sendSend(): Job {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { site: 0x17 }).recv(1);
  r1?.send(0, { site: 0x17 }).recv(0);
  for (const r of job.ranks) r.finalize();
  return job;
}

function run(job: Job, replaySteps?: number): { findings: EngineFinding[]; skipped: SkippedCheck[] } {
  const engine = createEngine({ ranks: job.size, ...(replaySteps !== undefined ? { replaySteps } : {}) });
  for (const e of job.interleave(0)) engine.push(e);
  const findings = [...engine.takeFindings(), ...engine.finish()];
  return { findings, skipped: engine.skippedChecks() };
}

test('every check ran: nothing is named as skipped', () => {
  const { findings, skipped } = run(sendSend());
  assert.deepEqual(
    findings.map((f) => f.kind),
    ['potential-deadlock'],
  );
  assert.deepEqual(skipped, []);
});

/** Rank 0 and 1 exchange `n` messages, each sending first (so every exchange relies on buffering). */
function exchanges(n: number): Job {
  const job = new Job(2);
  for (let i = 0; i < n; i++)
    for (const r of job.ranks) r.send(1 - r.rank, { site: 0x17 }).recv(1 - r.rank, { site: 0x18 });
  for (const r of job.ranks) r.finalize();
  return job;
}

/** Every event of rank 0, then every event of rank 1: rank 0's steps wait for rank 1's, which come last. */
function rankByRank(job: Job): RankEvent[] {
  return job.ranks.flatMap((r) => r.events);
}

function runEvents(job: Job, events: RankEvent[], replaySteps: number) {
  const engine = createEngine({ ranks: job.size, replaySteps });
  for (const e of events) engine.push(e);
  const findings = [...engine.takeFindings(), ...engine.finish()];
  return { findings, skipped: engine.skippedChecks() };
}

test('the replay holds what is pending, not the run: a long run within a small bound keeps every check', () => {
  // 2,000 exchanges are 16,000 steps; round robin, only a few wait at once. The zero-buffering replay is stuck
  // on the first exchange for good (both ranks in a send): its later steps are dropped, and the finding stays.
  const { findings, skipped } = run(exchanges(2000), 64);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.kind),
    ['potential-deadlock'],
  );
});

test('the replay bound reached (a rank far behind): the potential deadlock is not found, and the checks built on the replay are named', () => {
  const job = exchanges(200);
  const { findings, skipped } = runEvents(job, rankByRank(job), 64);
  assert.deepEqual(findings, []);
  assert.equal(skipped.length, 1);
  const [s] = skipped;
  assert.equal(s?.cause, 'bound');
  assert.ok(s?.checks.includes('potential-deadlock'));
  assert.ok(s?.checks.includes('message-race'));
  assert.match(s?.reason ?? '', /more than 64 blocking steps were waiting at once/);
  // The same streams with room for what waits: the finding, and nothing skipped.
  const roomy = runEvents(job, rankByRank(job), 4000);
  assert.deepEqual(roomy.skipped, []);
  assert.deepEqual(
    roomy.findings.map((f) => f.kind),
    ['potential-deadlock'],
  );
});

test('records lost: the checks that need every record are named', () => {
  const job = sendSend();
  const r1 = job.ranks[1];
  r1?.events.splice(-2, 0, { type: 'lost', rank: 1, seq: 0, time: 0, count: 2 });
  const { skipped } = run(job);
  const lost = skipped.find((s) => s.cause === 'lost-records');
  assert.ok(lost !== undefined, JSON.stringify(skipped));
  assert.ok(lost.checks.includes('unmatched-message'));
  assert.match(lost.reason, /^2 records were lost/);
});

test('the reports name a skipped check: a warning line in the human report, skippedChecks in the JSON', () => {
  const skippedChecks: SkippedCheck[] = [
    {
      cause: 'bound',
      checks: ['potential-deadlock', 'message-race'],
      reason: 'the run made too many steps.',
    },
  ];
  const input = {
    start: { program: '/w/app/ring', ranks: 2, mpi: 'openmpi', command: [], pid: 1 },
    result: { findings: [], ranks: 2, exitCode: 0, outcome: 'completed' as const, skippedChecks },
  };
  const text = humanReport(input, { cwd: '/w/app', color: false });
  assert.ok(
    text.includes('Not checked: potential-deadlock, message-race: the run made too many steps.'),
    text,
  );
  const json = JSON.parse(jsonReport(input)) as { skippedChecks: unknown };
  assert.deepEqual(json.skippedChecks, skippedChecks);
  // Without any, the JSON says so (an empty list), and the human report has no such line.
  const none = { ...input, result: { ...input.result, skippedChecks: undefined } };
  assert.deepEqual((JSON.parse(jsonReport(none)) as { skippedChecks: unknown }).skippedChecks, []);
  assert.ok(!humanReport(none, { cwd: '/w/app', color: false }).includes('Not checked'));
});

test("the shim's heap walks turned off on a rank: no finding, and the report names the slices no longer judged", () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  const fn = functionNamed('MPI_Send');
  const seq = r1?.call(
    'MPI_Send',
    { buf: 0x5000, count: 1, datatype: INT, dest: 0, tag: 0, comm: r1?.handle('world') ?? 0 },
    { hang: true },
  );
  r1?.events.push(
    {
      type: 'shim-finding',
      rank: 1,
      seq: seq ?? 0,
      time: 1e6,
      fn,
      site: 0,
      check: 'heap-slices-unchecked',
      message: 'spec text',
      param: -1,
      values: [2_200_000, 300],
    },
    { type: 'exit', rank: 1, seq: seq ?? 0, time: 1e6 + 1, fn, returnCode: 0, outputs: {} },
  );
  r0?.recv(1);
  r0?.finalize();
  r1?.finalize();
  const { findings, skipped } = run(job);
  assert.deepEqual(findings, []);
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0]?.cause, 'bound');
  assert.match(skipped[0]?.checks[0] ?? '', /heap-buffer-too-small/);
  assert.match(skipped[0]?.reason ?? '', /^on rank 1 finding the heap block/);
});

test('a fence epoch with more one-sided accesses than the analyzer keeps: rma-race is named as partial', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  for (const x of w) x.fence();
  // Accumulates of one op never race: the only thing to see is the bound (made 100 accesses an epoch here).
  const [, x1] = w;
  for (let i = 0; i <= 100; i++) x1?.accumulate(0, SUM, { disp: i % 50 });
  for (const x of w) x.fence();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  const engine = createEngine({ ranks: job.size, rmaAccesses: 100 });
  for (const e of job.interleave(0)) engine.push(e);
  assert.deepEqual([...engine.takeFindings(), ...engine.finish()], []);
  const skipped = engine.skippedChecks();
  assert.deepEqual(
    skipped.map((s) => s.checks),
    [['rma-race (accesses or pairs past the bound)']],
  );
  assert.match(skipped[0]?.reason ?? '', /more than 100 one-sided accesses/);
});

test('an all-to-all of more members than the pair check compares: the report names the pairs as not compared', () => {
  const n = 257;
  const job = new Job(n);
  for (const r of job.ranks) {
    const counts = job.ranks.map(() => 1);
    r.call('MPI_Alltoallv', {
      sendbuf: 0x100,
      sendcounts: counts,
      sdispls: counts.map(() => 0),
      sendtype: INT,
      recvbuf: 0x200,
      recvcounts: counts,
      rdispls: counts.map(() => 0),
      recvtype: INT,
      comm: r.handle('world'),
    });
  }
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job);
  assert.deepEqual(findings, []);
  assert.deepEqual(
    skipped.map((s) => s.checks),
    [['count-mismatch and type-mismatch (pairs of allgather(v) and alltoall(v/w))']],
  );
});
