/**
 * The engine's memory over a long run at its top rate: a synthetic job generated chunk by chunk (so that
 * nothing but the engine holds the run) is pushed into one engine as fast as it takes it, and every few
 * seconds the live heap (after a full collection) and the RSS are printed. A benchmark, not a test.
 *
 *   node bench/memory-curve/run.mjs synthetic [--minutes M] [--ranks N] [--every S]
 *
 * The job mixes what the end-of-run analyses keep: a halo exchange (Irecv, Irecv, Isend, Isend, Waitall),
 * blocking sends received by MPI_ANY_SOURCE (message races, with their vector clocks), and an Allreduce
 * every 100 steps. Flat means: the last samples' live heap is about the first ones' (the ratio is printed),
 * and `skipped` is empty (no check was given up to stay flat).
 */
import { createEngine } from '../../server/src/engine/engine';
import { Job, ANY } from '../../test/unit/engine-dsl';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const minutes = arg('minutes', 2);
const RANKS = arg('ranks', 8);
const every = arg('every', 10);
const CHUNK = 200;

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (b: number) => (b / 1048576).toFixed(1);
const engine = createEngine({ ranks: RANKS });
const job = new Job(RANKS);
let events = 0;
let step = 0;

/** One chunk of the job: CHUNK steps of every rank, interleaved round robin, pushed, then dropped. */
function chunk(): void {
  for (let i = 0; i < CHUNK; i++, step++) {
    for (const r of job.ranks) {
      const left = (r.rank + RANKS - 1) % RANKS;
      const right = (r.rank + 1) % RANKS;
      r.waitall([
        r.irecv(left, { tag: 1 }),
        r.irecv(right, { tag: 2 }),
        r.isend(right, { tag: 1 }),
        r.isend(left, { tag: 2 }),
      ]);
      // Rank 0 collects one message from every other rank by MPI_ANY_SOURCE, in rank order.
      if (step % 10 === 0) {
        if (r.rank === 0) for (let q = 1; q < RANKS; q++) r.recv(ANY, { tag: 3, got: [q, 3], site: 0x900 });
        else r.send(0, { tag: 3, site: 0x901 });
      }
      if (step % 100 === 99) r.allreduce();
    }
  }
  for (const e of job.interleave(0)) {
    engine.push(e);
    events++;
  }
  for (const r of job.ranks) r.events.length = 0;
  engine.takeFindings();
}

interface Sample {
  s: number;
  heap: number;
  rss: number;
}
const samples: Sample[] = [];
const t0 = performance.now();
let next = 0;
const sample = () => {
  gc?.();
  const m = process.memoryUsage();
  const s = (performance.now() - t0) / 1000;
  samples.push({ s, heap: m.heapUsed, rss: m.rss });
  console.log(
    `t ${s.toFixed(0).padStart(4)} s  events ${(events / 1e6).toFixed(2).padStart(7)} M  live heap ${mib(m.heapUsed).padStart(7)} MiB  rss ${mib(m.rss).padStart(7)} MiB`,
  );
};
console.log(
  `synthetic ${RANKS}-rank job into one engine for ${minutes} min (halo exchange, wildcard receives, Allreduce)${gc ? '' : ' — run with --expose-gc for the live heap'}`,
);
while (performance.now() - t0 < minutes * 60_000) {
  chunk();
  if (performance.now() - t0 >= next * 1000) {
    sample();
    next += every;
  }
}
sample();
for (const r of job.ranks) r.finalize();
for (const e of job.interleave(0)) engine.push(e);
const findings = [...engine.takeFindings(), ...engine.finish()];
const secs = (performance.now() - t0) / 1000;
const kinds = [...new Set(findings.map((f) => f.kind))].join(', ') || 'none';
const skipped = engine.skippedChecks();
// Flatness: the median of the last quarter of the samples against the median of the second quarter (the
// first ones include the engine's and the JIT's start-up).
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const q = Math.max(1, Math.floor(samples.length / 4));
const early = med(samples.slice(q, 2 * q).map((x) => x.heap));
const late = med(samples.slice(-q).map((x) => x.heap));
const peakRss = Math.max(...samples.map((x) => x.rss));
console.log(
  `events ${events.toLocaleString('en-US')} in ${secs.toFixed(0)} s (${(events / secs / 1e6).toFixed(2)} M/s); findings: ${kinds}; skipped checks: ${skipped.length === 0 ? 'none' : skipped.map((x) => `${x.checks.join('/')} (${x.reason})`).join('; ')}`,
);
console.log(
  `live heap: ${mib(early)} MiB early, ${mib(late)} MiB late, ratio ${(late / early).toFixed(2)} (flat: ~1); peak rss ${mib(peakRss)} MiB`,
);
