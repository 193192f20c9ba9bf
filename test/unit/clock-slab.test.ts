/**
 * The clocks of messages in flight are rows of one slab in the clock run (causal-order/causal-clocks.ts): written
 * at the send's post, merged into the receiver's clock at its wait, recycled, and laid out again when a rank beyond
 * the size the run was made for appears while rows are in flight.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClockRun } from '../../server/src/engine/causal-order/causal-clocks';
import { POST, WAIT } from '../../server/src/engine/causal-order/steps';
import type { RecvOp, SendOp } from '../../server/src/engine/model/ops';

const op = <T extends SendOp | RecvOp>(kind: T['kind'], rank: number): T =>
  ({ kind, rank, sentClock: -1, ran: 0, peer: undefined }) as unknown as T;

/** A message from `from` to `to`: its send and receive, matched (as the replay sets `peer`). */
const pair = (from: number, to: number): [SendOp, RecvOp] => {
  const s = op<SendOp>('send', from);
  const r = op<RecvOp>('recv', to);
  s.peer = r;
  r.peer = s;
  return [s, r];
};

test('message clocks: merged at the receive, recycled, and laid out again as the job grows with rows in flight', () => {
  // Made for one rank: ranks 1 and 2 appear while rank 0's sends are in flight.
  const run = new ClockRun(1);
  const sends = [pair(0, 1), pair(0, 2), pair(0, 2)];
  // Rank 0 posts three sends (its own component 1, 2, 3 at each): three rows of one component.
  for (const [s] of sends) run.add(0, POST, s);
  const [a, b, c] = sends as [[SendOp, RecvOp], [SendOp, RecvOp], [SendOp, RecvOp]];
  // Rank 1 appears (rows laid out for two components) and takes the first.
  run.add(1, POST, a[1]);
  run.matched(a[0], a[1]);
  run.add(1, WAIT, a[1]);
  assert.equal(run.clock(1)[0], 1, "rank 1 heard of rank 0's first post");
  assert.equal(a[0].sentClock, -1, 'the row is given back once received');
  // Rank 1 sends to rank 2: the slab is laid out for two components with rank 0's second and third in flight.
  const t = pair(1, 2);
  run.add(1, POST, t[0]);
  // Rank 2 appears and takes the third, then the second: each carries rank 0's clock at its own post.
  run.add(2, POST, c[1]);
  run.matched(c[0], c[1]);
  run.add(2, WAIT, c[1]);
  assert.equal(run.clock(2)[0], 3);
  run.add(2, POST, b[1]);
  run.matched(b[0], b[1]);
  run.add(2, WAIT, b[1]);
  assert.equal(run.clock(2)[0], 3, 'an older message does not lower the clock');
  run.add(2, POST, t[1]);
  run.matched(t[0], t[1]);
  run.add(2, WAIT, t[1]);
  assert.deepEqual([...run.clock(2)], [3, 3, 6]);
  // Rank 2 sends to rank 1 (a recycled row, three components): rank 1 learns of ranks 0 and 2 through it.
  const [s, r] = pair(2, 1);
  run.add(2, POST, s);
  assert.ok(s.sentClock >= 0 && s.sentClock <= 3, `a recycled row (got ${s.sentClock})`);
  run.add(1, POST, r);
  run.matched(s, r);
  run.add(1, WAIT, r);
  assert.deepEqual([...run.clock(1)], [3, 5, 7]);
});

test("message clocks: a rank's sends share a row until its clock takes another's, each carrying its own component", () => {
  const run = new ClockRun(3);
  // Rank 0 sends twice with nothing between (its clock moves only in its own component): one row for both.
  const [s1, r1] = pair(0, 1);
  const [s2, r2] = pair(0, 2);
  run.add(0, POST, s1);
  run.add(0, POST, s2);
  assert.equal(s1.sentClock, s2.sentClock, 'the second send copies no clock');
  // Rank 2 takes the second first: it hears of rank 0's second post (own component 2), not of the first only.
  run.add(2, POST, r2);
  run.matched(s2, r2);
  run.add(2, WAIT, r2);
  assert.deepEqual([...run.clock(2)], [2, 0, 2]);
  // Rank 1 takes the first: component 1, although the row was written by the same copy.
  run.add(1, POST, r1);
  run.matched(s1, r1);
  run.add(1, WAIT, r1);
  assert.deepEqual([...run.clock(1)], [1, 2, 0]);
  // Rank 2 sends to rank 0, and rank 0 takes it: rank 0's clock took rank 2's, so its next send is a new copy.
  const [t, u] = pair(2, 0);
  run.add(2, POST, t);
  run.add(0, POST, u);
  run.matched(t, u);
  run.add(0, WAIT, u);
  const [s3, r3] = pair(0, 1);
  run.add(0, POST, s3);
  run.add(1, POST, r3);
  run.matched(s3, r3);
  run.add(1, WAIT, r3);
  // Rank 0 heard of rank 2's post (its component 3); rank 1 hears of it through rank 0's third send (the old
  // row would say 0).
  assert.deepEqual([...run.clock(1)], [5, 4, 3]);
});
