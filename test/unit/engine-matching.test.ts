import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommRegistry } from '../../server/src/engine/model/comms';
import { createEngine } from '../../server/src/engine/engine';
import { Matcher } from '../../server/src/engine/point-to-point/matching';
import { nextOrder, type RecvOp, type SendOp } from '../../server/src/engine/model/ops';
import { functionNamed } from '../../server/src/protocol/spec';
import { check } from './engine-check';
import { ANY, BYTE, DOUBLE, FLOAT, INT, Job, type Rank } from './engine-dsl';

const comms = new CommRegistry(2);
const world = comms.lookup(0, 1);
const send = (tag: number, seq: number): SendOp => ({
  kind: 'send',
  order: nextOrder(),
  rank: 0,
  comm: world,
  fn: functionNamed('MPI_Send'),
  seq,
  site: 0,
  request: 0,
  reported: false,
  sentClock: -1,
  dest: 1,
  destCommRank: 1,
  srcCommRank: 0,
  tag,
  count: 1,
  dtype: undefined,
  matched: false,
  done: true,
  buf: NaN,
  doneOrder: -1,
});
const recv = (seq: number): RecvOp => ({
  kind: 'recv',
  order: nextOrder(),
  rank: 1,
  comm: world,
  fn: functionNamed('MPI_Recv'),
  seq,
  site: 0,
  request: 0,
  reported: false,
  sentClock: -1,
  source: ANY,
  tag: ANY,
  count: 1,
  dtype: undefined,
  done: false,
});

test('non-overtaking: a wildcard receive takes the oldest send of the tag it reports', () => {
  const pairs: [number, number][] = [];
  const m = new Matcher({ matched: (s, r) => void pairs.push([s.seq, r.seq]) });
  m.post(send(1, 10));
  m.post(send(2, 11));
  m.post(send(1, 12));
  m.complete(recv(20), 0, 2);
  m.complete(recv(21), 0, 1);
  m.complete(recv(22), 0, 1);
  assert.deepEqual(pairs, [
    [11, 20],
    [10, 21],
    [12, 22],
  ]);
  assert.equal([...m.unmatched()].length, 0);
});

test('a receive that completes before its send is seen waits for it', () => {
  const pairs: [number, number][] = [];
  const m = new Matcher({ matched: (s, r) => void pairs.push([s.seq, r.seq]) });
  m.complete(recv(30), 0, 7);
  m.post(send(8, 40)); // another tag: stays unmatched
  m.post(send(7, 41));
  assert.deepEqual(pairs, [[41, 30]]);
  assert.deepEqual(
    [...m.unmatched()].map((s) => s.seq),
    [40],
  );
});

test('a message sent and never received is reported at the end, at the send', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { tag: 7, site: 0xaaa });
  r0?.send(1, { tag: 7, site: 0xaaa });
  r0?.finalize();
  r1?.finalize({ site: 0xbbb });
  const [f] = check(job, [
    { kind: 'unmatched-message', ranks: [0], message: ['Rank 0 sent 2 messages (tag 7)', 'never received'] },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => l.site),
    [0xaaa],
  );
});

test('20,000 messages of as many tags never received: one finding that names eight tags and counts the rest', () => {
  // The finding listed every tag (a 200 KB message), and grouping the sends copied each group at every send.
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const hs: number[] = [];
  for (let tag = 0; tag < 20_000; tag++) hs.push(r0.isend(1, { tag, site: 0xaaa }));
  r0.waitall(hs).finalize();
  r1.finalize({ site: 0xbbb });
  const [f] = check(job, [
    {
      kind: 'unmatched-message',
      ranks: [0],
      message: [
        'Rank 0 sent 20000 messages (tag 0/tag 1/tag 2/tag 3/tag 4/tag 5/tag 6/tag 7/… 19992 more tags)',
      ],
    },
  ]);
  assert.ok((f?.message.length ?? 0) < 400);
});

test('a message with the wrong tag is paired with the receive that waited for it', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { tag: 7 });
  r1?.irecv(0, { tag: 8 });
  r0?.finalize();
  r1?.finalize();
  check(job, [
    {
      kind: 'message-mismatch',
      ranks: [0, 1],
      message: [
        'tag 7',
        'its tag does not match',
        'MPI_Irecv from rank 0, tag 8',
        'still pending at the end of the run',
      ],
    },
    { kind: 'resource-leak', ranks: [1], message: ['MPI_Irecv', 'MPI_Wait'] },
  ]);
});

test('a receive never satisfied is reported at the end', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r1?.irecv(0, { tag: 8 });
  r0?.finalize();
  r1?.finalize();
  check(job, [
    {
      kind: 'unmatched-message',
      ranks: [1],
      message: ["Rank 1's MPI_Irecv from rank 0, tag 8", 'never satisfied'],
    },
    { kind: 'resource-leak', ranks: [1], message: ['request', 'MPI_Irecv'] },
  ]);
});

test('the same message never received from every rank to every other is one finding, one location per sender', () => {
  // A library announcing its end to every rank with MPI_Send and never receiving those messages: n(n-1) pairs.
  const job = new Job(4);
  for (const r of job.ranks)
    for (const to of job.ranks)
      if (to.rank !== r.rank) r.send(to.rank, { tag: 424242, site: 0x500 + r.rank });
  for (const r of job.ranks) r.finalize();
  const [f] = check(job, [
    {
      kind: 'unmatched-message',
      ranks: [0, 1, 2, 3],
      message: [
        'Ranks 0,1,2,3 sent 12 messages (tag 424242) with MPI_Send',
        'to ranks 0,1,2,3',
        'never received',
      ],
    },
  ]);
  assert.deepEqual(
    f?.locations.map((l) => [l.rank, l.detail]),
    [0, 1, 2, 3].map((r) => [
      r,
      `MPI_Send to ranks ${[0, 1, 2, 3].filter((x) => x !== r).join(',')}, tag 424242 on MPI_COMM_WORLD (3 messages): never received`,
    ]),
  );
});

test('the same receive left unsatisfied on several ranks is one finding', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks;
  r1?.irecv(0, { tag: 8 });
  r2?.irecv(0, { tag: 8 });
  for (const r of [r0, r1, r2]) r?.finalize();
  check(job, [
    {
      kind: 'unmatched-message',
      ranks: [1, 2],
      message: ['2 receives (MPI_Irecv, tag 8 on MPI_COMM_WORLD) of ranks 1,2 were never satisfied'],
    },
    { kind: 'resource-leak', ranks: [1, 2], message: ['requests', 'MPI_Irecv'] },
  ]);
});

test('calls before MPI_Init, and ranks that never finalize', () => {
  const job = new Job(2, false);
  const [r0, r1] = job.ranks;
  r0?.call('MPI_Comm_size', { comm: 100, size: 0 });
  r0?.init();
  r1?.init();
  r0?.end('exit-without-finalize');
  r1?.end('exit-without-finalize');
  check(job, [
    { kind: 'call-order', ranks: [0], message: ['before MPI_Init'] },
    { kind: 'call-order', ranks: [0, 1], message: ['without calling MPI_Finalize'] },
  ]);
});

test('truncation: a message longer than the receive buffer', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 8 });
  r1?.recv(0, { count: 4 });
  r0?.finalize();
  r1?.finalize();
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1],
      message: ['sends 8 × MPI_INT (32 bytes)', 'room for 4 × MPI_INT (16 bytes)', 'truncated'],
    },
  ]);
});

test('as many elements of another, wider type: a type-mismatch, not a truncation', () => {
  // 1 × MPI_DOUBLE into room for 1 × MPI_INT: the bytes differ only because the types do.
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 1, type: DOUBLE });
  r1?.recv(0, { count: 1, type: FLOAT });
  r0?.finalize();
  r1?.finalize();
  check(job, [
    {
      kind: 'type-mismatch',
      ranks: [0, 1],
      message: ['sends 1 × MPI_DOUBLE', 'receives 1 × MPI_FLOAT (8 bytes into 4', 'element 0 is MPI_DOUBLE'],
    },
  ]);
});

test('more elements of another type than the receive holds: still a count-mismatch', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 2, type: DOUBLE });
  r1?.recv(0, { count: 1, type: INT });
  r0?.finalize();
  r1?.finalize();
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['truncated'] }]);
});

test('a truncating receive that MPI failed still took its message, whichever stream arrives first', () => {
  // MPICH under MPI_ERRORS_RETURN: MPI_Recv returns MPI_ERR_TRUNCATE and the shim has no status, so the
  // receive's envelope says which message it consumed — also when the sender's stream lags behind.
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 8 });
  r1?.recv(0, { count: 4, error: 15 });
  r0?.finalize();
  r1?.finalize();
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['truncated'] }]);
});

test('type mismatch: ints received as floats; bytes match anything', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 4 });
  r1?.recv(0, { count: 4, type: FLOAT });
  r0?.send(1, { count: 4, tag: 1 });
  r1?.recv(0, { count: 16, type: BYTE, tag: 1 });
  r0?.send(1, { count: 2, tag: 2 });
  r1?.recv(0, { count: 4, tag: 2 }); // shorter message into a larger buffer: fine
  r0?.finalize();
  r1?.finalize();
  check(job, [
    {
      kind: 'type-mismatch',
      ranks: [0, 1],
      message: ['element 0 is MPI_INT on the sender and MPI_FLOAT on the receiver'],
    },
  ]);
});

test('a call after MPI_Finalize (the shim keeps recording after END)', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.finalize();
  r0?.call('MPI_Comm_rank', { comm: 100, rank: 0 });
  r1?.finalize();
  check(job, [
    { kind: 'call-order', ranks: [0], message: ['Rank 0 calls MPI_Comm_rank after MPI_Finalize'] },
  ]);
});

test('records lost: no end-of-run findings built on them, and no buffer overlap on the rank that lost them', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  // Rank 1's MPI_Wait completed its receive, but its three records were dropped by the shim (ring full).
  const h = r1.irecv(0, { buf: 0x9000, count: 4 });
  r1.wait(h);
  r1.events.splice(-3, 3, { type: 'lost', rank: 1, seq: 0, time: 0, count: 3 });
  r1.wait(r1.irecv(0, { buf: 0x9000, count: 4, tag: 1 })); // the buffer is free again
  r0.send(1, { count: 4 }).send(1, { count: 4, tag: 1 });
  r0.finalize();
  r1.finalize();
  const engine = createEngine({ ranks: 2 });
  for (const e of job.interleave(0)) engine.push(e);
  assert.equal(engine.lostRecords(), 3);
  check(job, []);
});

test('records lost: a collective call lost with them is not a collective mismatch', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  r0.barrier().allreduce().finalize();
  r2.barrier().allreduce().finalize();
  // Rank 1's MPI_Barrier records were dropped; the LOST record comes after its next call, in the same frame.
  r1.barrier();
  r1.events.splice(-2, 2);
  r1.allreduce();
  r1.events.push({ type: 'lost', rank: 1, seq: 0, time: 0, count: 2 });
  r1.finalize();
  check(job, []);
});
