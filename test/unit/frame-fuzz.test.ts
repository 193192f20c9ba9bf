/**
 * The bounded smoke run of the frame fuzzer (test/lib/frame-fuzz.ts) that CI runs; bench/fuzz runs the same
 * harness for 10^6 inputs and prints the figures. Fixed seeds, so a failure here is found again; a different
 * run is MPISCOPE_FUZZ_SEED=N.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJob, FuzzFailure, jobOf, mutateJob, Rng, runJob, type FuzzJob } from '../lib/frame-fuzz';
import { seedJobs } from '../lib/fuzz-seeds';

const INPUTS = 4000;

test('mutated frames close the offending rank with a reason; nothing else throws', () => {
  const seeds: FuzzJob[] = seedJobs().map((j) => jobOf(j.size, j.events));
  // The seeds themselves are well-formed: no rank is closed.
  for (const s of seeds) assert.equal(runJob(s).closed, 0, 'a seed job is accepted whole');
  const rng = new Rng(Number(process.env.MPISCOPE_FUZZ_SEED ?? 20261124));
  let closed = 0;
  let whole = 0;
  const reasons = new Set<string>();
  for (let i = 0; i < INPUTS; i++) {
    const input = mutateJob(seeds[rng.below(seeds.length)] as FuzzJob, rng);
    try {
      // Every fourth input also through the engine (the costly part: an engine per input).
      const out = i % 4 === 0 ? runJob(input) : decodeJob(input);
      if (out.closed === 0) whole++;
      closed += out.closed;
      for (const r of out.reasons) reasons.add(r.replace(/-?\d+/g, 'N'));
    } catch (err) {
      if (err instanceof FuzzFailure) assert.fail(`input ${i}: ${err.message}`);
      throw err;
    }
  }
  // Not a vacuous run: the mutations reach both sides of the decoder's checks.
  assert.ok(closed > INPUTS / 10, `${closed} connections closed of ${INPUTS} inputs`);
  assert.ok(whole > INPUTS / 20, `${whole} inputs accepted whole`);
  assert.ok(reasons.size >= 8, `distinct reasons: ${[...reasons].join(' | ')}`);
});
