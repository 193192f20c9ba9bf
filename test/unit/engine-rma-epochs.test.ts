/** One-sided access epochs that overlap at one rank, and epochs never closed (one-sided/rma-epochs.ts). */
import { test } from 'node:test';
import { check } from './engine-check';
import { Job } from './engine-dsl';
import { EXCLUSIVE, SHARED, windows, type Rma } from './rma-dsl';

function setup(n: number): { job: Job; w: Rma[] } {
  const job = new Job(n);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  return { job, w };
}

function end(job: Job, w: Rma[]): void {
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
}

test('a second lock of a target the rank holds locked is call-order; locks of two targets are not', () => {
  const { job, w } = setup(3);
  const [a] = w as [Rma];
  a.lock(SHARED, 1).lock(SHARED, 2).put(1).put(2).unlock(2).unlock(1);
  a.lock(SHARED, 1).lock(EXCLUSIVE, 1).unlock(1);
  end(job, w);
  check(job, [
    {
      kind: 'call-order',
      ranks: [0],
      message: ['MPI_Win_lock', 'while MPI_Win_lock of rank 1 is still open'],
    },
  ]);
});

test('a lock inside a lock_all epoch, on every rank, is one finding with every rank', () => {
  const { job, w } = setup(2);
  for (const x of w) x.lockAll().lock(EXCLUSIVE, 0).unlock(0).unlockAll();
  end(job, w);
  check(job, [{ kind: 'call-order', ranks: [0, 1], message: ['while MPI_Win_lock_all is still open'] }]);
});

test('a lock between two fences with accesses is call-order at the lock; after the last fence it is not', () => {
  const { job, w } = setup(2);
  for (const x of w) x.fence();
  for (const x of w) x.put(1 - x.r.rank);
  (w[0] as Rma).lock(EXCLUSIVE, 1).put(1).unlock(1);
  for (const x of w) x.fence();
  (w[0] as Rma).lock(EXCLUSIVE, 1).put(1).unlock(1);
  end(job, w);
  check(job, [
    { kind: 'call-order', ranks: [0], message: ['inside an access epoch opened by MPI_Win_fence'] },
  ]);
});

test('an epoch still open at MPI_Win_free, and one open at MPI_Finalize on a window never freed', () => {
  const { job, w } = setup(2);
  (w[0] as Rma).lock(SHARED, 1).put(1);
  end(job, w);
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
