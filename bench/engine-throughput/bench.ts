/**
 * Events per second through the decoder and the engine, on a synthetic 8-rank halo exchange (Irecv, Isend,
 * Waitall, a collective every 100 steps): about 1M events (one event = one call's records = one row of the
 * columns). Prints events per CPU-second (decode alone; decode + engine fed raw frames by pushRecords), the
 * garbage collector's share, and the heap the engine holds per record. A benchmark, not a test.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createEngine } from '../../server/src/engine/engine';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { RecordColumns } from '../../server/src/protocol/columns';
import { RankDecoder } from '../../server/src/protocol/decoder';
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
import { Job } from '../../test/unit/engine-dsl';
import type { RankEvent } from '../../server/src/engine/model/types';

const RANKS = 8;
const STEPS = Number(process.argv[2] ?? 8000);

const job = new Job(RANKS);
for (let step = 0; step < STEPS; step++) {
  for (const r of job.ranks) {
    const left = (r.rank + RANKS - 1) % RANKS;
    const right = (r.rank + 1) % RANKS;
    r.waitall([
      r.irecv(left, { tag: 1 }),
      r.irecv(right, { tag: 2 }),
      r.isend(right, { tag: 1 }),
      r.isend(left, { tag: 2 }),
    ]);
    if (step % 100 === 99) r.allreduce();
  }
}
for (const r of job.ranks) r.finalize();

// Frames of 256 records per rank, as the shim's sender thread batches them.
const frames: { rank: number; data: Uint8Array }[] = [];
let records = 0;
for (const r of job.ranks) {
  let batch: Uint8Array[] = [];
  let n = 0;
  for (const e of r.events) {
    const rec = encodeEvent(e);
    batch.push(rec);
    n += rec.length / 64;
    if (n >= 256) {
      frames.push({ rank: r.rank, data: frameOf(batch) });
      records += n;
      batch = [];
      n = 0;
    }
  }
  if (batch.length) {
    frames.push({ rank: r.rank, data: frameOf(batch) });
    records += n;
  }
}
// Interleave ranks frame by frame (round robin), each rank's frames in order, as the session receives them.
const perRank = new Map<number, { rank: number; data: Uint8Array }[]>();
for (const f of frames) perRank.set(f.rank, [...(perRank.get(f.rank) ?? []), f]);
const order: { rank: number; data: Uint8Array }[] = [];
for (let i = 0; order.length < frames.length; i++)
  for (const list of perRank.values()) if (list[i]) order.push(list[i] as { rank: number; data: Uint8Array });

// MPISCOPE_BENCH_PROFILE=FILE: a CPU profile of the measured part only (decode, push, finish), not of the
// synthetic job's encoding above, for `node --cpu-prof`-style reading in DevTools or a script.
// MPISCOPE_BENCH_HEAP_PROFILE=FILE: where the measured part allocates (a sampling heap profile that keeps the
// samples of objects the garbage collector already freed: what makes the GC work, not what is held).
// MPISCOPE_BENCH_PROFILE_WARM=FILE: a CPU profile of the warm engines whose median is the warm line (engines 4-6),
// where the JIT has compiled the engine: what an analyzer following a long job spends its time on.
const profileTo = process.env['MPISCOPE_BENCH_PROFILE'];
const heapProfileTo = process.env['MPISCOPE_BENCH_HEAP_PROFILE'];
const warmProfileTo = process.env['MPISCOPE_BENCH_PROFILE_WARM'];
const inspector = profileTo || heapProfileTo || warmProfileTo ? new Session() : undefined;
if (inspector) {
  inspector.connect();
  if (profileTo) {
    inspector.post('Profiler.enable');
    inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    inspector.post('Profiler.start');
  }
  if (heapProfileTo) {
    inspector.post('HeapProfiler.enable');
    inspector.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
}

// Pass 1, decode only: every frame into reused columns (what the engine does first with a frame).
const decoders = Array.from({ length: RANKS }, (_, r) => new RankDecoder(r));
const cols = new RecordColumns(1024);
let rows = 0;
let cpu0 = process.cpuUsage();
let t0 = performance.now();
for (const f of order) {
  cols.clear();
  (decoders[f.rank] as RankDecoder).decodeInto(f.data, cols);
  rows += cols.length;
}
const decodeMs = performance.now() - t0;
const decodeCpu = cpuMsSince(cpu0);

// Pass 2, decode + engine, as the session and the shards feed it: raw frames in (pushRecords), then finish().
// CPU time of this process (all its threads, the garbage collector's included) beside the wall time: on a
// machine others load, it moves much less than the wall time between runs.
// Every collection's entry is kept and only those inside the measured window (push and finish) are counted in the
// report: the explicit full collections before and after it and the pending-operation lines' collections are
// not the engine's cost (counting them all said 84% of the wall time).
const gcEntries: { start: number; ms: number; minor: boolean }[] = [];
const gcWatch = new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcEntries.push({
      start: e.startTime,
      ms: e.duration,
      minor: (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR,
    });
});
gcWatch.observe({ entryTypes: ['gc'] });
collect();
const heap0 = process.memoryUsage().heapUsed;
const engine = createEngine({ ranks: RANKS, ...(process.env['NOREPLAY'] ? { replaySteps: 0 } : {}) });
const threads0 = threadCpu();
cpu0 = process.cpuUsage();
t0 = performance.now();
const windowFrom = t0;
for (const f of order) engine.pushRecords(f.rank, f.data);
const pushMs = performance.now() - t0;
const pushCpu = cpuMsSince(cpu0);
const threads1 = threadCpu();
// What the engine holds once every record went in (after a full collection): its pending state and the
// replay's steps, not garbage.
const windowHeld0 = performance.now();
collect();
const heapHeld = process.memoryUsage().heapUsed - heap0;
const windowHeld1 = performance.now();
const cpu1 = process.cpuUsage();
t0 = performance.now();
const findings = [...engine.takeFindings(), ...engine.finish()];
const finishMs = performance.now() - t0;
const windowTo = t0 + finishMs;
const finishCpu = cpuMsSince(cpu1);
// The profiles cover decode, push and finish only, not the pending-operation lines below.
if (inspector && profileTo)
  inspector.post('Profiler.stop', (err, res) => {
    if (err === null) writeFileSync(profileTo, JSON.stringify(res.profile));
  });
if (inspector && heapProfileTo)
  inspector.post('HeapProfiler.stopSampling', (err, res) => {
    if (err === null) writeFileSync(heapProfileTo, JSON.stringify(res.profile));
  });
// Heap per pending operation: rank 0 posts PENDING Isends to rank 1 and PENDING Irecvs from it that nothing
// ever matches (rank 1 never calls): what the engine holds per request in flight (request, operation, the
// call's words, the matcher's queue entry, the replay's step), after a full collection.
const PENDING = 2_000;
const pendingJob = new Job(2);
const sender = pendingJob.ranks[0] as (typeof pendingJob.ranks)[number];
for (let i = 0; i < PENDING; i++) sender.isend(1, { tag: 1 });
const sendsEnd = sender.events.length;
for (let i = 0; i < PENDING; i++) sender.irecv(1, { tag: 2 });
const heldPerPending = (events: typeof sender.events): number => {
  collect();
  const before = process.memoryUsage().heapUsed;
  const e = createEngine({ ranks: 2 });
  for (const ev of events) e.push(ev);
  collect();
  const bytes = process.memoryUsage().heapUsed - before;
  if (e.rankStates().length < 0) console.log('unreachable'); // keeps the engine alive until measured
  return bytes / PENDING;
};
const perSend = heldPerPending(sender.events.slice(0, sendsEnd));
const perBoth = heldPerPending(sender.events);
// CPU per operation posted while others are pending (the same never-matched Isends and Irecvs, each its own buffer),
// at two sizes: the buffer-overlap check walked every pending request for each new one (quadratic), and
// looks only at those near its buffer since the index (model/span-index.ts). Each sample posts the same number of
// operations at both sizes (MANY / FEW fresh engines of the small job, one of the large), after a warm-up, and the
// sizes alternate; the median of five. Measured once per size, cold, the small job's 10 ms were at the mercy of the
// JIT's first compilations and of one collection more or less (1.5 to 7 µs from run to run).
const POSTED_FEW = 1_000;
const POSTED_MANY = 16_000;
const postingJob = (n: number): RankEvent[] => {
  const j = new Job(2);
  const s = j.ranks[0] as (typeof j.ranks)[number];
  for (let i = 0; i < n; i++) s.isend(1, { tag: 1 });
  for (let i = 0; i < n; i++) s.irecv(1, { tag: 2 });
  return s.events;
};
const fewJob = postingJob(POSTED_FEW);
const manyJob = postingJob(POSTED_MANY);
const postingSample = (events: RankEvent[], engines: number): number => {
  const c0 = process.cpuUsage();
  for (let k = 0; k < engines; k++) {
    const e = createEngine({ ranks: 2 });
    for (const ev of events) e.push(ev);
  }
  return (cpuMsSince(c0) * 1000) / (2 * POSTED_MANY);
};
const fewRuns: number[] = [];
const manyRuns: number[] = [];
postingSample(fewJob, POSTED_MANY / POSTED_FEW);
for (let k = 0; k < 5; k++) {
  fewRuns.push(postingSample(fewJob, POSTED_MANY / POSTED_FEW));
  manyRuns.push(postingSample(manyJob, 1));
}
const median = (l: number[]): number => l.sort((a, b) => a - b)[l.length >> 1] as number;
// The same decode + engine once warm: the pass above is the first, and pays the JIT's compilation of the whole
// engine (its first runs were 2-3x the later ones); an analyzer following a long job runs warm. Five more fresh
// engines over the same frames, the median of the last three.
const warmRuns: number[] = [];
for (let k = 0; k < 5; k++) {
  collect();
  if (inspector && warmProfileTo && k === 2) {
    inspector.post('Profiler.enable');
    inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    inspector.post('Profiler.start');
  }
  const e = createEngine({ ranks: RANKS });
  const c0 = process.cpuUsage();
  for (const f of order) e.pushRecords(f.rank, f.data);
  e.finish();
  warmRuns.push(cpuMsSince(c0));
}
if (inspector && warmProfileTo)
  inspector.post('Profiler.stop', (err, res) => {
    if (err === null) writeFileSync(warmProfileTo, JSON.stringify(res.profile));
  });
const warmCpu = median(warmRuns.slice(2));
const postFew = median(fewRuns);
const postMany = median(manyRuns);
// The observer's last entries arrive on a later turn of the event loop: print then.
setTimeout(report, 0);

function report(): void {
  gcWatch.disconnect();
  // The full collection between push and finish (for the heap line) is the bench's, not the engine's.
  const inWindow = gcEntries.filter(
    (g) =>
      g.start >= windowFrom && g.start <= windowTo && !(g.start >= windowHeld0 && g.start <= windowHeld1),
  );
  const gcMs = inWindow.reduce((a, g) => a + g.ms, 0);
  const minors = inWindow.filter((g) => g.minor);

  const rate = (n: number, ms: number) => `${(((n / ms) * 1000) / 1e6).toFixed(2)}M/s`;
  const engineCpu = pushCpu + finishCpu;
  for (const f of findings.slice(0, 3)) console.log(`unexpected: ${f.kind}: ${f.message}`);
  console.log(`records: ${records}, events (calls): ${rows}, findings: ${findings.length} (expected 0)`);
  console.log(
    `decode alone: ${decodeMs.toFixed(0)} ms wall, CPU ${decodeCpu.toFixed(0)} ms: ${rate(records, decodeCpu)} records, ${rate(rows, decodeCpu)} events per CPU-second`,
  );
  console.log(
    `decode+engine: push ${pushMs.toFixed(0)} ms wall (CPU ${pushCpu.toFixed(0)} ms), finish ${finishMs.toFixed(0)} ms wall (CPU ${finishCpu.toFixed(0)} ms; replay, races, leaks)`,
  );
  console.log(
    `decode+engine: ${rate(rows, engineCpu)} events per CPU-second (push alone ${rate(rows, pushCpu)}; issue 12's goal: 5.00M/s on one core), ${rate(rows, pushMs + finishMs)} wall`,
  );
  console.log(
    `decode+engine, warm (engines 4-6 over the same frames, median): ${rate(rows, warmCpu)} events per CPU-second, CPU ${warmCpu.toFixed(0)} ms`,
  );
  if (threads0 !== undefined && threads1 !== undefined) {
    const main = (threads1.main - threads0.main) * 10;
    const others = (threads1.others - threads0.others) * 10;
    console.log(
      `decode+engine, first pass, push by thread (/proc, 10 ms ticks): main thread ${main} ms, V8's other threads (the JIT's compilers, the collector's helpers) ${others} ms`,
    );
  }
  console.log(
    `garbage collection during push and finish: ${gcMs.toFixed(0)} ms, ${((gcMs / (pushMs + finishMs)) * 100).toFixed(0)}% of the engine's wall time (${minors.length} young-generation collections, ${minors.reduce((a, g) => a + g.ms, 0).toFixed(0)} ms; ${inWindow.length - minors.length} others)`,
  );
  console.log(
    `heap held by the engine after the last record (after a full GC): ${(heapHeld / 1e6).toFixed(1)} MB, ${(heapHeld / records).toFixed(0)} bytes per record`,
  );
  console.log(
    `heap per pending operation (${PENDING.toLocaleString('en-US')} Isends, then as many Irecvs, never matched): ${perSend.toFixed(0)} bytes per Isend, ${(perBoth - perSend).toFixed(0)} per Irecv`,
  );
  console.log(
    `CPU per operation posted while others are pending (Isends then Irecvs, never matched): ${postFew.toFixed(1)} µs with up to ${(2 * POSTED_FEW).toLocaleString('en-US')} pending, ${postMany.toFixed(1)} µs with up to ${(2 * POSTED_MANY).toLocaleString('en-US')}: ${(postMany / postFew).toFixed(1)}× (1× = independent of what is pending)`,
  );
}

/**
 * Clock ticks (user + system) of this process's main thread and of all its other threads, from /proc (Linux; else
 * undefined): where the first pass's extra CPU goes (the JIT compiles on V8's background threads).
 */
function threadCpu(): { main: number; others: number } | undefined {
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      if (Number(tid) === process.pid) main += ticks;
      else others += ticks;
    }
    return { main, others };
  } catch {
    return undefined;
  }
}

function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** A full collection when node runs with --expose-gc (run.mjs passes it), so heap numbers are what is held. */
function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) gc();
}
