/**
 * A blocking send that reads the buffer of a pending receive of its rank (recv-buffer-read.ts): an error when the
 * message that fills the receive could arrive while the send reads, a warning when it was sent only after its
 * sender heard of this send (ScaLAPACK's BLACS combine operations do this), in every interleaving of the streams.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { findingsOf } from './engine-check';
import { Job } from './engine-dsl';

function finalizeAll(job: Job): void {
  for (const r of job.ranks) r.finalize();
}

const overlaps = (job: Job, seed: number) =>
  findingsOf(job, seed)
    .filter((f) => f.kind === 'buffer-overlap')
    .map((f) => ({ severity: f.severity, ranks: f.locations.map((l) => l.rank), message: f.message }));

test('the answer received into the buffer whose contribution was sent up a tree: a warning, not an error', () => {
  // Rank 1 posts the receive of the answer, sends its contribution from the same buffer to rank 0 and waits; rank
  // 0 sends the answer only once it has the contribution (through rank 2 for the second leg, so that the order is
  // known from the clocks, not from the pair alone).
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks;
  const ans = r1?.irecv(0, { buf: 0x9000, count: 4, tag: 9 }) ?? 0;
  r1?.send(2, { buf: 0x9000, count: 4, tag: 1 }).wait(ans);
  r2?.recv(1, { count: 4, tag: 1 }).send(0, { count: 4, tag: 1 });
  r0?.recv(2, { count: 4, tag: 1 }).send(1, { count: 4, tag: 9 });
  finalizeAll(job);
  for (const seed of [0, 1, 2, 3, 4]) {
    const got = overlaps(job, seed);
    assert.equal(got.length, 1, `seed ${seed}: ${JSON.stringify(got)}`);
    assert.equal(got[0]?.severity, 'warning');
    assert.deepEqual(got[0]?.ranks, [1, 1, 0]);
    assert.match(got[0]?.message ?? '', /MPI forbids any access to a pending receive's buffer/);
  }
});

test('a message sent without having heard of the send can arrive while it reads: an error', () => {
  // Rank 0 sends the message that fills rank 1's receive before (and without) receiving rank 1's send.
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  const x = r1?.irecv(0, { buf: 0x9000, count: 4, tag: 9 }) ?? 0;
  r1?.send(0, { buf: 0x9000, count: 4, tag: 1 }).wait(x);
  r0?.send(1, { count: 4, tag: 9 }).recv(1, { count: 4, tag: 1 });
  finalizeAll(job);
  for (const seed of [0, 1, 2, 3, 4]) {
    const got = overlaps(job, seed);
    assert.equal(got.length, 1, `seed ${seed}: ${JSON.stringify(got)}`);
    assert.equal(got[0]?.severity, 'error');
    assert.deepEqual(got[0]?.ranks, [1, 1]);
    assert.match(got[0]?.message ?? '', /the result depends on timing/);
  }
});

test('a receive never completed: the read of its buffer is the error it was', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  const x = r1?.irecv(0, { buf: 0x9000, count: 4, tag: 9 }) ?? 0;
  r1?.send(0, { buf: 0x9000, count: 4, tag: 1 });
  r0?.recv(1, { count: 4, tag: 1 });
  void x;
  finalizeAll(job);
  const got = overlaps(job, 0);
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0]?.severity, 'error');
});

test('one site pair: a warning first, then an error when a later instance depends on timing', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  // First round: rank 0 answers after receiving (ordered); second: it answers first (timing).
  const a = r1?.irecv(0, { buf: 0x9000, count: 4, tag: 9, site: 0x500 }) ?? 0;
  r1?.send(0, { buf: 0x9000, count: 4, tag: 1, site: 0x510 }).wait(a);
  r0?.recv(1, { count: 4, tag: 1 }).send(1, { count: 4, tag: 9 });
  const b = r1?.irecv(0, { buf: 0x9000, count: 4, tag: 9, site: 0x500 }) ?? 0;
  r1?.send(0, { buf: 0x9000, count: 4, tag: 1, site: 0x510 }).wait(b);
  r0?.send(1, { count: 4, tag: 9 }).recv(1, { count: 4, tag: 1 });
  finalizeAll(job);
  const got = overlaps(job, 0);
  // Both, the warning after the error: warnings are held to merge across ranks, and come at the end of the run.
  assert.deepEqual(
    got.map((f) => f.severity),
    ['error', 'warning'],
    JSON.stringify(got),
  );
});

test('a rank far ahead of the rank that answers it: thousands of overlaps waiting at once are judged, not errors', () => {
  // Rank 1's whole stream reaches the engine before rank 0's (the clock run then waits on every answer), as when
  // one rank's frames come long before another's. Beyond MAX_WAITING waiting at once, the instances of a pair of
  // sites that has one waiting are not judged.
  const job = new Job(2);
  const [r0, r1] = job.ranks as [NonNullable<(typeof job.ranks)[0]>, NonNullable<(typeof job.ranks)[1]>];
  for (let i = 0; i < 5000; i++) {
    const a = r1.irecv(0, { buf: 0x9000, count: 4, tag: 9, site: 0x500 });
    r1.send(0, { buf: 0x9000, count: 4, tag: 1, site: 0x510 }).wait(a);
    r0.recv(1, { count: 4, tag: 1 }).send(1, { count: 4, tag: 9 });
  }
  finalizeAll(job);
  const engine = createEngine({ ranks: 2 });
  for (const e of [...r1.events, ...r0.events]) engine.push(e);
  const got = [...engine.takeFindings(), ...engine.finish()].filter((f) => f.kind === 'buffer-overlap');
  assert.deepEqual(
    got.map((f) => f.severity),
    ['warning'],
    got.map((f) => f.message).join('\n'),
  );
});

test('the same ordered combine on several leaves is one warning, with each leaf and the rank that answered it', () => {
  // Ranks 1 and 2 each post the answer's receive and send their contribution from that buffer to rank 0, which
  // answers both only after it has heard of each send: the same call sites on two ranks, one finding.
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks;
  for (const leaf of [r1, r2]) {
    const a = leaf?.irecv(0, { buf: 0x9000, count: 4, tag: 9, site: 0x500 }) ?? 0;
    leaf?.send(0, { buf: 0x9000, count: 4, tag: 1, site: 0x510 }).wait(a);
  }
  r0?.recv(1, { count: 4, tag: 1 }).recv(2, { count: 4, tag: 1 });
  r0?.send(1, { count: 4, tag: 9, site: 0x520 }).send(2, { count: 4, tag: 9, site: 0x520 });
  finalizeAll(job);
  job.relocate();
  const got = overlaps(job, 0);
  assert.equal(got.length, 1, JSON.stringify(got));
  assert.equal(got[0]?.severity, 'warning');
  assert.match(got[0]?.message ?? '', /^On ranks 1, 2, an MPI_Send reads bytes/);
  assert.deepEqual(got[0]?.ranks, [1, 1, 0, 2, 2, 0]);
});
