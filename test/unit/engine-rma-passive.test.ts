/**
 * Passive-target races decided as the run goes (rma-passive.ts): what is dropped early, or kept as two per class,
 * must not change a verdict. Each test makes an origin's accesses many more than the engine's bound (set low), so
 * that they are retired or folded before the access they are judged against arrives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineFinding } from '../../server/src/engine/model/types';
import type { Job, Rank } from './engine-dsl';
import { EXCLUSIVE, SHARED, SUM, type Rma, endRmaJob, rmaJob } from './rma-dsl';

/** Accesses the engine may hold at once in these tests (the loops below make ten times as many). */
const BOUND = 100;
const LOOP = 1000;

/** Findings and skipped checks of the job, in several interleavings of the ranks' streams (all must agree). */
function run(job: Job, bound = BOUND): { findings: EngineFinding[]; skipped: string[] } {
  let first: { findings: EngineFinding[]; skipped: string[] } | undefined;
  for (let seed = 0; seed <= 4; seed++) {
    const engine = createEngine({ ranks: job.size, rmaAccesses: bound });
    for (const e of job.interleave(seed)) engine.push(e);
    const findings = [...engine.takeFindings(), ...engine.finish()].filter((f) => f.kind === 'rma-race');
    const skipped = engine.skippedChecks().flatMap((s) => s.checks);
    if (first === undefined) first = { findings, skipped };
    else
      assert.deepEqual(
        findings.map((f) => f.message),
        first.findings.map((f) => f.message),
        `interleaving ${seed} differs`,
      );
  }
  return first as { findings: EngineFinding[]; skipped: string[] };
}

/**
 * Calls that change nothing (MPI_Comm_rank), so that the rank's next call reaches the analyzer long after the other
 * ranks' loops in every interleaving (the ranks' streams are interleaved a record at a time).
 */
function pad(r: Rank | undefined, calls = 4 * LOOP): void {
  for (let i = 0; i < calls; i++)
    r?.call('MPI_Comm_rank', { comm: r.handle('world'), rank: 0 }, {}, [], { rank: r.rank });
}

/** A lock/put/unlock loop of `x` into rank `t`, at displacements i mod `places`. */
function loop(
  x: Rma | undefined,
  t: number,
  n: number,
  o: { places?: number; from?: number; type?: number } = {},
): void {
  for (let i = 0; i < n; i++)
    x?.lock(o.type ?? SHARED, t)
      .put(t, { disp: (o.from ?? 0) + (i % (o.places ?? 10)), site: 0x601 })
      .unlock(t);
}

test('a lock loop ten times the bound is checked in full: the race with an access seen much later is found', () => {
  const { job, w } = rmaJob(3);
  loop(w[1], 0, LOOP);
  // Rank 2 never heard of rank 1's puts: its get, long after them, races with them.
  pad(job.ranks[2]);
  w[2]?.lock(SHARED, 0).get(0, { disp: 7, site: 0x602 }).unlock(0);
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[1, 2]],
  );
  assert.match(findings[0]?.message ?? '', /displacement 7/);
});

test('an access made once, long before a loop of others, still races with a rank that never heard of it', () => {
  const { job, w } = rmaJob(3);
  w[1]?.lock(SHARED, 0).put(0, { disp: 50, site: 0x603 }).unlock(0);
  loop(w[1], 0, LOOP);
  pad(job.ranks[2]);
  w[2]?.lock(SHARED, 0).put(0, { disp: 50, site: 0x602 }).unlock(0);
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => `${l.rank}:${l.site}`)),
    [['1:1539', '2:1538']],
  );
});

test('exclusive locks of one target serialize a loop and a later access: no race, nothing named', () => {
  const { job, w } = rmaJob(3);
  loop(w[1], 0, LOOP, { type: EXCLUSIVE });
  pad(job.ranks[2]);
  w[2]?.lock(EXCLUSIVE, 0).put(0, { disp: 3, site: 0x602 }).unlock(0);
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(findings, []);
});

test('a rank that heard of a loop through a message chain is ordered after it: no race', () => {
  const { job, w } = rmaJob(3);
  loop(w[1], 0, LOOP);
  // 1 → 2 → 0: rank 0 hears of every put before the send.
  job.ranks[1]?.send(2);
  job.ranks[2]?.recv(1).send(0);
  pad(job.ranks[0]);
  job.ranks[0]?.recv(2);
  w[0]?.lock(SHARED, 0).put(0, { disp: 4, site: 0x602 }).unlock(0);
  endRmaJob(job, w);
  assert.deepEqual(run(job), { findings: [], skipped: [] });
});

test('the same loop with puts after the chain too: those race with the later access, the earlier ones do not', () => {
  const { job, w } = rmaJob(3);
  loop(w[1], 0, LOOP);
  job.ranks[1]?.send(2);
  job.ranks[2]?.recv(1).send(0);
  job.ranks[0]?.recv(2);
  // After its send, rank 1 puts into displacement 4 again (the same class as the loop's): rank 0 never hears.
  loop(w[1], 0, 5);
  pad(job.ranks[0]);
  w[0]?.lock(SHARED, 0).put(0, { disp: 4, site: 0x602 }).unlock(0);
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[0, 1]],
  );
});

test('an access completed and sent before a loop of the receiver is ordered before every access of the loop', () => {
  const { job, w } = rmaJob(2);
  w[0]?.lock(SHARED, 1).put(1, { disp: 2, site: 0x602 }).unlock(1);
  job.ranks[0]?.send(1);
  job.ranks[1]?.recv(0);
  loop(w[1], 1, LOOP);
  endRmaJob(job, w);
  assert.deepEqual(run(job), { findings: [], skipped: [] });
});

test('a lock_all epoch whose puts are flushed before a barrier, in a loop: ordered with the other ranks, all checked', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) x.lockAll();
  for (let i = 0; i < LOOP / 10; i++) {
    for (const x of w) x.put((x.r.rank + 1) % 3, { disp: i % 4, site: 0x604 }).flush((x.r.rank + 1) % 3);
    for (const r of job.ranks) r.barrier();
    for (const x of w) x.get((x.r.rank + 2) % 3, { disp: i % 4, site: 0x605 }).flush((x.r.rank + 2) % 3);
    for (const r of job.ranks) r.barrier();
  }
  for (const x of w) x.unlockAll();
  endRmaJob(job, w);
  assert.deepEqual(run(job), { findings: [], skipped: [] });
});

test('accumulates of one lock_all epoch, many before one flush: the bound is not reached, the same-origin race is found', () => {
  const { job, w } = rmaJob(2);
  w[1]?.lockAll();
  for (let i = 0; i < LOOP; i++) w[1]?.accumulate(0, SUM, { disp: i % 10, site: 0x601 });
  w[1]?.get(0, { disp: 3, site: 0x602 }).flush(0).unlockAll();
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[1, 1]],
  );
});

test('an access ordered between the members of a loop (after some, before others) races with those in between', () => {
  const { job, w } = rmaJob(2);
  // Rank 1's loop into displacements 0-9: A (rank 0 hears of it), B (concurrent with rank 0's put), then into 5-9
  // only (folding B's accesses into their classes), then C into 0-9 (after rank 0's put, its clocks known only
  // once rank 0's send arrived: they settle with rank 0's put pending).
  loop(w[1], 0, 200);
  job.ranks[1]?.send(0);
  loop(w[1], 0, LOOP);
  loop(w[1], 0, LOOP, { from: 5, places: 5 });
  job.ranks[1]?.recv(0);
  loop(w[1], 0, 150);
  pad(job.ranks[0], 8 * LOOP);
  job.ranks[0]?.recv(1);
  w[0]?.lock(SHARED, 0).put(0, { disp: 4, site: 0x602 }).unlock(0);
  job.ranks[0]?.send(1);
  endRmaJob(job, w);
  const { findings, skipped } = run(job, 400);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[0, 1]],
  );
});

/** `epochs` exposure epochs of target 0 to origins 1 and 2, each origin putting into its own half of the window. */
function pscwLoop(w: Rma[], epochs: number, race?: number): void {
  for (let i = 0; i < epochs; i++) {
    w[0]?.postTo([1, 2]);
    for (const o of [1, 2])
      w[o]
        ?.startTo([0])
        .put(0, { disp: i === race ? 5 : o * 10 + (i % 5), site: 0x610 + o })
        .complete();
    w[0]?.wait();
  }
}

test('PSCW: a thousand exposure epochs of two origins, one with a race late in the run: checked in full', () => {
  const { job, w } = rmaJob(3);
  pscwLoop(w, LOOP, LOOP - 3);
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[1, 2]],
  );
  assert.match(findings[0]?.message ?? '', /displacement 5/);
});

test('PSCW: an origin whose access epoch reaches the analyzer long after the target moved on is matched to its post', () => {
  const { job, w } = rmaJob(3);
  // Rank 2's start/put/complete of the first epoch arrive after everything else: the first exposure epoch stays open.
  w[0]?.postTo([1, 2]);
  w[1]?.startTo([0]).put(0, { disp: 5, site: 0x611 }).complete();
  pad(job.ranks[2]);
  w[2]?.startTo([0]).put(0, { disp: 5, site: 0x612 }).complete();
  w[0]?.wait();
  // Later epochs name rank 1 only: rank 2's put is in the first epoch, with rank 1's first put.
  for (let i = 0; i < LOOP; i++) {
    w[0]?.postTo([1]);
    w[1]?.startTo([0]).put(0, { disp: 5, site: 0x613 }).complete();
    w[0]?.wait();
  }
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => `${l.rank}:${l.site}`)),
    [['1:1553', '2:1554']],
  );
});

test('PSCW: successive exposure epochs into one place are not judged as one', () => {
  const { job, w } = rmaJob(3);
  for (let i = 0; i < LOOP; i++) {
    w[0]?.postTo([1, 2]);
    w[1 + (i % 2)]?.startTo([0]).put(0, { disp: 5, site: 0x611 }).complete();
    w[2 - (i % 2)]?.startTo([0]).complete();
    w[0]?.wait();
  }
  endRmaJob(job, w);
  assert.deepEqual(run(job), { findings: [], skipped: [] });
});

test('one lock_all epoch for the whole run, put and flush in a loop: checked in full, the late race found', () => {
  const { job, w } = rmaJob(3);
  w[1]?.lockAll();
  for (let i = 0; i < LOOP; i++) w[1]?.put(0, { disp: i % 10, site: 0x601 }).flush(0);
  pad(job.ranks[2]);
  w[2]?.lock(SHARED, 0).get(0, { disp: 7, site: 0x602 }).unlock(0);
  w[1]?.unlockAll();
  endRmaJob(job, w);
  const { findings, skipped } = run(job);
  assert.deepEqual(skipped, []);
  assert.deepEqual(
    findings.map((f) => f.locations.map((l) => l.rank)),
    [[1, 2]],
  );
});
