// Message races of a master that answers each wildcard receive while some rank never hears of them (races.ts,
// `summarize`): the receives between two points some rank can still learn of are heard of together, and only
// those that can still be the rank's first race are kept. Each test is a program whose race a wrong summary
// misses or misplaces; before the summary, each was past the 4,096 undecided receives a rank kept, and the check
// was named as skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineFinding, RankEvent } from '../../server/src/engine/model/types';
import { ANY, Job, type Rank } from './engine-dsl';

/**
 * The job's events pushed round robin, except that rank `late`'s events from its `from`-th call on (counting
 * its ENTERs, after MPI_Init) wait until every other rank's are in: a slow rank, whose knowledge of the others
 * stays where it was.
 */
function run(job: Job, late: number, from: number): { findings: EngineFinding[]; skipped: string[] } {
  const engine = createEngine({ ranks: job.size });
  const lateEvents = (job.ranks[late] as Rank).events;
  let enters = 0;
  let cut = lateEvents.length;
  lateEvents.forEach((e, i) => {
    if (e.type === 'enter' && enters++ === from + 1 && cut === lateEvents.length) cut = i;
  });
  const queues: RankEvent[][] = job.ranks.map((r) => (r.rank === late ? r.events.slice(0, cut) : r.events));
  const next = queues.map(() => 0);
  for (let more = true; more;) {
    more = false;
    queues.forEach((q, r) => {
      const k = next[r] as number;
      if (k < q.length) {
        engine.push(q[k] as RankEvent);
        next[r] = k + 1;
        more = true;
      }
    });
  }
  for (const e of lateEvents.slice(cut)) engine.push(e);
  const findings = [...engine.takeFindings(), ...engine.finish()].filter((f) => f.kind === 'message-race');
  return { findings, skipped: engine.skippedChecks().flatMap((s) => s.checks) };
}

/**
 * Rank 0 takes ranks 1 and 2's results with MPI_ANY_SOURCE (wildcard receives 1, 2, 3, ...: rank 1's odd, rank
 * 2's even) and answers each with an MPI_Send to its sender, `rounds` times; `after(k)` runs after the k-th.
 */
function master(job: Job, rounds: number, after: (k: number) => void = () => {}): void {
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  let k = 0;
  for (let i = 0; i < rounds; i++)
    for (const w of [r1, r2]) {
      r0.recv(ANY, { tag: 1, site: 0x30, got: [w.rank, 1] }).send(w.rank, { tag: 2, site: 0x31 });
      w.send(0, { tag: 1, site: 0x40 }).recv(0, { tag: 2, site: 0x41 });
      after(++k);
    }
}

const raceOf = (findings: EngineFinding[]) => {
  assert.equal(findings.length, 1, findings.map((f) => f.message).join('\n'));
  return findings[0] as EngineFinding;
};

test('a race at a wildcard receive 5,000 others came after, rank 3 hearing of none, is found with all its rivals', () => {
  // The 2,500th round's receive of rank 1 takes a longer message (rank 1 heard of the receive before it, so
  // that one has no rival). Its rivals: rank 2's next message, and rank 3's, sent by a rank that never hears of
  // anything, taken last: the receive is decided at the end, with 5,000 receives after it.
  const job = new Job(4);
  const [r0, r1, , r3] = job.ranks as [Rank, Rank, Rank, Rank];
  const [rounds, odd] = [5000, 2500];
  for (let i = 0; i < rounds; i++)
    for (const w of job.ranks.slice(1, 3)) {
      const long = i === odd && w === r1;
      if (long) {
        r0.send(1, { tag: 3, site: 0x34 });
        r1.recv(0, { tag: 3, site: 0x44 });
      }
      r0.recv(ANY, { tag: 1, site: 0x30, count: 2, got: [w.rank, 1] }).send(w.rank, { tag: 2, site: 0x31 });
      w.send(0, { tag: 1, site: 0x40, count: long ? 2 : 1 }).recv(0, { tag: 2, site: 0x41 });
    }
  r0.recv(ANY, { tag: 1, site: 0x30, count: 2, got: [3, 1] });
  r3.send(0, { tag: 1, site: 0x43 });
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job, 3, 0);
  const f = raceOf(findings);
  assert.equal(f.race?.wildcard, 2 * odd + 1);
  assert.deepEqual(
    f.locations.map((l) => l.rank),
    [0, 1, 2, 3],
  );
  assert.deepEqual(skipped, []);
});

test('a slow rank that takes an old message, then sends a rival, races with the first receive it had not heard of', () => {
  // Rank 3 learns of the first 4,500 receives only from a message sent long before it takes it: rank 0's own
  // (a), or rank 1's (b, who knew of the receives before its 2,250th round: 4,499). Until then, every receive
  // after that point is one rank 3's next send may be concurrent with.
  for (const from of [0, 1]) {
    const job = new Job(4);
    const [r0, r1, , r3] = job.ranks as [Rank, Rank, Rank, Rank];
    const [rounds, at] = [3000, 4500];
    master(job, rounds, (k) => {
      if (from === 0 && k === at) r0.send(3, { tag: 9, site: 0x32 });
      // Rank 1's round i sends before its receive of the i-th answer: it knew of receives 1 .. 2i-1.
      if (from === 1 && k === at - 1) r1.send(3, { tag: 9, site: 0x42 });
    });
    r0.recv(3, { tag: 1, site: 0x33, count: 2 });
    r3.recv(from, { tag: 9, site: 0x50 }).send(0, { tag: 1, site: 0x51, count: 2 });
    for (const r of job.ranks) r.finalize();
    const { findings, skipped } = run(job, 3, 0);
    const f = raceOf(findings);
    assert.equal(f.race?.wildcard, from === 0 ? at + 1 : at, `message from rank ${from}`);
    assert.deepEqual(
      f.locations.map((l) => l.rank),
      [0, from === 0 ? 2 - ((at + 1) % 2) : 2 - (at % 2), 3],
    );
    assert.deepEqual(skipped, []);
  }
});

test('two slow ranks: one heard of the first 3,000 receives and waits for the other, which never hears and ends', () => {
  // Rank 4 takes rank 0's message after the 3,000th receive at once, then waits for rank 3 (slow, hearing of
  // nothing) before it sends: meanwhile what it knows of rank 0 is its clock only.
  const job = new Job(5);
  const [r0, , , r3, r4] = job.ranks as [Rank, Rank, Rank, Rank, Rank];
  const [rounds, at] = [3000, 3000];
  master(job, rounds, (k) => {
    if (k === at) r0.send(4, { tag: 9, site: 0x32 });
  });
  r0.recv(4, { tag: 1, site: 0x33, count: 2 });
  r3.send(4, { tag: 9, site: 0x54 });
  r4.recv(0, { tag: 9, site: 0x50 })
    .recv(3, { tag: 9, site: 0x52 })
    .send(0, { tag: 1, site: 0x51, count: 2 });
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job, 3, 0);
  const f = raceOf(findings);
  assert.equal(f.race?.wildcard, at + 1);
  assert.deepEqual(skipped, []);
});

test('a rank that heard of 2,000 receives, told a slow rank and ended: the slow rank races with the 2,001st', () => {
  // Rank 3 takes rank 0's message after the 2,000th receive at once, sends to rank 4 and finalizes; rank 4 takes
  // it late and then sends: what it learns is held only in rank 3's message in flight.
  const job = new Job(5);
  const [r0, , , r3, r4] = job.ranks as [Rank, Rank, Rank, Rank, Rank];
  const [rounds, at] = [3000, 2000];
  master(job, rounds, (k) => {
    if (k === at) r0.send(3, { tag: 9, site: 0x32 });
  });
  r0.recv(4, { tag: 1, site: 0x33, count: 2 });
  r3.recv(0, { tag: 9, site: 0x50 }).send(4, { tag: 9, site: 0x51 });
  r4.recv(3, { tag: 9, site: 0x52 }).send(0, { tag: 1, site: 0x53, count: 2 });
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job, 4, 0);
  const f = raceOf(findings);
  assert.equal(f.race?.wildcard, at + 1);
  assert.deepEqual(skipped, []);
});

test('a receive whose rival comes from a rank that heard of it later is kept, although earlier ones took alike messages', () => {
  // Rank 2's 2,501st message is longer: a rival of the receive before it (the 5,001st, rank 1's message), which
  // rank 2 had not heard of when it sent. Receives 1 and 2 took alike messages from ranks 1 and 2: they stand
  // for later ones only as to the ranks that have not heard of them (rank 3), not as to rank 2.
  const job = new Job(4);
  const [r0, , r2] = job.ranks as [Rank, Rank, Rank, Rank];
  const [rounds, odd] = [3000, 2500];
  for (let i = 0; i < rounds; i++)
    for (const w of job.ranks.slice(1, 3)) {
      r0.recv(ANY, { tag: 1, site: 0x30, count: 2, got: [w.rank, 1] }).send(w.rank, { tag: 2, site: 0x31 });
      w.send(0, { tag: 1, site: 0x40, count: i === odd && w === r2 ? 2 : 1 }).recv(0, { tag: 2, site: 0x41 });
    }
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job, 3, 0);
  const f = raceOf(findings);
  assert.equal(f.race?.wildcard, 2 * odd + 1);
  assert.deepEqual(
    f.locations.map((l) => l.rank),
    [0, 1, 2],
  );
  assert.deepEqual(skipped, []);
});

test("a slow rank told by rank 0's send right after a receive that taught rank 0 nothing races with the next receive", () => {
  // Each round rank 0 learns of rank 1's result through rank 2 (a named receive) before its wildcard receive
  // takes it: that receive takes no clock component rank 0 did not have, so rank 0's sends after it share the
  // clock copied at its send before it (ClockRun's rows), and only the send's own time says that rank 3, told
  // after the 4,501st receive, heard of it.
  const job = new Job(4);
  const [r0, r1, r2, r3] = job.ranks as [Rank, Rank, Rank, Rank];
  const [rounds, at] = [5000, 4500];
  for (let i = 0; i < rounds; i++) {
    r1.send(0, { tag: 1, site: 0x40 }).send(2, { tag: 8, site: 0x42 }).recv(0, { tag: 2, site: 0x41 });
    r2.recv(1, { tag: 8, site: 0x43 }).send(0, { tag: 8, site: 0x44 });
    r0.recv(2, { tag: 8, site: 0x35 }).send(1, { tag: 2, site: 0x31 });
    r0.recv(ANY, { tag: 1, site: 0x30, count: 2, got: [1, 1] });
    if (i === at) r0.send(3, { tag: 9, site: 0x32 });
  }
  r0.recv(3, { tag: 1, site: 0x33, count: 2 });
  r3.recv(0, { tag: 9, site: 0x50 }).send(0, { tag: 1, site: 0x51, count: 2 });
  for (const r of job.ranks) r.finalize();
  const { findings, skipped } = run(job, 3, 0);
  const f = raceOf(findings);
  assert.equal(f.race?.wildcard, at + 2);
  assert.deepEqual(
    f.locations.map((l) => l.rank),
    [0, 1, 3],
  );
  assert.deepEqual(skipped, []);
});
