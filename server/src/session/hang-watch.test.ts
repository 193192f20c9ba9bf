import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RankState } from '../engine/model/types';
import { HangWatch } from './hang-watch';

const call = { rank: 0, site: 0, call: 'MPI_Recv', detail: 'MPI_Recv from rank 1' };
const blocked = (rank: number): RankState => ({ rank, state: 'blocked', call: { ...call, rank } });
const running = (rank: number): RankState => ({ rank, state: 'running' });

test('the engine is asked once per quiet period, only when a rank is blocked and all ranks connected', () => {
  const w = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  assert.equal(w.tick(100, [blocked(0), running(1)], true).action, 'none'); // not quiet yet
  assert.equal(w.tick(300, [blocked(0), running(1)], false).action, 'none'); // a rank not connected yet
  assert.equal(w.tick(300, [running(0), running(1)], true).action, 'none'); // nobody blocked
  assert.equal(w.tick(300, [blocked(0), running(1)], true).action, 'ask-engine');
  assert.equal(w.tick(400, [blocked(0), running(1)], true).action, 'none'); // already asked
  w.activity(500);
  assert.equal(w.tick(800, [blocked(0), running(1)], true).action, 'ask-engine');
});

test('no progress is reported only when every live rank sits in MPI for the whole timeout', () => {
  const w = new HangWatch({ quietMs: 200, noProgressMs: 5000 }, 0);
  const states: RankState[] = [blocked(0), { rank: 1, state: 'in-call' }, { rank: 2, state: 'finalized' }];
  assert.equal(w.tick(300, states, true).action, 'ask-engine');
  assert.equal(w.tick(4999, states, true).action, 'none');
  const v = w.tick(5000, states, true);
  assert.equal(v.action, 'no-progress');
  assert.deepEqual(v.action === 'no-progress' ? v.stuck.map((s) => s.rank) : [], [0, 1]);
  assert.equal(w.tick(6000, [blocked(0), running(1)], true).action, 'none'); // a rank computes: not a hang
});
