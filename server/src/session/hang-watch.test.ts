import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RankState } from '../engine/model/types';
import { HangWatch } from './hang-watch';

const call = { rank: 0, site: 0, call: 'MPI_Recv', detail: 'MPI_Recv from rank 1' };
const blocked = (rank: number): RankState => ({ rank, state: 'blocked', call: { ...call, rank } });
const running = (rank: number): RankState => ({ rank, state: 'running' });

test('the engine is asked once per quiet period, only when a rank is blocked and all ranks connected', () => {
  const w = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  assert.equal(w.tick(100, [blocked(0), running(1)]).action, 'none'); // not quiet yet
  assert.equal(w.tick(300, [blocked(0), running(1)], [1]).action, 'none'); // rank 1's calls not seen yet
  assert.equal(w.tick(300, [running(0), running(1)]).action, 'none'); // nobody blocked
  assert.equal(w.tick(300, [blocked(0), running(1)]).action, 'ask-engine');
  assert.equal(w.tick(400, [blocked(0), running(1)]).action, 'none'); // already asked
  w.activity(500);
  assert.equal(w.tick(800, [blocked(0), running(1)]).action, 'ask-engine');
});

test('no progress is reported only when every live rank sits in MPI for the whole timeout', () => {
  const w = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  const states: RankState[] = [blocked(0), { rank: 1, state: 'in-call' }, { rank: 2, state: 'finalized' }];
  assert.equal(w.tick(300, states).action, 'ask-engine');
  assert.equal(w.tick(4999, states).action, 'none');
  const v = w.tick(5000, states);
  assert.equal(v.action, 'no-progress');
  assert.deepEqual(v.action === 'no-progress' ? v.stuck.map((s) => s.rank) : [], [0, 1]);
  assert.equal(w.tick(6000, [blocked(0), running(1)]).action, 'none'); // a rank computes: not a hang
});

test('a job whose MPI calls never arrive is a hang after the timeout, not a silence forever', () => {
  const w = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  // No rank observed at all (connected, but no call intercepted; or never connected).
  assert.equal(w.tick(4999, [running(0), running(1)], [0, 1]).action, 'none');
  const v = w.tick(5000, [running(0), running(1)], [0, 1]);
  assert.deepEqual(v, { action: 'no-progress', stuck: [], unobserved: [0, 1], seconds: 5 });
  // Rank 0 waits inside MPI for rank 1, whose calls never arrive.
  const w2 = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  const v2 = w2.tick(5000, [blocked(0), running(1)], [1]);
  assert.equal(v2.action, 'no-progress');
  assert.deepEqual(v2.action === 'no-progress' ? [v2.stuck.map((s) => s.rank), v2.unobserved] : [], [
    [0],
    [1],
  ]);
  // ... but not while the observed rank computes outside MPI.
  assert.equal(
    new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0).tick(9000, [running(0), running(1)], [1]).action,
    'none',
  );
});

test('every live rank waiting on a window whose epoch rules were broken is a hang after brokenEpochMs, not the whole timeout', () => {
  const free = (rank: number, broken: boolean): RankState => ({
    rank,
    state: 'blocked',
    call: { rank, site: 0, call: 'MPI_Win_free', detail: 'MPI_Win_free' },
    ...(broken ? { brokenEpoch: 'MPI_Win_free of window 1, on which an epoch rule was broken' } : {}),
  });
  const opts = { quietMs: 200, noProgressMs: 30_000, brokenEpochMs: 3000 };
  const w = new HangWatch(opts, 0);
  assert.equal(w.tick(300, [free(0, true), free(1, true)]).action, 'ask-engine');
  assert.equal(w.tick(2999, [free(0, true), free(1, true)]).action, 'none');
  const v = w.tick(3400, [free(0, true), free(1, true), { rank: 2, state: 'finalized' }]);
  assert.equal(v.action, 'no-progress');
  assert.deepEqual(v.action === 'no-progress' ? [v.stuck.map((s) => s.rank), v.seconds] : [], [[0, 1], 3]);
  // One rank in a call the broken epoch does not explain (or computing, or not observed): the whole timeout.
  const w2 = new HangWatch(opts, 0);
  assert.equal(w2.tick(10_000, [free(0, true), free(1, false)]).action, 'ask-engine');
  assert.equal(w2.tick(29_999, [free(0, true), free(1, false)]).action, 'none');
  assert.equal(w2.tick(30_000, [free(0, true), free(1, false)]).action, 'no-progress');
  assert.equal(new HangWatch(opts, 0).tick(10_000, [free(0, true), running(1)]).action, 'ask-engine');
  assert.equal(new HangWatch(opts, 0).tick(10_000, [free(0, true), free(1, true)], [1]).action, 'none');
});
