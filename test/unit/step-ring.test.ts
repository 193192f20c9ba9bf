/** The causal runs' step ring (causal-order/steps.ts): order kept across wrap-around and growth, truncate. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COLL,
  POST,
  StepRing,
  WAIT,
  type StepItem,
  type StepKind,
} from '../../server/src/engine/causal-order/steps';

const item = (n: number): StepItem => ({ comm: {} as never, index: n, site: 0, call: '' });

function drain(ring: StepRing): [StepKind, number][] {
  const out: [StepKind, number][] = [];
  for (let it = ring.firstItem(); it !== undefined; it = ring.firstItem()) {
    out.push([ring.firstKind(), (it as { index: number }).index]);
    ring.shift();
  }
  return out;
}

test('steps leave in the order they came, across wrap-around and growth', () => {
  const ring = new StepRing();
  const kinds: StepKind[] = [POST, WAIT, COLL];
  const want: [StepKind, number][] = [];
  let next = 0;
  // Interleaved pushes and shifts so that the head moves and the ring wraps before it grows (16 slots first).
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 7 + (round % 5) * 3; i++) {
      const k = kinds[next % 3] as StepKind;
      ring.push(k, item(next));
      want.push([k, next++]);
    }
    const take = 5 + (round % 4);
    for (let i = 0; i < take && ring.size > 0; i++) {
      assert.deepEqual([ring.firstKind(), (ring.firstItem() as { index: number }).index], want.shift());
      ring.shift();
    }
  }
  assert.equal(ring.size, want.length);
  assert.deepEqual(drain(ring), want);
  assert.equal(ring.size, 0);
  assert.equal(ring.firstItem(), undefined);
});

test('truncate keeps the oldest steps only', () => {
  const ring = new StepRing();
  for (let i = 0; i < 40; i++) ring.push(i % 2 === 0 ? POST : WAIT, item(i));
  for (let i = 0; i < 10; i++) ring.shift();
  ring.truncate(1);
  assert.equal(ring.size, 1);
  ring.push(COLL, item(99));
  assert.deepEqual(drain(ring), [
    [POST, 10],
    [COLL, 99],
  ]);
});
