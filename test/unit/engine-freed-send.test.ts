/** buffer-overlap: receiving into the buffer of a send whose request was freed while active (freed-send-reuse.ts). */
import { test } from 'node:test';
import { check } from './engine-check';
import { Job, type Rank } from './engine-dsl';

const BUF = 0x80000;

/** MPI_Isend of BUF to `dest`, then MPI_Request_free of its active request. */
function isendAndFree(r: Rank, dest: number, tag = 0): void {
  const h = r.isend(dest, { buf: BUF, tag, site: 0xe0 });
  r.call('MPI_Request_free', { request: h });
}

test('a receive into a freed send’s buffer before the message is known received is a buffer-overlap', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  isendAndFree(r0, 1);
  // The reply lands where the first message may still be read from.
  r0.recv(1, { buf: BUF, tag: 1 }).finalize();
  r1.recv(0).send(0, { tag: 1 }).finalize();
  check(job, [
    {
      kind: 'buffer-overlap',
      ranks: [0, 0],
      message: ['frees the request of an active MPI_Isend', 'with nothing telling the rank'],
      details: ['MPI_Isend whose request was freed while active', 'MPI_Recv writes 4 bytes'],
    },
  ]);
});

test('after a reply that the receiver sent once it had the message, or a barrier after it, the buffer is free', () => {
  const reply = new Job(2);
  const [a0, a1] = reply.ranks as [Rank, Rank];
  isendAndFree(a0, 1);
  a0.recv(1, { tag: 1 }).recv(1, { buf: BUF, tag: 2 }).finalize();
  a1.recv(0).send(0, { tag: 1 }).send(0, { tag: 2 }).finalize();
  check(reply, []);

  const barrier = new Job(2);
  const [b0, b1] = barrier.ranks as [Rank, Rank];
  isendAndFree(b0, 1);
  b0.barrier().recv(1, { buf: BUF, tag: 1 }).finalize();
  b1.recv(0).barrier().send(0, { tag: 1 }).finalize();
  check(barrier, []);
});

test('a freed send never received, then a receive into its buffer: buffer-overlap and unmatched-message', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  isendAndFree(r0, 1, 5);
  r0.recv(1, { buf: BUF, tag: 1 }).finalize();
  r1.send(0, { tag: 1 }).finalize();
  check(job, [
    { kind: 'buffer-overlap', ranks: [0, 0], message: ['while the message is never received'] },
    { kind: 'unmatched-message', ranks: [0] },
  ]);
});

test('the same reuse on every rank, in a loop, is one finding with the two calls of each rank', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    const peer = 1 - r.rank;
    for (let i = 0; i < 3; i++) {
      isendAndFree(r, peer, i);
      r.recv(peer, { buf: BUF, tag: i, site: 0xe1 });
    }
    r.finalize();
  }
  job.relocate();
  check(job, [{ kind: 'buffer-overlap', ranks: [0, 0, 1, 1], message: ['Ranks 0,1 free the request'] }]);
});

test('a send MPI completed at once (MPICH’s small messages) and freed counts too; MPI_Request_get_status clears it', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  // The shim reports such a request complete before the Isend returns, under a made-up id, and as
  // DONE_REQUEST (1) later.
  const id = 2 ** 62 + 1;
  const args = { buf: BUF, count: 1, datatype: 7, dest: 1, tag: 0, comm: r0.handle('world'), request: 0 };
  r0.call('MPI_Isend', args, { site: 0xe0 }, [[id, 0, 0]], { request: id });
  r0.call('MPI_Request_free', { request: 1 });
  r0.recv(1, { buf: BUF, tag: 1 }).finalize();
  r1.recv(0).send(0, { tag: 1 }).finalize();
  check(job, [
    { kind: 'buffer-overlap', ranks: [0, 0], message: ['frees the request of an active MPI_Isend'] },
  ]);

  const known = new Job(2);
  const [k0, k1] = known.ranks as [Rank, Rank];
  const h = k0.isend(1, { buf: BUF });
  k0.call('MPI_Request_get_status', { request: h, flag: 0, status: 0 }, {}, [], { flag: 1 });
  k0.call('MPI_Request_free', { request: h });
  k0.recv(1, { buf: BUF, tag: 1 }).finalize();
  k1.recv(0).send(0, { tag: 1 }).finalize();
  check(known, []);
});
