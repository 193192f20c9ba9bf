import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRAIN_MAX_MS, DRAIN_QUIET_MS, keepDraining } from './drain';

test('the drain ends when every connection closed', () => {
  assert.equal(keepDraining({ open: 0, now: 10, since: 0, lastFrameAt: 10 }), false);
  assert.equal(keepDraining({ open: 1, now: 10, since: 0, lastFrameAt: 0 }), true);
});

test('a connection still delivering frames is read to its end, however long after the launcher exited', () => {
  // ok-jacobi-cart-2d under a loaded analyzer: mpirun exited while 1.4 MB of ranks' last frames were still
  // unread; ending the drain 2 s after the exit cut them and gave false unmatched-message findings.
  const since = 1000;
  for (let now = since; now < since + 30_000; now += 500)
    assert.equal(
      keepDraining({ open: 2, now, since, lastFrameAt: now - 100 }),
      true,
      `at +${now - since} ms`,
    );
});

test('a connection open and silent is given up after DRAIN_QUIET_MS, a streaming one after DRAIN_MAX_MS', () => {
  const since = 1000;
  assert.equal(keepDraining({ open: 1, now: since + DRAIN_QUIET_MS - 1, since, lastFrameAt: 0 }), true);
  assert.equal(keepDraining({ open: 1, now: since + DRAIN_QUIET_MS, since, lastFrameAt: 0 }), false);
  // Silence counts from the last frame, not from the exit.
  const last = since + 5000;
  assert.equal(keepDraining({ open: 1, now: last + DRAIN_QUIET_MS - 1, since, lastFrameAt: last }), true);
  assert.equal(keepDraining({ open: 1, now: last + DRAIN_QUIET_MS, since, lastFrameAt: last }), false);
  const end = since + DRAIN_MAX_MS;
  assert.equal(keepDraining({ open: 1, now: end, since, lastFrameAt: end - 1 }), false);
});
