// A rank whose connection the session stopped reading (the drain gave up on it: open and silent after the job
// ended) may have records that never arrived. What needs every rank's calls is then named as not judged
// instead of reporting a message it did receive as unmatched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Analysis } from '../../server/src/session/analysis';
import { framesOf } from '../lib/frame-fuzz';
import { Job } from './engine-dsl';

/** Rank 0 sends to rank 1 and finalizes; rank 1's stream stops before its receive arrived. */
function cutJob(cut: boolean): { kinds: string[]; skipped: string | undefined } {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { site: 0x17 }).finalize();
  const analysis = new Analysis(2, '/nonexistent');
  analysis.open(0);
  analysis.open(1);
  for (const f of framesOf(r0?.events ?? [])) analysis.frame(0, f);
  // Rank 1's MPI_Init arrived; its receive and its END did not.
  const r1Events = r1?.events ?? [];
  for (const f of framesOf(r1Events)) analysis.frame(1, f);
  if (cut) analysis.markCut([1]);
  const found = analysis.observedFindings(analysis.engine.finish());
  return { kinds: found.map((f) => f.kind), skipped: analysis.unobservedSkip()?.reason };
}

test('a rank cut by the drain: no unmatched message, and the skipped checks are named', () => {
  const whole = cutJob(false);
  assert.ok(whole.kinds.includes('unmatched-message'), `without the cut: ${whole.kinds.join(', ')}`);
  assert.equal(whole.skipped, undefined);
  const cut = cutJob(true);
  assert.ok(!cut.kinds.includes('unmatched-message'), `with the cut: ${cut.kinds.join(', ')}`);
  assert.match(cut.skipped ?? '', /rank 1 stayed open and silent after the job ended/);
});
