/** invalid-argument: buffered sends that together overflow the attached buffer (bsend-space.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionNamed } from '../../server/src/protocol/spec';
import { PendingSpace } from '../../server/src/engine/point-to-point/pending-space';
import { check, findingsOf } from './engine-check';
import { Job, type Opts, type Rank } from './engine-dsl';

/** One message of the tests: 100 ints, as Open MPI counts it (MPI_Pack_size 400 + MPI_BSEND_OVERHEAD 128). */
const MSG = 400 + 128;
const BSEND_SITE = 0xb5;

function attach(r: Rank, size: number): void {
  r.call('MPI_Buffer_attach', { buffer: 0x90000, size });
}

function detach(r: Rank): void {
  r.call('MPI_Buffer_detach', { buffer_addr: 0, size: 0 });
}

/** The shim's BSEND record goes right after the call's ENTER. */
function withBytes(r: Rank, seq: number, name: string, bytes: number): void {
  const i = r.events.findIndex((e) => e.type === 'enter' && e.seq === seq);
  r.events.splice(i + 1, 0, {
    type: 'bsend',
    rank: r.rank,
    seq,
    time: 0,
    fn: functionNamed(name),
    bytes,
    packed: bytes - 128,
  });
}

function bsend(r: Rank, dest: number, o: Opts = {}, bytes = MSG): void {
  const args = { buf: 0x50000, count: 100, datatype: 7, dest, tag: o.tag ?? 0, comm: r.handle('world') };
  const seq = r.call('MPI_Bsend', args, { site: BSEND_SITE, ...o });
  withBytes(r, seq, 'MPI_Bsend', bytes);
}

test('a loop of Bsends beyond the attached buffer before the receiver takes them: one finding at the first overflow', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, 2 * MSG);
  for (let i = 0; i < 4; i++) bsend(r0, 1, { tag: i });
  detach(r0);
  r0.finalize();
  for (let i = 0; i < 4; i++) r1.recv(0, { tag: i, count: 100 });
  r1.finalize();
  const [f] = check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0],
      message: [
        `needs ${3 * MSG} bytes of attached buffer`,
        `${MSG} for its message`,
        '2 earlier buffered messages not yet known to be received',
        `Only ${2 * MSG} bytes are attached`,
        'wait until the receiver has them',
      ],
      details: [`MPI_Bsend needs ${3 * MSG} bytes with 2 messages pending, ${2 * MSG} attached`],
    },
  ]);
  assert.equal(f?.locations[0]?.site, BSEND_SITE);
});

test('a ping-pong that Bsends again only after the reply stays silent with room for one message', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, MSG);
  attach(r1, MSG);
  for (let i = 0; i < 3; i++) {
    bsend(r0, 1);
    r0.recv(1, { count: 100 });
    r1.recv(0, { count: 100 });
    bsend(r1, 0);
  }
  detach(r0);
  detach(r1);
  r0.finalize();
  r1.finalize();
  check(job, []);
});

test('a reply sent before the receive does not free the buffer: that is still an overflow', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, MSG);
  bsend(r0, 1);
  r0.recv(1, { tag: 9 });
  bsend(r0, 1);
  detach(r0);
  r0.finalize();
  // Rank 1 answers first and receives afterwards: rank 0 cannot know that its first message has left.
  r1.send(0, { tag: 9 }).recv(0, { count: 100 }).recv(0, { count: 100 }).finalize();
  check(job, [
    { kind: 'invalid-argument', ranks: [0], message: ['1 earlier buffered message not yet known'] },
  ]);
});

test('enough space for every message, or a detach between them: silent', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, 4 * MSG);
  for (let i = 0; i < 4; i++) bsend(r0, 1);
  detach(r0);
  // MPI_Buffer_detach waits until the messages have left: a new buffer starts empty.
  attach(r0, MSG);
  bsend(r0, 1);
  detach(r0);
  attach(r0, MSG);
  bsend(r0, 1);
  detach(r0);
  r0.finalize();
  for (let i = 0; i < 6; i++) r1.recv(0, { count: 100 });
  r1.finalize();
  check(job, []);
});

test('a message too large on its own is the shim’s finding, not this one, and takes no space', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, MSG);
  bsend(r0, 1, {}, 10 * MSG);
  bsend(r0, 1);
  detach(r0);
  r0.finalize();
  r1.recv(0, { count: 100 }).recv(0, { count: 100 }).finalize();
  check(job, []);
});

test('the same overflowing call site on several ranks is one finding with a location per rank', () => {
  const job = new Job(3);
  for (const r of job.ranks) attach(r, MSG);
  for (const r of job.ranks) for (let i = 0; i < 3; i++) bsend(r, (r.rank + 1) % 3);
  for (const r of job.ranks) for (let i = 0; i < 3; i++) r.recv((r.rank + 2) % 3, { count: 100 });
  for (const r of job.ranks) detach(r);
  for (const r of job.ranks) r.finalize();
  // Each process has its own addresses: the SITE records tell that the three Bsends are one line.
  job.relocate();
  check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0, 1, 2],
      message: ["Rank 0's MPI_Bsend (and at the same call on ranks 1,2) needs"],
    },
  ]);
});

test('a Bsend MPI failed takes no space afterwards; Ibsend and the Start of a Bsend_init count as well', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  attach(r0, 2 * MSG);
  bsend(r0, 1, { site: 0xa1 });
  // MPI refused the second, larger message (MPI_ERR_BUFFER under MPI_ERRORS_RETURN): reported at its call.
  bsend(r0, 1, { site: 0xa2, error: 15, tag: 5 }, 2 * MSG);
  // Fits beside the first one only because the refused one is not in the buffer.
  const args = {
    buf: 0x50000,
    count: 100,
    datatype: 7,
    dest: 1,
    tag: 0,
    comm: r0.handle('world'),
    request: 0,
  };
  withBytes(r0, r0.call('MPI_Ibsend', args, { site: 0xa3 }, [], { request: 0x71 }), 'MPI_Ibsend', MSG);
  r0.call('MPI_Wait', { request: 0x71, status: 0 }, {}, [[0x71, 0, 0]]);
  withBytes(
    r0,
    r0.call('MPI_Bsend_init', args, { site: 0xa4 }, [], { request: 0x72 }),
    'MPI_Bsend_init',
    MSG,
  );
  r0.call('MPI_Start', { request: 0x72 }, { site: 0xa5 });
  r0.call('MPI_Wait', { request: 0x72, status: 0 }, {}, [[0x72, 0, 0]]);
  r0.call('MPI_Request_free', { request: 0x72 });
  detach(r0);
  r0.finalize();
  for (let i = 0; i < 3; i++) r1.recv(0, { count: 100 });
  r1.finalize();
  const got = findingsOf(job, 0);
  assert.deepEqual(
    got.map((f) => [f.kind, f.locations.map((l) => [l.call, l.site])]),
    [
      ['invalid-argument', [['MPI_Bsend', 0xa2]]],
      ['invalid-argument', [['MPI_Start', 0xa5]]],
    ],
  );
});

test('a receive learned through MPI_Ibarrier, or taken with MPI_Mprobe, frees the space too', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const ibarrier = (r: Rank, h: number) => {
    r.call('MPI_Ibarrier', { comm: r.handle('world'), request: 0 }, {}, [], { request: h });
    r.wait(h);
  };
  attach(r0, MSG);
  bsend(r0, 1);
  ibarrier(r0, 0x81);
  bsend(r0, 1, { tag: 1 });
  r0.recv(1, { tag: 2 });
  bsend(r0, 1, { tag: 3 });
  detach(r0);
  r0.finalize();
  r1.recv(0, { count: 100 });
  ibarrier(r1, 0x82);
  // The second message is taken by a matched probe; the reply is sent after it.
  const comm = r1.handle('world');
  r1.call('MPI_Mprobe', { source: 0, tag: 1, comm, message: 0, status: 0 }, {}, [[0, 0, 1]], {
    message: 0x91,
  });
  r1.call('MPI_Mrecv', { buf: 0x60000, count: 100, datatype: 7, message: 0x91, status: 0 });
  r1.send(0, { tag: 2 }).recv(0, { tag: 3, count: 100 }).finalize();
  check(job, []);
});

test('pending space: messages leave in the order their receives completed, never-received ones stay', () => {
  const p = new PendingSpace();
  // Receiver 1 completed these receives at its clock times 5, 1, 3 (told after they were added, as the clock
  // run reaches them); the fourth was never received; the fifth's send failed (withdrawn).
  const times = [5, 1, 3];
  const entries = [10, 20, 40, 80].map((bytes) => p.add(1, bytes));
  entries.slice(0, 3).forEach((e, i) => p.received(e, times[i] as number));
  p.received(p.add(2, 160), 2);
  p.withdraw(p.add(2, 320));
  p.prune(Int32Array.from([0, 3, 0]));
  assert.deepEqual([p.count, p.bytes], [3, 10 + 80 + 160]);
  p.prune(Int32Array.from([0, 9, 2]));
  assert.deepEqual([p.count, p.bytes], [1, 80]);
});
