/** request-misuse: stale handle copies, active requests started or freed; and the legal uses that look alike. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, findingsOf } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

/** MPI_Isend with a chosen request handle (MPI reuses handle values). */
function isendAs(r: Rank, h: number, dest: number, buf = 0x9000): void {
  r.call(
    'MPI_Isend',
    { buf, count: 1, datatype: INT, dest, tag: 0, comm: r.handle('world'), request: 0 },
    {},
    [],
    { request: h },
  );
}

function recvInit(r: Rank, h: number, source: number): void {
  r.call(
    'MPI_Recv_init',
    { buf: 0x9100, count: 1, datatype: INT, source, tag: 0, comm: r.handle('world'), request: 0 },
    {},
    [],
    { request: h },
  );
}

test('a second MPI_Wait on a copy of a completed request handle is request-misuse at that Wait', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const h = r0.isend(1);
  r0.wait(h);
  r0.wait(h, { site: 0xbad });
  r0.finalize();
  r1.recv(0).finalize();
  check(job, [
    {
      kind: 'request-misuse',
      ranks: [0],
      message: ['MPI_Wait on a request that already completed in MPI_Wait', 'stale copy'],
    },
  ]);
});

test('MPI_Cancel, MPI_Test and MPI_Request_free on stale copies: one finding per call site', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const h = r1.irecv(0);
  r1.waitall([h]);
  r1.call('MPI_Cancel', { request: h });
  r1.call('MPI_Test', { request: h, flag: 0, status: 0 }, {}, [], { flag: 1 });
  const g = r1.isend(0);
  r1.call('MPI_Request_free', { request: g });
  r1.call('MPI_Request_free', { request: g });
  r1.finalize();
  r0.send(1).recv(1).finalize();
  // Three findings of one kind on one rank: check() tells them apart by count, the messages here.
  check(job, [
    { kind: 'request-misuse', ranks: [1] },
    { kind: 'request-misuse', ranks: [1] },
    { kind: 'request-misuse', ranks: [1] },
  ]);
  assert.deepEqual(
    findingsOf(job, 0).map((f) => f.locations[0]?.detail),
    [
      'MPI_Cancel on a request that already completed in MPI_Waitall',
      'MPI_Test on a request that already completed in MPI_Waitall',
      'MPI_Request_free on a request that was freed by MPI_Request_free',
    ],
  );
});

test('a handle MPI hands out again is a new request, not a stale copy', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  isendAs(r0, 0x55, 1);
  r0.call('MPI_Wait', { request: 0x55, status: 0 }, {}, [[0x55, 0, 0]]);
  isendAs(r0, 0x55, 1, 0x9800);
  r0.call('MPI_Wait', { request: 0x55, status: 0 }, {}, [[0x55, 0, 0]]);
  r0.finalize();
  r1.recv(0).recv(0).finalize();
  check(job, []);
});

test('persistent requests: waiting on an inactive one and freeing it after completion are legal', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  recvInit(r1, 0x66, 0);
  for (let i = 0; i < 2; i++) {
    r1.call('MPI_Start', { request: 0x66 });
    r1.call('MPI_Wait', { request: 0x66, status: 0 }, {}, [[0x66, 0, 0]]);
  }
  r1.call('MPI_Wait', { request: 0x66, status: 0 });
  r1.call('MPI_Request_free', { request: 0x66 });
  r1.call('MPI_Wait', { request: 0, status: 0 });
  r1.finalize();
  r0.send(1).send(1).finalize();
  check(job, []);
});

test('starting an active persistent request, and freeing it afterwards, is request-misuse at the second Start only', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  recvInit(r1, 0x66, 0);
  r1.call('MPI_Start', { request: 0x66 });
  r1.call('MPI_Start', { request: 0x66 }, { site: 0xbad });
  r1.call('MPI_Wait', { request: 0x66, status: 0 }, {}, [[0x66, 0, 0]]);
  r1.call('MPI_Request_free', { request: 0x66 });
  r1.finalize();
  r0.send(1).finalize();
  check(job, [{ kind: 'request-misuse', ranks: [1], message: ['still active'] }]);
});

test('freeing an active receive request is request-misuse (warning); the message is still received', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const h = r1.irecv(0);
  r1.call('MPI_Request_free', { request: h });
  r1.barrier().finalize();
  r0.send(1).barrier().finalize();
  check(job, [{ kind: 'request-misuse', ranks: [1], message: ['frees the request of an MPI_Irecv'] }]);
});

/** An MPI_Isend MPI completed at once and handed out as a shared request (MPICH's builtin handles): the shim
 * reports it complete under a made-up id before the EXIT, and as DONE_REQUEST (1) wherever it appears later. */
let madeUp = 0;
function isendDone(r: Rank, dest: number, tag: number): void {
  const id = 2 ** 62 + ++madeUp * 2 ** 32;
  const args = {
    buf: 0x8000 + tag * 64,
    count: 1,
    datatype: INT,
    dest,
    tag,
    comm: r.handle('world'),
    request: 0,
  };
  r.call('MPI_Isend', args, {}, [[id, -1, -1]], { request: id });
}
const DONE = 1;

test('requests made complete: a Wait on their DONE word consumes them, no leak', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  for (const tag of [0, 1, 2]) isendDone(r0, 1, tag);
  r0.waitall([DONE, DONE, DONE]);
  for (const tag of [0, 1, 2]) r1.recv(0, { tag });
  r0.finalize();
  r1.finalize();
  check(job, []);
});

test('MPI_REQUEST_NULL (0) in a Waitall array is not a request made complete: that one still leaks', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  isendDone(r0, 1, 5); // never waited for
  const h = r0.irecv(1, { tag: 6 });
  r0.waitall([0, h]); // slot 0 was completed (and nulled) earlier, e.g. by a Waitany
  r1.recv(0, { tag: 5 });
  r1.send(0, { tag: 6 });
  r0.finalize();
  r1.finalize();
  check(job, [{ kind: 'resource-leak', ranks: [0] }]);
});

test('requests leaked by one call site on one rank: one location that counts them', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const args = {
    buf: 0x9000,
    count: 1,
    datatype: INT,
    dest: 1,
    tag: 0,
    comm: r0.handle('world'),
    request: 0,
  };
  for (const h of [0x7101, 0x7102, 0x7103]) r0.call('MPI_Isend', args, { site: 0x77 }, [], { request: h });
  for (let i = 0; i < 3; i++) r1.recv(0);
  r0.finalize();
  r1.finalize();
  check(job, [
    {
      kind: 'resource-leak',
      ranks: [0],
      message: ['3 requests created by MPI_Isend', 'Complete them with MPI_Wait'],
      details: ['3 requests of MPI_Isend never completed'],
    },
  ]);
});

function sendInit(r: Rank, h: number, dest: number, tag: number): void {
  r.call(
    'MPI_Send_init',
    { buf: 0x9200, count: 1, datatype: INT, dest, tag, comm: r.handle('world'), request: 0 },
    { site: 0x5e1 },
    [],
    { request: h },
  );
}

test('a receive a deadlock holds, whose sender never started its persistent send: request-misuse at both', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  sendInit(r0, 0x77, 1, 4);
  // Waiting on the inactive request returns at once; rank 0 goes on to wait for rank 1's answer.
  r0.call('MPI_Wait', { request: 0x77, status: 0 });
  r0.recv(1, { tag: 5, hang: true });
  r1.recv(0, { tag: 4, hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ["Rank 0's persistent send to rank 1 (MPI_Send_init) was never started"],
    },
    {
      kind: 'request-misuse',
      ranks: [0, 1],
      message: ["Rank 0's persistent send (MPI_Send_init to rank 1, tag 4) was never started"],
      details: ['never started', 'never satisfied'],
    },
  ]);
});

test('a persistent send started once and not again is not reported as never started', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  sendInit(r0, 0x77, 1, 4);
  r0.call('MPI_Start', { request: 0x77 });
  r0.call('MPI_Wait', { request: 0x77, status: 0 }, {}, [[0x77, 0, 0]]);
  r0.call('MPI_Request_free', { request: 0x77 });
  r0.finalize();
  r1.recv(0, { tag: 4 }).recv(0, { tag: 4, hang: true });
  check(job, [{ kind: 'deadlock', ranks: [1, 0] }]);
});

test('20,000 requests pending on one buffer, completed by one MPI_Waitall, are checked like a handful', () => {
  // Each completion scanned every pending request of the same buffer and shifted the rest (SpanIndex): 200,000
  // took minutes. Now O(log n) each; the findings must stay those of a short exchange: none.
  const n = 20_000;
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const sends: number[] = [];
  const recvs: number[] = [];
  for (let i = 0; i < n; i++) sends.push(r0.isend(1));
  for (let i = 0; i < n; i++) recvs.push(r1.irecv(0));
  r0.waitall(sends).finalize();
  r1.waitall(recvs).finalize();
  check(job, []);
});
