/** The pending-buffer index of the buffer-overlap check, against a walk of every span. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanIndex } from '../../server/src/engine/model/span-index';
import { findingsOf } from './engine-check';
import { Job } from './engine-dsl';
import { random } from './seeded-random';

test('SpanIndex finds exactly the spans that share a byte with the query, through adds and removes', () => {
  for (const seed of [1, 2, 3]) {
    const rnd = random(seed);
    const index = new SpanIndex();
    const live = new Map<number, [number, number, number]>();
    let next = 0;
    for (let step = 0; step < 4000; step++) {
      const r = rnd();
      if (r < 0.45 || live.size === 0) {
        // Mostly short spans, some long ones, many with equal starts.
        const from = Math.floor(rnd() * 200) * 8;
        const to = from + (rnd() < 0.1 ? Math.floor(rnd() * 800) : Math.floor(rnd() * 24)) + 1;
        const ord = index.add(from, to, next);
        live.set(next++, [from, to, ord]);
      } else if (r < 0.8) {
        const keys = [...live.keys()];
        const k = keys[Math.floor(rnd() * keys.length)] as number;
        const [from, , ord] = live.get(k) as [number, number, number];
        assert.equal(index.remove(from, ord, k), true);
        assert.equal(index.remove(from, ord, k), false, 'removed twice');
        live.delete(k);
      } else {
        const lo = Math.floor(rnd() * 1700);
        const hi = lo + Math.floor(rnd() * 40) + 1;
        const got: number[] = [];
        index.meeting(lo, hi, got);
        const want = [...live].filter(([, [a, b]]) => a < hi && lo < b).map(([k]) => k);
        assert.deepEqual(
          got.sort((x, y) => x - y),
          want.sort((x, y) => x - y),
          `seed ${seed} step ${step}`,
        );
      }
      assert.equal(index.size, live.size);
    }
  }
});

test('buffer overlap names the first pending request posted, not the lowest address, and forgets completed ones', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  if (r0 === undefined || r1 === undefined) throw new Error('two ranks');
  // Two sends of overlapping buffers (legal); the later one starts lower.
  const x = r0.isend(1, { buf: 0xa004, count: 4, site: 0x21 });
  const y = r0.isend(1, { buf: 0xa000, count: 4, site: 0x22 });
  // A receive into both: reported once, against the first posted (x).
  const z = r0.irecv(1, { buf: 0xa008, count: 2, tag: 1, site: 0x23 });
  r0.waitall([x, y, z]);
  // The same memory once they completed: nothing pending overlaps.
  r0.wait(r0.irecv(1, { buf: 0xa000, count: 4, tag: 2, site: 0x24 }));
  r1.recv(0, { count: 4 }).recv(0, { count: 4 }).send(0, { count: 2, tag: 1 }).send(0, { count: 4, tag: 2 });
  for (const r of job.ranks) r.finalize();
  for (const seed of [0, 1, 2]) {
    const overlaps = findingsOf(job, seed).filter((f) => f.kind === 'buffer-overlap');
    assert.deepEqual(
      overlaps.map((f) => f.locations.map((l) => l.site)),
      [[0x21, 0x23]],
      `seed ${seed}`,
    );
  }
});
