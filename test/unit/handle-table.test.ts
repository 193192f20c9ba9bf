/** The live-request table (model/handle-table.ts) against a Map: same answers and the same iteration order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HandleTable } from '../../server/src/engine/model/handle-table';
import { random } from './seeded-random';

test('HandleTable answers as a Map does, through sets, re-sets, deletes, growth and wrap-around', () => {
  for (const seed of [1, 2, 3, 4]) {
    const rnd = random(seed);
    const table = new HandleTable<{ n: number }>();
    const map = new Map<number, { n: number }>();
    // Pointer-like handles (Open MPI) and small ints (MPICH), from a small pool so that keys come back.
    const pool = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? 0x7f00_0000_0000 + i * 0x40 : 0x4400_0000 + i,
    );
    for (let step = 0; step < 20_000; step++) {
      const key = pool[Math.floor(rnd() * (step < 10_000 ? 40 : pool.length))] as number;
      const r = rnd();
      if (r < 0.5) {
        const v = { n: step };
        table.set(key, v);
        map.set(key, v);
      } else {
        assert.equal(table.delete(key), map.delete(key));
      }
      assert.equal(table.size, map.size);
      const probe = pool[Math.floor(rnd() * pool.length)] as number;
      assert.equal(table.get(probe), map.get(probe));
      assert.equal(table.has(probe), map.has(probe));
      if (step % 500 === 0) assert.deepEqual(table.values(), [...map.values()]);
    }
    assert.deepEqual(table.values(), [...map.values()]);
  }
});
