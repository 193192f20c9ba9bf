/** One-sided access epochs that overlap at one rank, and epochs never closed (one-sided/rma-epochs.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { check } from './engine-check';
import { Job } from './engine-dsl';
import { EXCLUSIVE, SHARED, windows, type Rma, endRmaJob, rmaJob } from './rma-dsl';

test('a second lock of a target the rank holds locked is call-order; locks of two targets are not', () => {
  const { job, w } = rmaJob(3);
  const [a] = w as [Rma];
  a.lock(SHARED, 1).lock(SHARED, 2).put(1).put(2).unlock(2).unlock(1);
  a.lock(SHARED, 1).lock(EXCLUSIVE, 1).unlock(1);
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['MPI_Win_lock', 'while MPI_Win_lock of rank 1 is still open'],
    },
  ]);
});

test('a lock inside a lock_all epoch, on every rank, is one finding with every rank', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.lockAll().lock(EXCLUSIVE, 0).unlock(0).unlockAll();
  endRmaJob(job, w);
  check(job, [{ kind: 'call-order', ranks: [0, 1], message: ['while MPI_Win_lock_all is still open'] }]);
});

test('a lock between two fences with accesses is call-order at the lock; after the last fence it is not', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.fence();
  for (const x of w) x.put(1 - x.r.rank);
  (w[0] as Rma).lock(EXCLUSIVE, 1).put(1).unlock(1);
  for (const x of w) x.fence();
  (w[0] as Rma).lock(EXCLUSIVE, 1).put(1).unlock(1);
  endRmaJob(job, w);
  check(job, [
    { kind: 'call-order', ranks: [0], message: ['inside an access epoch opened by MPI_Win_fence'] },
  ]);
});

test('a fence while the rank exposes the window (post not yet waited for) is call-order at the fence', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  // A first exchange closed by its wait leaves nothing open; the second enters the fence before its wait.
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  a.wait();
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  for (const x of w) x.fence();
  a.wait();
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: [
        'MPI_Win_fence',
        'while the exposure epoch of its MPI_Win_post is still open',
        'MPI_Win_wait',
      ],
      details: ['MPI_Win_fence on'],
    },
  ]);
});

test('a post (and a start) between two fences with accesses is call-order at each', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  for (const x of w) x.fence();
  for (const x of w) x.put(1 - x.r.rank);
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  a.wait();
  for (const x of w) x.fence();
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['MPI_Win_post', 'inside an access epoch opened by MPI_Win_fence'],
    },
    {
      kind: 'call-order',
      ranks: [1],
      message: ['MPI_Win_start', 'inside an access epoch opened by MPI_Win_fence'],
    },
  ]);
});

test('an epoch still open at MPI_Win_free, and one open at MPI_Finalize on a window never freed', () => {
  const { job, w } = rmaJob(2);
  (w[0] as Rma).lock(SHARED, 1).put(1);
  endRmaJob(job, w);
  check(job, [{ kind: 'call-order', ranks: [0], message: ['never close', 'before MPI_Win_free'] }]);

  const j2 = new Job(2);
  const w2 = windows(j2.ranks);
  for (const x of w2) x.create();
  for (const x of w2) x.lockAll().get(1 - x.r.rank);
  for (const r of j2.ranks) r.finalize();
  check(j2, [
    { kind: 'call-order', ranks: [0, 1], message: ['MPI_Win_lock_all', 'before MPI_Finalize'] },
    { kind: 'resource-leak', ranks: [0, 1] },
  ]);
});

test('exposure epochs: a post while the previous exposure epoch is open is call-order at the second post', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  a.postTo([1]).postTo([1]);
  b.startTo([0]).put(0).complete();
  a.wait();
  endRmaJob(job, w);
  check(job, [
    { kind: 'call-order', ranks: [0], message: ['MPI_Win_post', 'while the exposure epoch of an earlier'] },
  ]);
});

test('a wait with no post open and a complete with no start open are call-order', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  a.postTo([1]);
  b.startTo([0]).complete().complete();
  a.wait().wait();
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['exposure epoch', 'that no MPI_Win_post opened'],
      details: ['MPI_Win_wait on'],
    },
    { kind: 'call-order', ranks: [1], message: ['MPI_Win_complete', 'with no access epoch open'] },
  ]);
});

test('MPI_Win_test with no post open is call-order', () => {
  const { job, w } = rmaJob(2);
  (w[0] as Rma).test(0);
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['that no MPI_Win_post opened'],
      details: ['MPI_Win_test on'],
    },
  ]);
});

test('an exposure epoch still open at MPI_Win_free is call-order at the post', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['exposure epoch with MPI_Win_post', 'before MPI_Win_free', 'MPI_Win_wait'],
    },
  ]);
});

test('an exposure epoch closed by MPI_Win_test returning true, then posted again and waited for: silent', () => {
  const { job, w } = rmaJob(2);
  const [a, b] = w as [Rma, Rma];
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  a.test(0).test(0).test(1);
  a.postTo([1]);
  b.startTo([0]).put(0).complete();
  a.wait();
  endRmaJob(job, w);
  check(job, []);
});

test('a job that deadlocks after an epoch rule was broken reports the rule with the deadlock (no end of the run)', () => {
  const { job, w } = rmaJob(2);
  const [a] = w as [Rma, Rma];
  // Rank 0 frees the window with its exposure epoch open and waits there for rank 1, which waits in a barrier.
  a.postTo([1]).free({ hang: true });
  job.ranks[1]?.barrier({ hang: true });
  check(job, [
    { kind: 'deadlock', ranks: [0, 1] },
    { kind: 'call-order', ranks: [0], message: ['exposure epoch with MPI_Win_post', 'before MPI_Win_free'] },
  ]); // As the session does: the deadlock ends the job, finish() is never called.
  const engine = createEngine({ ranks: job.size });
  for (const e of job.interleave(0)) engine.push(e);
  engine.takeFindings();
  assert.equal(engine.findDeadlock()?.kind, 'deadlock');
  assert.deepEqual(
    engine.takeFindings().map((f) => f.kind),
    ['call-order'],
  );
});

test('MPI_Win_free with accesses since the last fence is call-order at the free; with a fence after them it is not', () => {
  const { job, w } = rmaJob(2);
  for (const x of w) x.fence();
  (w[0] as Rma).put(1);
  endRmaJob(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: [
        'frees',
        'still holds one-sided accesses',
        'Call MPI_Win_fence on every rank before MPI_Win_free',
      ],
    },
  ]);

  const closed = rmaJob(2);
  for (const x of closed.w) x.fence();
  (closed.w[0] as Rma).put(1);
  for (const x of closed.w) x.fence();
  endRmaJob(closed.job, closed.w);
  check(closed.job, []);
});

test('a fence with MPI_MODE_NOPRECEDE after accesses since the last fence is call-order; as the first fence it is not', () => {
  for (const noprecede of [2, 8192]) {
    const { job, w } = rmaJob(2);
    for (const x of w) x.fence({ assert: noprecede });
    (w[0] as Rma).put(1);
    for (const x of w) x.fence({ assert: noprecede });
    for (const x of w) x.fence();
    endRmaJob(job, w);
    check(job, [{ kind: 'call-order', ranks: [0], message: ['MPI_MODE_NOPRECEDE', 'since the last fence'] }]);
  }
});

test('fences around lock epochs whose accesses all stay inside them are a call-order warning; one access outside is the error', () => {
  // PETSc's PetscSF (window type, lock synchronization): fence, accesses each inside a lock of its target (or a
  // lock_all), fence, and again. The fence epoch holds no access of its own: by the standard's text the first fence
  // still opened an access epoch that the lock overlaps, which MPICH and Open MPI accept: a warning.
  const { job, w } = rmaJob(2);
  for (let round = 0; round < 2; round++) {
    for (const x of w) x.fence();
    for (const x of w)
      x.lock(SHARED, 1 - x.r.rank)
        .put(1 - x.r.rank)
        .unlock(1 - x.r.rank);
    for (const x of w)
      x.lockAll()
        .put(1 - x.r.rank)
        .unlockAll();
    for (const x of w) x.fence();
  }
  // Rank 0 then puts to rank 1 while it holds a lock of itself only: that access is the fence epoch's.
  for (const x of w) x.fence();
  (w[0] as Rma).lock(EXCLUSIVE, 0).put(1).unlock(0);
  for (const x of w) x.fence();
  endRmaJob(job, w);
  const found = check(job, [
    { kind: 'call-order', ranks: [0], message: ['inside an access epoch opened by MPI_Win_fence'] },
    { kind: 'call-order', ranks: [0, 1], message: ['every one-sided access between those fences is inside'] },
  ]);
  assert.deepEqual(found.map((f) => [f.locations.length, f.severity]).sort(), [
    [1, 'error'],
    [2, 'warning'],
  ]);
});
