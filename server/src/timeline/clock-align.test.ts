import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClockAlign } from './clock-align';

// Rank 0's monotonic clock reads realtime - 1000; rank 1's realtime alignment says the same offset.
test('one host: the realtime alignment is kept when the measurement allows it', () => {
  const c = new ClockAlign();
  c.clock(0, 0, 1000);
  c.clock(1, 0, 1000);
  c.clock(1, 10, 1010, { lo: -3, hi: 4, phase: 1 });
  assert.equal(c.toJob(1, 500), 500);
});

test('a wrong realtime is replaced by the middle of the measured interval, and drift is interpolated', () => {
  const c = new ClockAlign();
  c.clock(0, 0, 1000);
  // Rank 1's clock is 5000 behind rank 0's, but its realtime claims no offset; it loses 1 per 100 ns.
  c.clock(1, -5000, 1000);
  c.clock(1, -4900, 1100, { lo: -5002, hi: -4998, phase: 1 });
  assert.equal(c.toJob(1, -4900), 100, 'at the first measurement: rank 0 time 100');
  c.clock(1, 4900, 11_000, { lo: -5101, hi: -5099, phase: 2 });
  // Halfway between the two measurements the offset is halfway between -5000 and -5100.
  assert.equal(c.toJob(1, 0), 0 + 5050);
  assert.equal(c.toJob(1, 4900), 4900 + 5100);
});

test('rank 0 and bounds that make no interval are ignored', () => {
  const c = new ClockAlign();
  c.clock(0, 0, 1000);
  c.clock(0, 5, 1005, { lo: 0, hi: 0, phase: 1 });
  c.clock(1, 0, 1000);
  c.clock(1, 5, 1005, { lo: 9, hi: 3, phase: 1 });
  assert.equal(c.toJob(0, 7), 7);
  assert.equal(c.toJob(1, 7), 7);
});
