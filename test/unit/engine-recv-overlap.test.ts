/**
 * Two or more pending receives of one rank into the same bytes (recv-overlap.ts): a warning when every message is
 * a copy of the same bytes (one sender, one buffer, each send posted while the earlier ones were pending) and lands
 * alike, else an error. MPICH's dtype_send test (MPI-CorrBench's pt2pt/dtype_send.c) posts 128 receives into one
 * buffer, all answered by ready sends from one buffer: the third receive over the bytes was reported at once as a
 * timing-dependent error, before its message was known.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findingsOf } from './engine-check';
import { Job } from './engine-dsl';

const overlaps = (job: Job, seed: number) =>
  findingsOf(job, seed)
    .filter((f) => f.kind === 'buffer-overlap')
    .map((f) => ({ severity: f.severity, message: f.message }));

/** Rank 1 posts `n` receives into one buffer; rank 0 sends them from `bufs(i)`, all pending until one Waitall. */
function manyInto(n: number, bufs: (i: number) => number): Job {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [NonNullable<(typeof job.ranks)[0]>, NonNullable<(typeof job.ranks)[1]>];
  const recvs: number[] = [];
  for (let i = 0; i < n; i++) recvs.push(r1.irecv(0, { buf: 0x9000, count: 4, tag: 5, site: 0x500 }));
  r1.waitall(recvs).finalize();
  const sends: number[] = [];
  for (let i = 0; i < n; i++) sends.push(r0.isend(1, { buf: bufs(i), count: 4, tag: 5, site: 0x600 }));
  r0.waitall(sends).finalize();
  return job;
}

test('many receives into one buffer, every message the same bytes from one buffer: one warning, no error', () => {
  for (const n of [2, 3, 8]) {
    const job = manyInto(n, () => 0x4000);
    for (const seed of [0, 1, 2, 3]) {
      const got = overlaps(job, seed);
      assert.deepEqual(
        got.map((f) => f.severity),
        ['warning'],
        `${n} receives, seed ${seed}: ${JSON.stringify(got)}`,
      );
      assert.match(got[0]?.message ?? '', /copies of the same bytes/);
    }
  }
});

test('many receives into one buffer, the third message from another buffer: an error', () => {
  const job = manyInto(3, (i) => (i === 2 ? 0x4800 : 0x4000));
  for (const seed of [0, 1, 2, 3]) {
    const got = overlaps(job, seed);
    assert.ok(
      got.some((f) => f.severity === 'error' && /depends on timing/.test(f.message)),
      `seed ${seed}: ${JSON.stringify(got)}`,
    );
  }
});
