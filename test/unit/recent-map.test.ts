// RecentMap: the keys of the last `capacity` set() calls, minus those deleted or set again since.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentMap } from '../../server/src/engine/model/recent-map';

test('keeps the last capacity keys, the oldest dropped first', () => {
  const m = new RecentMap<string>(3);
  for (const k of [1, 2, 3, 4]) m.set(k, `v${k}`);
  assert.equal(m.size, 3);
  assert.equal(m.get(1), undefined);
  assert.deepEqual(
    [2, 3, 4].map((k) => m.get(k)),
    ['v2', 'v3', 'v4'],
  );
  // Large handle values (pointers) are keys like any other.
  m.set(0x7f12_3456_7890, 'p');
  assert.equal(m.get(0x7f12_3456_7890), 'p');
  assert.equal(m.has(2), false);
});

test('a key set again is as new as its last set; deleted keys are gone; dead slots are reused first', () => {
  const m = new RecentMap<number>(3);
  m.set(1, 10);
  m.set(2, 20);
  m.set(1, 11); // 1 moves to the newest slot; its old slot is dead
  m.set(3, 30); // takes 1's dead slot: nothing live is dropped
  assert.deepEqual([m.get(1), m.get(2), m.get(3)], [11, 20, 30]);
  m.set(4, 40); // the oldest live key, 2, goes
  assert.equal(m.get(2), undefined);
  assert.deepEqual([m.get(1), m.get(3), m.get(4)], [11, 30, 40]);
  m.delete(3);
  assert.equal(m.has(3), false);
  assert.equal(m.size, 2);
  m.set(5, 50); // the oldest slot holds 1 (set third): it goes
  assert.equal(m.get(1), undefined);
  m.set(6, 60); // the oldest slot held 3, deleted: nothing live is dropped
  assert.deepEqual([m.get(4), m.get(5), m.get(6)], [40, 50, 60]);
  assert.equal(m.size, 3);
});

test('agrees with a plain model over random sets and deletes (the table grows, wraps and shifts back)', () => {
  // The model: a key is held when its last set() is among the last `capacity` set() calls and no delete came after.
  let seed = 12345;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (const capacity of [1, 7, 64, 300]) {
    const m = new RecentMap<number>(capacity);
    const lastSet = new Map<number, { at: number; value: number }>();
    let sets = 0;
    for (let step = 0; step < 20000; step++) {
      // Keys that collide in the low bits, and pointer-sized ones.
      const key = rand(3) === 0 ? 0x7f00_0000_0000 + rand(40) * 4096 : rand(capacity * 3);
      if (rand(4) === 0) {
        m.delete(key);
        lastSet.delete(key);
      } else {
        m.set(key, step);
        lastSet.set(key, { at: sets++, value: step });
      }
      if (step % 97 === 0 || step > 19900) {
        let held = 0;
        for (const [k, v] of lastSet) {
          const want = v.at >= sets - capacity ? v.value : undefined;
          if (want !== undefined) held++;
          assert.equal(m.get(k), want, `capacity ${capacity}, step ${step}, key ${k}`);
        }
        assert.equal(m.size, held);
      }
    }
  }
});
