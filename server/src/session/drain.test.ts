import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRAIN_MAX_MS, DRAIN_QUIET_MS, drainWaitMs, keepDraining, lastLookDue } from './drain';

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

test('the drain sleeps until the silence bound at the latest, and never 0 ms', () => {
  const since = 1000;
  // Silence counts from the later of the exit and the last frame.
  assert.equal(drainWaitMs({ open: 1, now: since, since, lastFrameAt: 0 }), DRAIN_QUIET_MS);
  assert.equal(
    drainWaitMs({ open: 1, now: since + 500, since, lastFrameAt: since + 400 }),
    DRAIN_QUIET_MS - 100,
  );
  // Near the overall bound, that comes first.
  const end = since + DRAIN_MAX_MS;
  assert.equal(drainWaitMs({ open: 1, now: end - 10, since, lastFrameAt: end - 20 }), 10);
  // Past a bound (the caller checks keepDraining first), still a positive wait.
  assert.equal(drainWaitMs({ open: 1, now: end + 5, since, lastFrameAt: 0 }), 1);
  // Sleeping that long and checking again ends the drain of a silent connection exactly at its bound.
  const s = { open: 1, since, lastFrameAt: since + 300 };
  const now = since + 700;
  assert.equal(keepDraining({ ...s, now: now + drainWaitMs({ ...s, now }) }), false);
  assert.equal(keepDraining({ ...s, now: now + drainWaitMs({ ...s, now }) - 1 }), true);
});

test('a connection silent past the bound gets one more look before it is given up; a closed or overlong drain none', () => {
  const since = 1000;
  // Still delivering: no look due, the drain goes on.
  assert.equal(lastLookDue({ open: 1, now: since + 100, since, lastFrameAt: since + 50 }), false);
  // Silent for DRAIN_QUIET_MS on the session's clock: look once more (the silence may be the session's own).
  assert.equal(lastLookDue({ open: 1, now: since + DRAIN_QUIET_MS, since, lastFrameAt: 0 }), true);
  // Every connection closed: nothing to look at.
  assert.equal(lastLookDue({ open: 0, now: since + DRAIN_QUIET_MS, since, lastFrameAt: 0 }), false);
  // Past DRAIN_MAX_MS the drain ends whatever the look would bring.
  const end = since + DRAIN_MAX_MS;
  assert.equal(lastLookDue({ open: 1, now: end, since, lastFrameAt: end - DRAIN_QUIET_MS }), false);
});
