/** One-sided communication: rma-race in fence and passive-target epochs, the legal cases, window leaks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { check } from './engine-check';
import { Job } from './engine-dsl';
import {
  EXCLUSIVE,
  MAX,
  NO_OP,
  REPLACE as REPLACE_OP,
  SHARED,
  SUM,
  VECTOR,
  VECTOR_LAID_OUT,
  windows,
  type Rma,
  endRmaJob,
  rmaJob,
} from './rma-dsl';

/** Runs `body` between two fences on every rank. */
function fenced(w: Rma[], body: (x: Rma) => void): void {
  for (const x of w) x.fence();
  for (const x of w) body(x);
  for (const x of w) x.fence();
}

test('two origins put to the same target element between two fences race', () => {
  const { job, w } = rmaJob(3);
  fenced(w, (x) => {
    if (x.r.rank > 0) x.put(0, { disp: 1 });
  });
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'rma-race',
      ranks: [1, 2],
      message: [
        "rank 1's MPI_Put (writes) and rank 2's MPI_Put (writes)",
        "target rank 0's window (displacement 1)",
        'same fence epoch',
        'window 1 of MPI_COMM_WORLD',
        'MPI_Accumulate',
      ],
      details: ['MPI_Put writes window 1 of MPI_COMM_WORLD at rank 0, displacement 1', ''],
    },
  ]);
});

test('a put and a get of one element by different origins race; two gets do not', () => {
  const { job, w } = rmaJob(3);
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 3 });
    if (x.r.rank === 2) x.get(0, { disp: 3 });
  });
  fenced(w, (x) => {
    if (x.r.rank > 0) x.get(0, { disp: 5 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['(writes)', '(reads)'] }]);
});

test('every rank accumulating MPI_SUM into one location in one epoch is legal', () => {
  const { job, w } = rmaJob(4);
  fenced(w, (x) => x.accumulate(0, SUM));
  endRmaJob(job, w);
  check(job, []);
});

test('accumulates with different ops on one location race; MPI_NO_OP reads do not', () => {
  const { job, w } = rmaJob(3);
  fenced(w, (x) => {
    if (x.r.rank === 1) x.accumulate(0, SUM, { disp: 2 });
    if (x.r.rank === 2) x.accumulate(0, MAX, { disp: 2 });
  });
  fenced(w, (x) => {
    if (x.r.rank === 1) x.accumulate(0, SUM, { disp: 4 });
    if (x.r.rank === 2) x.fetchAndOp(0, NO_OP, { disp: 4 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['MPI_SUM', 'MPI_MAX', 'displacement 2'] }]);
});

/** Every finding of the job in one interleaving, and the checks the engine names as not run. */
function withBound(job: Job, rmaAccesses: number) {
  const engine = createEngine({ ranks: job.size, rmaAccesses });
  for (const e of job.interleave(0)) engine.push(e);
  const findings = [...engine.takeFindings(), ...engine.finish()];
  return { findings, skipped: engine.skippedChecks().flatMap((s) => s.checks) };
}

test('a loop of accesses into a few places keeps two of each call site and place: the bound is not reached, the race is the first', () => {
  const { job, w } = rmaJob(3);
  // 400 puts of two origins into 5 elements, each origin from one call site: 10 kinds of access, 20 kept.
  fenced(w, (x) => {
    if (x.r.rank > 0) for (let i = 0; i < 200; i++) x.put(0, { disp: i % 5, site: 0x600 + x.r.rank });
  });
  endRmaJob(job, w);
  const { findings, skipped } = withBound(job, 20);
  assert.deepEqual(skipped, []);
  // The first racing pair by origin and order: rank 1's first put and its own put into the same element after it.
  assert.deepEqual(
    findings.map((f) => [f.kind, f.locations.map((l) => l.rank), f.message.includes('its later MPI_Put')]),
    [['rma-race', [1, 1], true]],
  );
});

test('accesses alike but for their target are kept apart: the third of a loop, to another target, still races there', () => {
  const { job, w } = rmaJob(4);
  fenced(w, (x) => {
    if (x.r.rank === 1) {
      x.accumulate(0, SUM, { disp: 0, site: 0x610 }).accumulate(0, SUM, { disp: 0, site: 0x610 });
      x.accumulate(2, SUM, { disp: 0, site: 0x610 });
    }
    if (x.r.rank === 3) x.put(2, { disp: 0, site: 0x611 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 3], message: ["target rank 2's window"] }]);
});

test('accumulates of one op into one place from every rank, thousands of them, are legal and all compared', () => {
  const { job, w } = rmaJob(4);
  fenced(w, (x) => {
    for (let i = 0; i < 2000; i++) x.accumulate(0, SUM, { disp: i % 10, site: 0x700 });
  });
  endRmaJob(job, w);
  assert.deepEqual(withBound(job, 100), { findings: [], skipped: [] });
});

test('disjoint target locations, and one location in successive fence epochs, are no race', () => {
  const { job, w } = rmaJob(3);
  fenced(w, (x) => {
    if (x.r.rank > 0) x.put(0, { disp: x.r.rank * 2, count: 2 });
  });
  // Epoch after epoch to the same element: the fences order them.
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0 });
  });
  fenced(w, (x) => {
    if (x.r.rank === 2) x.put(0, { disp: 0 });
  });
  endRmaJob(job, w);
  check(job, []);
});

test('the displacement unit is the target’s: one-byte units make displacements 0..3 one int', () => {
  const job = new Job(3);
  const w = windows(job.ranks);
  for (const x of w) x.create(1);
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0 });
    if (x.r.rank === 2) x.put(0, { disp: 3 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['displacements 0 and 3'] }]);
});

test('a race repeated in every iteration of a loop is reported once', () => {
  const { job, w } = rmaJob(3);
  for (let i = 0; i < 5; i++)
    fenced(w, (x) => {
      if (x.r.rank > 0) x.put(0, { disp: 0, site: 0x500 + x.r.rank });
    });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2] }]);
});

test('one origin putting then getting the same element in one epoch races with itself', () => {
  const { job, w } = rmaJob(2);
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0 }).get(0, { disp: 0 });
  });
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'rma-race',
      ranks: [1, 1],
      message: ["rank 1's MPI_Put", 'its later MPI_Get', 'one fence epoch'],
    },
  ]);
});

test('non-contiguous target types whose spans overlap stay silent unless the bytes certainly meet', () => {
  const { job, w } = rmaJob(3);
  // Vectors of 2 ints at stride 2, at displacements 0 and 1: spans overlap, elements interleave (0,2 vs 1,3).
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0, type: VECTOR });
    if (x.r.rank === 2) x.put(0, { disp: 1, type: VECTOR });
  });
  // The same vector at the same displacement: certainly the same bytes.
  fenced(w, (x) => {
    if (x.r.rank > 0) x.put(0, { disp: 10, type: VECTOR });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['displacement 10'] }]);
});

test('target types with a known layout: interleaved columns are disjoint, overlapping ones race', () => {
  const { job, w } = rmaJob(3);
  // Ints 0,2 against ints 1,3: the spans overlap, the bytes do not.
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0, type: VECTOR_LAID_OUT });
    if (x.r.rank === 2) x.put(0, { disp: 1, type: VECTOR_LAID_OUT });
  });
  // Ints 20,22 against ints 22,24: int 22 is written by both.
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 20, type: VECTOR_LAID_OUT });
    if (x.r.rank === 2) x.put(0, { disp: 22, type: VECTOR_LAID_OUT });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['displacements 20 and 22'] }]);
});

test('exclusive locks of the same target serialize the accesses', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) if (x.r.rank > 0) x.lock(EXCLUSIVE, 0).put(0, { disp: 0 }).unlock(0);
  for (const r of job.ranks) r.barrier();
  endRmaJob(job, w);
  check(job, []);
});

test('shared locks of the same target with nothing ordering them race', () => {
  const { job, w } = rmaJob(3);
  w[1]?.lock(SHARED, 0).put(0, { disp: 7 }).unlock(0);
  w[2]?.lock(SHARED, 0).get(0, { disp: 7 }).unlock(0);
  for (const r of job.ranks) r.barrier();
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['passive-target epochs', 'displacement 7'] }]);
});

test('lock_all epochs separated by unlock, barrier and lock are ordered', () => {
  const { job, w } = rmaJob(3);
  w[1]?.lockAll().put(0, { disp: 7 }).unlockAll();
  for (const r of job.ranks) r.barrier();
  w[2]?.lockAll().get(0, { disp: 7 }).unlockAll();
  endRmaJob(job, w);
  check(job, []);
});

test('a flush before a barrier orders an access within one lock_all epoch; without it, it races', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) x.lockAll();
  w[1]?.put(0, { disp: 1 }).flush(0);
  w[1]?.put(0, { disp: 2 });
  for (const r of job.ranks) r.barrier();
  w[2]?.get(0, { disp: 1 }).get(0, { disp: 2 });
  for (const x of w) x.unlockAll();
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['displacement 2'] }]);
});

test('a put and a get of one origin in a lock epoch race unless a flush separates them', () => {
  const { job, w } = rmaJob(2);
  w[1]?.lock(EXCLUSIVE, 0).put(0, { disp: 0 }).flush(0).get(0, { disp: 0 }).unlock(0);
  w[1]?.lock(EXCLUSIVE, 0).put(0, { disp: 4 }).get(0, { disp: 4 }).unlock(0);
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 1], message: ['displacement 4', 'no MPI_Win_flush'] }]);
});

test('a window never freed is a resource leak at its creation, once for all ranks', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { site: 0x777 });
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [{ kind: 'resource-leak', ranks: [0, 1], message: ['window', 'MPI_Win_free'] }]);
  void f;
});

test('a rank that skips a fence deadlocks the ranks in the fence', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.fence();
  w[0]?.fence({ hang: true });
  job.ranks[1]?.barrier({ hang: true });
  check(job, [{ kind: 'deadlock', ranks: [0, 1], details: ['window 1 of MPI_COMM_WORLD', ''] }]);
});

test('ranks in matching fences and in lock epochs are not deadlocked', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) x.fence();
  w[0]?.fence({ hang: true });
  w[1]?.fence({ hang: true });
  // Rank 2 is still on its way to the fence (running): nothing is stuck.
  w[2]?.lock(SHARED, 0);
  check(job, []);
});

test('an access before any fence or lock of its target is call-order, one finding per window and call', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.put(1 - x.r.rank, { site: 0x600 + x.r.rank });
  // After an exclusive lock of rank 0, a get from rank 1 is still outside any epoch for rank 1.
  w[0]?.lock(EXCLUSIVE, 0).get(1).put(0).unlock(0);
  for (const x of w) x.fence();
  for (const x of w) x.put(1 - x.r.rank, { disp: 5 });
  for (const x of w) x.fence();
  endRmaJob(job, w);
  check(job, [
    { kind: 'call-order', ranks: [0, 1], message: ['Ranks 0,1 call MPI_Put outside any access epoch'] },
    {
      kind: 'call-order',
      ranks: [0],
      details: ['MPI_Get to rank 1 of window 1 of MPI_COMM_WORLD outside any epoch'],
    },
  ]);
});

test('a ring of puts, each flushed before a barrier, and gets after it: ordered, no race', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) x.lockAll();
  for (const x of w) x.put((x.r.rank + 1) % 3).flush((x.r.rank + 1) % 3);
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.get((x.r.rank + 2) % 3).flush((x.r.rank + 2) % 3);
  for (const x of w) x.unlockAll();
  endRmaJob(job, w);
  check(job, []);
});

test('a flush after the barrier does not order a put before it', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.lockAll();
  w[0]?.put(1, { disp: 3 });
  for (const r of job.ranks) r.barrier();
  w[0]?.flush(1);
  w[1]?.get(1, { disp: 3 });
  for (const x of w) x.unlockAll();
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [0, 1], message: ['displacement 3'] }]);
});

test('a contiguous access covering a strided one certainly overlaps it', () => {
  const { job, w } = rmaJob(3);
  // The vector at displacement 0 spans ints 0..2 (elements 0 and 2); a put of 3 ints at 0 covers it.
  fenced(w, (x) => {
    if (x.r.rank === 1) x.put(0, { disp: 0, type: VECTOR });
    if (x.r.rank === 2) x.put(0, { disp: 0, count: 3 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2] }]);
});

test('a window polled with atomic reads is not judged for puts and gets of different ranks', () => {
  const { job, w } = rmaJob(3);
  for (const x of w) x.lockAll();
  // Rank 1 publishes data then raises a flag; rank 2 polls the flag and then reads the data: ordered through the
  // flag's value, which mpiscope cannot see.
  w[1]?.put(0, { disp: 4 }).flush(0).accumulate(0, REPLACE_OP, { disp: 0 }).flush(0);
  w[2]?.fetchAndOp(0, NO_OP, { disp: 0 }).flush(0).get(0, { disp: 4 }).flush(0);
  for (const x of w) x.unlockAll();
  endRmaJob(job, w);
  check(job, []);
});

test('PSCW: two origins putting to one element in the same exposure epoch race', () => {
  const { job, w } = rmaJob(3);
  const [t, o1, o2] = w;
  t?.postTo([1, 2]);
  o1?.startTo([0]).put(0, { disp: 6 }).complete();
  o2?.startTo([0]).put(0, { disp: 6 }).complete();
  t?.wait();
  endRmaJob(job, w);
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ['exposure epoch', 'displacement 6'] }]);
});

test('PSCW: exposure epochs one after the other, or groups the engine cannot know, are not judged as one', () => {
  const { job, w } = rmaJob(3);
  const [t, o1, o2] = w;
  // Rank 0 exposes to rank 1, then to rank 2: the two puts are ordered by its wait and post.
  t?.postTo([1]);
  o1?.startTo([0]).put(0, { disp: 6 }).complete();
  t?.wait();
  t?.postTo([2]);
  o2?.startTo([0]).put(0, { disp: 6 }).complete();
  t?.wait();
  // Groups made by calls mpiscope does not follow: silent.
  t?.post(0x55);
  o1?.start().put(0, { disp: 7 }).complete();
  o2?.start().put(0, { disp: 7 }).complete();
  t?.wait();
  endRmaJob(job, w);
  check(job, []);
});

test('PSCW: a target waits for an origin that never completes its access epoch: deadlock', () => {
  const { job, w } = rmaJob(2);
  const [t, o] = w;
  t?.postTo([1]).wait({ hang: true });
  // Rank 1 opens its access epoch but waits in a barrier instead of calling MPI_Win_complete.
  o?.startTo([0]).put(0);
  job.ranks[1]?.barrier({ hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['MPI_Win_complete'],
      details: ['MPI_Win_wait: waiting for the MPI_Win_complete of rank 1', ''],
    },
  ]);
});

test('PSCW: an origin completes an access epoch to a target that never posts to it: deadlock', () => {
  const { job, w } = rmaJob(3);
  const [o, t] = w;
  o?.startTo([1]).put(1).complete({ hang: true });
  // Rank 1 exposes its window to rank 2 only, then waits for rank 2's complete; rank 2 never starts.
  t?.postTo([2]).wait({ hang: true });
  job.ranks[2]?.barrier({ hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1, 2],
      message: ['MPI_Win_post'],
      details: ['MPI_Win_complete: waiting for the MPI_Win_post of rank 1', '', ''],
    },
  ]);
});

test('PSCW: an origin blocked in MPI_Win_start for a target that never posts to it: deadlock', () => {
  const { job, w } = rmaJob(2);
  const [o] = w;
  // Open MPI's shared-memory windows wait in MPI_Win_start for the targets' posts.
  o?.start(o.group([1]), { hang: true });
  job.ranks[1]?.barrier({ hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      details: ['MPI_Win_start: waiting for the MPI_Win_post of rank 1', ''],
    },
  ]);
});

test('PSCW: an origin in MPI_Win_start or MPI_Win_complete whose target posted to it is not deadlocked', () => {
  const j = rmaJob(2);
  const [o1, t1] = j.w;
  o1?.start(o1.group([1]), { hang: true });
  t1?.postTo([0]).wait({ hang: true });
  check(j.job, []);
});

test('PSCW: an origin in MPI_Win_complete whose target posted to it is not deadlocked', () => {
  const { job, w } = rmaJob(2);
  const [o, t] = w;
  o?.startTo([1]).put(1).complete({ hang: true });
  t?.postTo([0]).wait({ hang: true });
  check(job, []);
});

test('PSCW: a target in MPI_Win_wait while its origins are still running is not deadlocked', () => {
  const { job, w } = rmaJob(3);
  const [t, o1] = w;
  t?.postTo([1, 2]).wait({ hang: true });
  o1?.startTo([0]).put(0, { disp: 1 }).complete();
  // Rank 2 has not started yet (running), so rank 0 can still be released.
  check(job, []);
});

test('PSCW: an origin whose start group is unknown is not taken as never completing', () => {
  const { job, w } = rmaJob(2);
  const [t, o] = w;
  t?.postTo([1]).wait({ hang: true });
  // Rank 1 completes, but through a group the engine cannot see; then it waits for rank 0 in a barrier (in a
  // real run rank 0 returns from MPI_Win_wait and joins it).
  o?.start().put(0).complete();
  job.ranks[1]?.barrier({ hang: true });
  check(job, []);
});

test('a put past the end of its target’s part of the window is invalid-argument, in whatever order the ranks stream', () => {
  // Windows of 400 bytes in units of 4: elements 98 to 101 of a 100-element window.
  const { job, w } = rmaJob(2);
  fenced(w, (x) => {
    if (x.r.rank === 0) x.put(1, { disp: 98, count: 4, site: 0x24 });
  });
  endRmaJob(job, w);
  check(job, [{ kind: 'invalid-argument', ranks: [0], message: ['outside the target'] }]);
  // The origin's whole stream read before the target's creating call (each rank streams on its own): the
  // target's size is not known at the put, which must wait for it rather than pass.
  const engine = createEngine({ ranks: 2 });
  for (const r of job.ranks) for (const e of r.events) engine.push(e);
  const found = [...engine.takeFindings(), ...engine.finish()].map((f) => f.kind);
  assert.deepEqual(found, ['invalid-argument']);
});

test('a put within its target’s part of the window is not judged outside it', () => {
  const { job, w } = rmaJob(2);
  fenced(w, (x) => {
    if (x.r.rank === 0) x.put(1, { disp: 96, count: 4 });
  });
  endRmaJob(job, w);
  check(job, []);
});
