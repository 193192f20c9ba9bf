// MPI-4 persistent collectives: the initialization (MPI_Bcast_init…) is the collective call the members match, in
// the order of their other collectives, with its function, root, counts, types and op checked at once.
import { test } from 'node:test';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

const REQ = 0x7000;

function bcastInit(r: Rank, root: number, count = 4): void {
  r.call(
    'MPI_Bcast_init',
    { buffer: 0x100, count, datatype: INT, root, comm: r.handle('world'), info: 0, request: 0 },
    {},
    [],
    { request: REQ + r.rank },
  );
}

function allreduceInit(r: Rank, count: number): void {
  r.call(
    'MPI_Allreduce_init',
    {
      sendbuf: 0x100,
      recvbuf: 0x200,
      count,
      datatype: INT,
      op: 3,
      comm: r.handle('world'),
      info: 0,
      request: 0,
    },
    {},
    [],
    { request: REQ + 10 + r.rank },
  );
}

function startWaitFree(r: Rank, request: number): void {
  r.call('MPI_Start', { request });
  r.call('MPI_Wait', { request, status: 0 }, {}, [[request, -2, -1]]);
  r.call('MPI_Request_free', { request });
}

test('persistent collectives initialized alike, around a blocking collective, and started: silent', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    bcastInit(r, 1);
    r.barrier();
    allreduceInit(r, 2);
    startWaitFree(r, REQ + r.rank);
    startWaitFree(r, REQ + 10 + r.rank);
    r.finalize();
  }
  check(job, []);
});

test('MPI_Bcast_init with different roots is a collective-mismatch at the initialization', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    bcastInit(r, r.rank);
    startWaitFree(r, REQ + r.rank);
    r.finalize();
  }
  check(job, [{ kind: 'collective-mismatch', ranks: [0, 1], message: ['MPI_Bcast_init with root'] }]);
});

test('one rank initializing an allreduce where the other initializes a broadcast is a collective-mismatch', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    if (r.rank === 0) allreduceInit(r, 1);
    else bcastInit(r, 0, 1);
    r.call('MPI_Request_free', { request: REQ + (r.rank === 0 ? 10 : 0) + r.rank });
    r.finalize();
  }
  check(job, [
    { kind: 'collective-mismatch', ranks: [0, 1], message: ['MPI_Allreduce_init', 'MPI_Bcast_init'] },
  ]);
});

test('MPI_Allreduce_init with different counts is a count-mismatch at the initialization', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    allreduceInit(r, r.rank + 1);
    r.call('MPI_Request_free', { request: REQ + 10 + r.rank });
    r.finalize();
  }
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['MPI_Allreduce_init'] }]);
});
