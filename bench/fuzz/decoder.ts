/**
 * The long run of the frame fuzzer (test/lib/frame-fuzz.ts; CI runs a bounded smoke of it in the unit tier):
 * N mutated inputs (default 10^6) through the session's decoder, and every tenth of them also through the
 * engine behind it as the session feeds it (Analysis), from seeds written by the engine DSL and from recorded
 * traces given on the command line. Prints inputs per second, how many connections the
 * session would have closed and for which reasons, and the process's memory at each tenth of the run (flat
 * when nothing accumulates). Exits 1 on the first input that breaks the promise, with its seed and index.
 *   node bench/fuzz/run.mjs [--inputs N] [--seed S] [--engine-every K] [--traces]
 */
import { readTrace, SESSION_RANK } from '../../server/src/session/trace-file';
import {
  decodeJob,
  FuzzFailure,
  jobOf,
  mutateJob,
  Rng,
  runJob,
  type FuzzJob,
} from '../../test/lib/frame-fuzz';
import { seedJobs } from '../../test/lib/fuzz-seeds';

function traceJob(path: string): FuzzJob | undefined {
  const frames = readTrace(path);
  const head = frames[0];
  if (head?.rank !== SESSION_RANK) return undefined;
  const size = (JSON.parse(head.data.toString('utf8')) as { ranks?: number }).ranks ?? 0;
  if (!Number.isInteger(size) || size < 1) return undefined;
  const whole: Uint8Array[][] = Array.from({ length: size }, () => []);
  for (const f of frames)
    if (f.kind === 'binary' && f.rank < size) whole[f.rank]?.push(new Uint8Array(f.data));
  // Each rank's first calls, re-framed as the shim frames a slower stream (64 records, whole calls): a whole
  // trace per input would spend the run in the engine on the same well-formed calls.
  return { size, streams: whole.map((fs) => reframe(fs, 64).slice(0, 24)) };
}

function reframe(frames: readonly Uint8Array[], perFrame: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let cur: Uint8Array[] = [];
  for (const f of frames) {
    for (let at = 0; at + 64 <= f.length; at += 64) {
      const rec = f.subarray(at, at + 64);
      // A head record (any kind but EXT, 3) starts a call: frames never split one.
      if (cur.length >= perFrame && rec[0] !== 3) {
        out.push(concat(cur));
        cur = [];
      }
      cur.push(rec);
    }
  }
  if (cur.length > 0) out.push(concat(cur));
  return out;
}

function concat(records: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(records.length * 64);
  records.forEach((r, i) => out.set(r, i * 64));
  return out;
}

const args = process.argv.slice(2);
let inputs = 1_000_000;
let engineEvery = 10;
let seed = 20261124;
const traces: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i] ?? '';
  if (a === '--inputs') inputs = Number(args[++i]);
  else if (a === '--seed') seed = Number(args[++i]);
  else if (a === '--engine-every') engineEvery = Number(args[++i]);
  else traces.push(a);
}
const seeds: FuzzJob[] = seedJobs().map((j) => jobOf(j.size, j.events));
for (const t of traces) {
  const job = traceJob(t);
  if (job !== undefined) seeds.push(job);
}
const fromTraces = seeds.length - seedJobs().length;
console.log(
  `frame fuzzer: ${inputs} inputs, seed ${seed}, ${seeds.length} seed jobs (${fromTraces} from recorded traces)`,
);
const rng = new Rng(seed);
const reasons = new Map<string, number>();
let closed = 0;
let whole = 0;
let frames = 0;
let throughEngine = 0;
const start = process.hrtime.bigint();
let peakRss = 0;
let slowest = 0;
for (let i = 0; i < inputs; i++) {
  const input = mutateJob(seeds[rng.below(seeds.length)] as FuzzJob, rng);
  for (const s of input.streams) frames += s.length;
  const t0 = process.hrtime.bigint();
  try {
    const full = i % engineEvery === 0;
    const out = full ? runJob(input) : decodeJob(input);
    if (full) throughEngine++;
    if (out.closed === 0) whole++;
    closed += out.closed;
    for (const r of out.reasons) {
      const k = r.replace(/-?\d+/g, 'N');
      reasons.set(k, (reasons.get(k) ?? 0) + 1);
    }
  } catch (err) {
    if (err instanceof FuzzFailure) {
      console.log(`FAILED at input ${i} (seed ${seed}): ${err.message}`);
      if (err.thrown instanceof Error) console.log(err.thrown.stack);
      process.exit(1);
    }
    throw err;
  }
  const dt = Number(process.hrtime.bigint() - t0) / 1e6;
  if (dt > slowest) slowest = dt;
  if ((i + 1) % Math.max(1, Math.floor(inputs / 10)) === 0) {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    console.log(
      `  ${String(i + 1).padStart(8)} inputs  rss ${(m.rss / 2 ** 20).toFixed(0)} MiB  heap ${(m.heapUsed / 2 ** 20).toFixed(0)} MiB`,
    );
  }
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  `inputs: ${inputs} (${frames} frames; ${throughEngine} also through the engine) in ${secs.toFixed(1)} s: ${(inputs / secs).toFixed(0)} inputs/s`,
);
console.log(`accepted whole: ${whole}; connections closed with a reason: ${closed}; failures: 0`);
console.log(`slowest input: ${slowest.toFixed(1)} ms; peak rss ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
console.log('reasons (numbers as N), most frequent first:');
for (const [r, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`  ${String(n).padStart(8)}  ${r}`);
console.log(`  (${reasons.size} distinct)`);
