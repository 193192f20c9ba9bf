// The session ends a launcher that stays after every rank ended, one of them failing (Open MPI's mpirun can hang
// in its own teardown after an abort): Analysis.allEndedFailing says when that is the case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Analysis } from '../../server/src/session/analysis';
import { framesOf } from '../lib/frame-fuzz';
import { Job } from './engine-dsl';

/** Rank 0 finalizes; rank 1 ends as `how1` (undefined: its stream has not ended yet). */
function allEndedFailing(how1: 'finalized' | 'abort' | undefined, closeRank1 = false): boolean {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.finalize();
  if (how1 === 'abort') r1?.end('abort', 7);
  else if (how1 === 'finalized') r1?.finalize();
  const analysis = new Analysis(2, '/nonexistent');
  analysis.open(0);
  analysis.open(1);
  for (const f of framesOf(r0?.events ?? [])) analysis.frame(0, f);
  for (const f of framesOf(r1?.events ?? [])) analysis.frame(1, f);
  if (closeRank1) analysis.close(1);
  const out = analysis.allEndedFailing();
  analysis.engine.finish();
  return out;
}

test('every rank ended, one aborted: the launcher has nothing left to wait for', () => {
  assert.equal(allEndedFailing('abort'), true);
});

test('a rank whose connection dropped without END counts as ended, not normally', () => {
  assert.equal(allEndedFailing(undefined, true), true);
});

test('every rank finalized, or one still running: nothing to end', () => {
  assert.equal(allEndedFailing('finalized'), false);
  assert.equal(allEndedFailing(undefined), false);
});
