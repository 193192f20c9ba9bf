// Data checks of collectives where every member sends to every other (allgather, alltoall and their v/w
// variants), reduce_scatter's recvcounts, and the rooted collectives' type signatures; bytes that differ only
// because the types do (as many elements) are a type-mismatch, not a count-mismatch.
import { test } from 'node:test';
import { check } from './engine-check';
import { DOUBLE, FLOAT, INT, Job, type Rank } from './engine-dsl';

const world = (r: Rank) => r.handle('world');

function alltoallv(r: Rank, scounts: number[], rcounts: number[], stype = INT, rtype = INT): void {
  const zeros = scounts.map(() => 0);
  r.call('MPI_Alltoallv', {
    sendbuf: 0x100,
    sendcounts: scounts,
    sdispls: zeros,
    sendtype: stype,
    recvbuf: 0x200,
    recvcounts: rcounts,
    rdispls: zeros,
    recvtype: rtype,
    comm: world(r),
  });
}

function alltoall(r: Rank, stype: number, sendbuf = 0x100): void {
  r.call('MPI_Alltoall', {
    sendbuf,
    sendcount: 2,
    sendtype: stype,
    recvbuf: 0x200,
    recvcount: 2,
    recvtype: INT,
    comm: world(r),
  });
}

const finalizeAll = (job: Job) => job.ranks.forEach((r) => r.finalize());

test('alltoallv with per-pair counts that agree is silent', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    const counts = job.ranks.map((p) => r.rank + p.rank + 1);
    alltoallv(r, counts, counts);
  }
  finalizeAll(job);
  check(job, []);
});

test('alltoallv: a receiver expecting a different count from one sender is a count-mismatch at every rank', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    const counts = job.ranks.map((p) => r.rank + p.rank + 1);
    const rcounts = r.rank === 2 ? counts.map((c, i) => (i === 0 ? c + 1 : c)) : counts;
    alltoallv(r, counts, rcounts);
  }
  finalizeAll(job);
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1, 2],
      message: ['rank 0 sends 3 × MPI_INT to rank 2, which expects 4 × MPI_INT from it', 'MPI_Alltoall'],
    },
  ]);
});

test('alltoall: one rank sending floats to ranks that expect ints is a type-mismatch', () => {
  const job = new Job(3);
  for (const r of job.ranks) alltoall(r, r.rank === 1 ? FLOAT : INT);
  finalizeAll(job);
  check(job, [
    {
      kind: 'type-mismatch',
      ranks: [0, 1, 2],
      message: ['rank 1 sends 2 × MPI_FLOAT to rank 0, which expects 2 × MPI_INT from it'],
    },
  ]);
});

test('alltoall and allgather with MPI_IN_PLACE take the receive arguments as the send block', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    // sendcount and sendtype are ignored in place: give nonsense.
    r.call('MPI_Alltoall', {
      sendbuf: -1,
      sendcount: 99,
      sendtype: FLOAT,
      recvbuf: 0x200,
      recvcount: 2,
      recvtype: INT,
      comm: world(r),
    });
    r.call('MPI_Allgather', {
      sendbuf: -1,
      sendcount: 0,
      sendtype: 0,
      recvbuf: 0x300,
      recvcount: 1,
      recvtype: INT,
      comm: world(r),
    });
  }
  finalizeAll(job);
  check(job, []);
});

test('allgatherv: a rank contributing more than the others expect from it is a count-mismatch', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    r.call('MPI_Allgatherv', {
      sendbuf: 0x100,
      sendcount: r.rank === 1 ? 3 : r.rank + 1,
      sendtype: INT,
      recvbuf: 0x200,
      recvcounts: [1, 2],
      displs: [0, 1],
      recvtype: INT,
      comm: world(r),
    });
  }
  finalizeAll(job);
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['rank 1 sends 3 × MPI_INT'] }]);
});

test('reduce_scatter: recvcounts that differ between ranks are a count-mismatch', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    r.call('MPI_Reduce_scatter', {
      sendbuf: 0x100,
      recvbuf: 0x200,
      recvcounts: r.rank === 0 ? [1, 1] : [2, 0],
      datatype: INT,
      op: 3,
      comm: world(r),
    });
  }
  finalizeAll(job);
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['rank 1 passes [2,0]'] }]);
});

test('gather: a rank sending floats to a root that gathers ints is a type-mismatch', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    r.call('MPI_Gather', {
      sendbuf: 0x100,
      sendcount: 1,
      sendtype: r.rank === 1 ? FLOAT : INT,
      recvbuf: 0x200,
      recvcount: 1,
      recvtype: INT,
      root: 0,
      comm: world(r),
    });
  }
  finalizeAll(job);
  check(job, [
    { kind: 'type-mismatch', ranks: [0, 1, 2], message: ['rank 1 sends 1 × MPI_FLOAT to rank 0'] },
  ]);
});

function gather(r: Rank, scount: number, stype: number, rcount: number, rtype: number): void {
  r.call('MPI_Gather', {
    sendbuf: 0x100,
    sendcount: scount,
    sendtype: stype,
    recvbuf: 0x200,
    recvcount: rcount,
    recvtype: rtype,
    root: 0,
    comm: world(r),
  });
}

test('gather: ints sent to a root that gathers one double from each is a type-mismatch, not a count one', () => {
  const job = new Job(3);
  for (const r of job.ranks) gather(r, 1, INT, 1, DOUBLE);
  finalizeAll(job);
  check(job, [
    {
      kind: 'type-mismatch',
      ranks: [0, 1, 2],
      message: ['1 × MPI_DOUBLE from rank 1, which sends 1 × MPI_INT', 'as many elements'],
    },
  ]);
});

test('gather: a root whose own block alone has another type is one type-mismatch', () => {
  const job = new Job(2);
  for (const r of job.ranks) gather(r, 1, r.rank === 0 ? DOUBLE : INT, 1, INT);
  finalizeAll(job);
  check(job, [{ kind: 'type-mismatch', ranks: [0], message: ['from rank 0, which sends 1 × MPI_DOUBLE'] }]);
});

test('gather: other counts of another type stay a count-mismatch', () => {
  const job = new Job(2);
  for (const r of job.ranks) gather(r, 3, INT, 1, DOUBLE);
  finalizeAll(job);
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1],
      message: ['1 × MPI_DOUBLE from rank 1, which sends 3 × MPI_INT'],
    },
  ]);
});

test('bcast: as many doubles as the root sends ints is a type-mismatch; other counts a count-mismatch', () => {
  const typed = new Job(2);
  for (const r of typed.ranks) r.bcast(0, { count: 2, type: r.rank === 0 ? INT : DOUBLE });
  finalizeAll(typed);
  check(typed, [{ kind: 'type-mismatch', ranks: [0, 1], message: ['rank 1 uses 2 × MPI_DOUBLE'] }]);
  const counted = new Job(2);
  for (const r of counted.ranks)
    r.bcast(0, { count: r.rank === 0 ? 2 : 3, type: r.rank === 0 ? INT : DOUBLE });
  finalizeAll(counted);
  check(counted, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['rank 1 expects 3 × MPI_DOUBLE'] }]);
});

test('allgather: one rank sending a double where the others expect an int is a type-mismatch', () => {
  const job = new Job(3);
  for (const r of job.ranks)
    r.call('MPI_Allgather', {
      sendbuf: 0x100,
      sendcount: 1,
      sendtype: r.rank === 2 ? DOUBLE : INT,
      recvbuf: 0x200,
      recvcount: 1,
      recvtype: INT,
      comm: world(r),
    });
  finalizeAll(job);
  check(job, [
    { kind: 'type-mismatch', ranks: [0, 1, 2], message: ['rank 2 sends 1 × MPI_DOUBLE (8 bytes) to rank 0'] },
  ]);
});
