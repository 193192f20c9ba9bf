// Data checks of collectives where every member sends to every other (allgather, alltoall and their v/w
// variants), reduce_scatter's recvcounts, and the rooted collectives' type signatures.
import { test } from 'node:test';
import { check } from './engine-check';
import { FLOAT, INT, Job, type Rank } from './engine-dsl';

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
