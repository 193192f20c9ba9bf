/** The memcheck mode's records (native-shim/src/msc_memcheck.c) as findings. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionNamed } from '../../server/src/protocol/spec';
import { localWindowAccess } from '../../server/src/engine/lifecycle/memory-access';
import type { ShimFindingEvent } from '../../server/src/engine/model/types';
import { check } from './engine-check';
import { Job, type Rank } from './engine-dsl';
import { NO_OP, REPLACE, SUM, windows, type Rma } from './rma-dsl';

test('a load of a pending Irecv buffer is local-concurrency at the load and at the Irecv', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const h = r0.irecv(1);
  const irecv = r0.events.at(-2); // the Irecv's ENTER, then its EXIT
  const irecvSite = irecv?.type === 'enter' ? irecv.site : -1;
  // The record the shim's memcheck build writes on the load: its own seq, the load's return address as site, the
  // owner's function, and [owner's site, byte offset, size | store << 32].
  r0.events.push({
    type: 'shim-finding',
    rank: 0,
    seq: 1000,
    time: 2e6,
    fn: functionNamed('MPI_Irecv'),
    site: 0x4242,
    check: 'pending-recv-access',
    message: '',
    param: -1,
    values: [irecvSite, 8, 4],
  });
  r0.wait(h).finalize();
  r1.send(0).finalize();
  const [f] = check(job, [
    {
      kind: 'local-concurrency',
      ranks: [0, 0],
      message: ['Rank 0 reads the receive buffer of a pending MPI_Irecv (byte 8, 4 bytes)', 'MPI_Wait'],
      details: ['load before the receive completed', 'MPI_Irecv still owns this memory'],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0x4242, irecvSite],
  );
});

function windowRecord(values: number[]): ShimFindingEvent {
  return {
    type: 'shim-finding',
    rank: 2,
    seq: 9,
    time: 0,
    fn: functionNamed('MPI_Win_fence'),
    site: 0x1234,
    check: 'window-local-access',
    message: '',
    param: -1,
    values,
  };
}

test('window-local-access words: offset, length, atomic bit, store bit and epoch (negative for exposure epochs)', () => {
  // [window, offset, length | atomic << 31 | store << 32 | epoch << 33], as msc_memcheck.c writes them.
  const fence = localWindowAccess(windowRecord([77, 20, 8 + 2 ** 32 + 3 * 2 ** 33]));
  assert.deepEqual(fence, {
    rank: 2,
    win: 77,
    offset: 20,
    length: 8,
    atomic: false,
    store: true,
    epoch: 3,
    site: 0x1234,
  });
  const atomic = localWindowAccess(windowRecord([77, 20, 8 + 2 ** 31 + 2 * 2 ** 33]));
  assert.deepEqual([atomic.length, atomic.atomic, atomic.store, atomic.epoch], [8, true, false, 2]);
  const load = localWindowAccess(windowRecord([77, 0, 4 + 1 * 2 ** 33]));
  assert.equal(load.store, false);
  assert.equal(load.epoch, 1);
  // -2 << 33 as the shim's int64 arithmetic gives it: an exposure epoch (the second MPI_Win_post).
  const post = localWindowAccess(windowRecord([77, 16, 12 + 2 ** 32 - 2 * 2 ** 33]));
  assert.deepEqual([post.length, post.store, post.epoch], [12, true, -2]);
});

test("a target's own store in its exposure epoch races with an origin's Put to the same bytes; disjoint bytes and stores after the wait do not", () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  // Epoch 1 (the first post): the Put writes int 5 (bytes 20-23), the target stores bytes 20-23 (race) and
  // 0-7 (disjoint).
  t.postTo([1]);
  o.startTo([0]).put(0, { disp: 5, site: 0x5005 }).complete();
  t.localAccess({ offset: 20, length: 4, store: true, epoch: -1, site: 0x7001, fn: 'MPI_Win_wait' });
  t.localAccess({ offset: 0, length: 8, store: true, epoch: -1, site: 0x7002, fn: 'MPI_Win_wait' });
  t.wait();
  // Epoch 2: the Put to int 2; the target's store of int 2 is made after its wait (it is in no epoch, so the
  // shim sends none), a load of int 3 in the epoch touches other bytes.
  t.postTo([1]);
  o.startTo([0]).put(0, { disp: 2, site: 0x5006 }).complete();
  t.localAccess({ offset: 12, length: 4, store: false, epoch: -2, site: 0x7003, fn: 'MPI_Win_wait' });
  t.wait();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [
    {
      kind: 'rma-race',
      ranks: [0, 1],
      message: ["rank 0's own store", "rank 1's MPI_Put", 'in the same exposure epoch of the target'],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0x7001, 0x5005],
  );
});

/** The target's own load or store of its window outside fence and exposure epochs (epoch 0), as the shim sends it
 * before the next call's ENTER. */
function own(t: Rma, offset: number, store: boolean, site: number, fn = 'MPI_Barrier'): void {
  t.localAccess({ offset, length: 4, store, epoch: 0, site, fn });
}

test("passive target: a target's own store racing with an origin's locked Put to the same bytes is rma-race at the store and the Put", () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  // An exclusive lock of the origin does not keep the target's own (unlocked) stores out.
  o.lock(1, 0).put(0, { disp: 5, site: 0x5005 }).unlock(0);
  own(t, 20, true, 0x7001);
  own(t, 0, true, 0x7002); // other bytes
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [
    {
      kind: 'rma-race',
      ranks: [0, 1],
      message: [
        "rank 0's own store",
        "rank 1's MPI_Put",
        'the target does not lock its own window',
        'MPI_LOCK_EXCLUSIVE, 0',
      ],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0x7001, 0x5005],
  );
});

test('passive target: target accesses ordered by a barrier after the unlock or before the lock, or under its own exclusive lock, are silent', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  own(t, 20, true, 0x7001); // before the barrier that precedes the origin's lock
  for (const r of job.ranks) r.barrier();
  o.lock(2, 0).put(0, { disp: 5, site: 0x5005 }).unlock(0);
  for (const r of job.ranks) r.barrier();
  own(t, 20, false, 0x7002); // after the barrier that follows the origin's unlock
  // Under the target's own exclusive lock: the origin's shared lock cannot be held at the same time.
  t.lock(1, 0);
  own(t, 24, true, 0x7003, 'MPI_Win_unlock');
  t.unlock(0);
  o.lock(2, 0).get(0, { disp: 6, site: 0x5006 }).unlock(0);
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test("passive target: the target's load under its own shared lock races with another shared lock's Put", () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  t.lock(2, 0);
  own(t, 8, false, 0x7001, 'MPI_Win_unlock');
  t.unlock(0);
  o.lock(2, 0).put(0, { disp: 2, site: 0x5005 }).unlock(0);
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, [
    { kind: 'rma-race', ranks: [0, 1], message: ["rank 0's own load", 'both ranks hold shared locks'] },
  ]);
});

test("passive target: an origin's fetching atomic (Fetch_and_op) of the bytes the target stores into races with the store", () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  o.lockAll().fetchAndOp(0, SUM, { disp: 5, site: 0x5005 }).unlockAll();
  own(t, 20, true, 0x7001);
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [
    {
      kind: 'rma-race',
      ranks: [0, 1],
      message: ["rank 0's own store", "rank 1's MPI_Fetch_and_op", 'the target does not lock its own window'],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0x7001, 0x5005],
  );
});

test('passive target: a Get after polling a flag the target raised after its store is silent (ordered by the polled value)', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  const [t, o] = w as [Rma, Rma];
  // The target stores its data, then raises a flag (element 0) atomically under its own lock.
  own(t, 20, true, 0x7001, 'MPI_Win_lock');
  t.lock(1, 0).accumulate(0, REPLACE, { disp: 0 }).unlock(0);
  // The origin polls the flag, then reads the data: nothing the engine sees orders them, the flag's value does.
  o.lockAll().fetchAndOp(0, NO_OP, { disp: 0, site: 0x5001 }).get(0, { disp: 5, site: 0x5005 }).unlockAll();
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test("shared window: another rank's direct store into a segment races with the owner's load unless a barrier orders them", () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { fn: 'MPI_Win_allocate_shared' });
  const [t, o] = w as [Rma, Rma];
  for (const x of w) x.lockAll();
  // Ordered: rank 1 stores into rank 0's segment, a barrier, then rank 0 loads it.
  o.localAccess({ offset: 8, length: 4, store: true, epoch: 0, site: 0x6001, fn: 'MPI_Barrier', segment: 0 });
  for (const r of job.ranks) r.barrier();
  own(t, 8, false, 0x7001);
  // Not ordered: rank 1 stores element 3 while rank 0 loads it, the barrier after both.
  o.localAccess({
    offset: 12,
    length: 4,
    store: true,
    epoch: 0,
    site: 0x6002,
    fn: 'MPI_Barrier',
    segment: 0,
  });
  own(t, 12, false, 0x7002);
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.unlockAll();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [
    {
      kind: 'rma-race',
      ranks: [0, 1],
      message: ["rank 0's own load", "rank 1's direct store", 'nothing ordering them', 'MPI_Win_sync'],
      details: ['a load of its own window memory', "a direct store into rank 0's segment of shared window"],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0x7002, 0x6002],
  );
});

test('shared window: direct accesses in a fence epoch are compared with the epoch one-sided accesses; a plain window keeps one origin per memory', () => {
  const job = new Job(3);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { fn: 'MPI_Win_allocate_shared' });
  const [, o1, o2] = w as [Rma, Rma, Rma];
  for (const x of w) x.fence();
  // Rank 1 stores into rank 0's element 5 directly while rank 2 puts there, in one fence epoch.
  o1.localAccess({
    offset: 20,
    length: 4,
    store: true,
    epoch: 1,
    site: 0x6001,
    fn: 'MPI_Win_fence',
    segment: 0,
  });
  o2.put(0, { disp: 5, site: 0x5005 });
  for (const x of w) x.fence();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, [{ kind: 'rma-race', ranks: [1, 2], message: ["rank 1's direct store", "rank 2's MPI_Put"] }]);
});

test('shared window: a flag raised and polled with atomics orders the plain accesses around it; two atomics never race', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { fn: 'MPI_Win_allocate_shared' });
  const [t, o] = w as [Rma, Rma];
  for (const x of w) x.lockAll();
  // Rank 1 writes data (bytes 4-7 of rank 0's segment), then raises the flag (bytes 0-3) atomically; rank 0 polls
  // the flag atomically, then reads the data. Nothing the engine sees orders them; the flag does.
  o.localAccess({
    offset: 4,
    length: 4,
    store: true,
    epoch: 0,
    site: 0x6001,
    fn: 'MPI_Win_unlock_all',
    segment: 0,
  });
  o.localAccess({
    offset: 0,
    length: 4,
    store: true,
    epoch: 0,
    site: 0x6002,
    fn: 'MPI_Win_unlock_all',
    segment: 0,
    atomic: true,
  });
  t.localAccess({
    offset: 0,
    length: 4,
    store: false,
    epoch: 0,
    site: 0x7001,
    fn: 'MPI_Win_unlock_all',
    atomic: true,
  });
  t.localAccess({ offset: 4, length: 4, store: false, epoch: 0, site: 0x7002, fn: 'MPI_Win_unlock_all' });
  for (const x of w) x.unlockAll();
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test('shared window: a plain store racing with another rank atomic load of the same bytes is reported', () => {
  const job = new Job(2);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { fn: 'MPI_Win_allocate_shared' });
  const [t, o] = w as [Rma, Rma];
  o.localAccess({ offset: 0, length: 4, store: true, epoch: 0, site: 0x6001, fn: 'MPI_Barrier', segment: 0 });
  t.localAccess({
    offset: 0,
    length: 4,
    store: false,
    epoch: 0,
    site: 0x7001,
    fn: 'MPI_Barrier',
    atomic: true,
  });
  for (const r of job.ranks) r.barrier();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  check(job, [{ kind: 'rma-race', ranks: [0, 1], message: ['atomically loads', "rank 1's direct store"] }]);
});
