/** The engine must never throw on strange but well-formed events (a corrupt or lying rank ends only itself). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { RankEvent } from '../../server/src/engine/model/types';
import { ANY, Job } from './engine-dsl';

function sampleJob(): Job {
  const job = new Job(3);
  for (const r of job.ranks) {
    const reqs = [r.irecv(ANY, { tag: ANY, got: [(r.rank + 1) % 3, 0] }), r.isend((r.rank + 2) % 3)];
    r.waitall(reqs);
    r.commCreate('MPI_Comm_dup', 'world', 'dup', [0, 1, 2]);
    r.bcast(0, { comm: 'dup' });
    r.sendrecv((r.rank + 1) % 3, (r.rank + 2) % 3);
    r.finalize();
  }
  return job;
}

test('mutated event streams never make the engine throw', () => {
  let seed = 99;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const odd = [0, -1, -2, 1, 2, 3, 7, 100, 1e9, -1e9, 2 ** 40];
  const pick = () => odd[Math.floor(rand() * odd.length)] ?? 0;
  for (let round = 0; round < 300; round++) {
    const events = sampleJob().interleave(round);
    const mutated: RankEvent[] = events.map((e) => {
      if (rand() > 0.15) return e;
      if (e.type === 'enter') {
        const args = { ...e.args };
        for (const k of Object.keys(args)) if (rand() < 0.5 && typeof args[k] === 'number') args[k] = pick();
        return { ...e, args };
      }
      if (e.type === 'complete')
        return { ...e, request: rand() < 0.5 ? pick() : e.request, source: pick(), tag: pick() };
      if (e.type === 'exit')
        return { ...e, seq: rand() < 0.5 ? e.seq : pick(), returnCode: rand() < 0.3 ? 1 : 0 };
      if (e.type === 'comm') return { ...e, members: e.members.map(() => Math.abs(pick())), parent: pick() };
      return { ...e, rank: rand() < 0.2 ? Math.abs(pick()) % 5 : e.rank };
    });
    const engine = createEngine({ ranks: 3 });
    assert.doesNotThrow(() => {
      for (const e of mutated) engine.push(e);
      engine.takeFindings();
      engine.findDeadlock();
      engine.rankStates();
      engine.finish();
    }, `round ${round}`);
  }
});
