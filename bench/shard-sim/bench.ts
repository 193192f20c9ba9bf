/**
 * The partitioning proven on a job larger than this machine can run: 1,024 synthetic ranks whose records
 * (encoded as the shim encodes them, in frames of 256 records) stream into the analysis with K = 1, 2 and 4
 * shard threads, one after the other in one run. Each step every rank exchanges with its ring neighbours
 * (Irecv, Isend, Waitall), with a partner of a random pairing that changes every step (Sendrecv), and every
 * eighth step receives from MPI_ANY_SOURCE what its left neighbour sends; every 16th step is an Allreduce
 * on MPI_COMM_WORLD, every 32nd a Bcast on a split half. Printed per K: events per second (wall, and per
 * CPU-second of the whole process, all threads, and CPU per record), the same findings as K = 1, the calls each
 * shard was sent and its calls per CPU-second of its thread, the coordinator's thread CPU, and the memory of each shard (V8 heap used, peak over the
 * run) beside the coordinator's; before that, the CPU of one engine on this thread as the lone engine and as
 * shard 1 of four (not the global one) over the calls routed to it. A benchmark, not a test.
 */
import { createEngine } from '../../server/src/engine/engine';
import { shardOwnership } from '../../server/src/shards/ownership-map';
import { RouteModel } from '../../server/src/shards/route-model';
import { ShardedEngine } from '../../server/src/shards/sharded-engine';
import { findingKey } from '../../server/src/shards/finding-merge';
import { Router } from '../../server/src/shards/router';
import { RecordColumns } from '../../server/src/protocol/columns';
import { RankDecoder } from '../../server/src/protocol/decoder';
import { threadCpuMs } from '../../server/src/shards/thread-cpu';
import { collect, cpuMsOf, cpuMsSince, streamOf } from '../lib/synthetic';
import { ANY, Job } from '../../test/unit/engine-dsl';

const STEPS = Number(process.argv[2] ?? 24);
const RANKS = Number(process.argv[3] ?? 1024);
const KS = [1, 2, 4];

/** A fixed pseudo-random pairing of the ranks for a step (the same in every run). */
function pairing(step: number): number[] {
  const order = Array.from({ length: RANKS }, (_, i) => i);
  let s = (step + 1) * 2654435761;
  for (let i = RANKS - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const partner = new Array<number>(RANKS);
  for (let i = 0; i + 1 < RANKS; i += 2) {
    const a = order[i] as number;
    const b = order[i + 1] as number;
    partner[a] = b;
    partner[b] = a;
  }
  return partner;
}

const t00 = performance.now();
const job = new Job(RANKS);
const halves = [0, 1].map((parity) => job.ranks.map((r) => r.rank).filter((m) => m % 2 === parity));
for (const r of job.ranks) r.commCreate('MPI_Comm_split', 'world', 'half', halves[r.rank % 2] ?? []);
for (let step = 0; step < STEPS; step++) {
  const partner = pairing(step);
  for (const r of job.ranks) {
    const left = (r.rank + RANKS - 1) % RANKS;
    const right = (r.rank + 1) % RANKS;
    r.waitall([r.irecv(left, { tag: 1 }), r.isend(right, { tag: 1 })]);
    const p = partner[r.rank];
    if (p !== undefined) r.sendrecv(p, p, { tag: 2, rtag: 2 });
    if (step % 8 === 7) {
      const h = r.irecv(ANY, { tag: 3, got: [left, 3] });
      r.send(right, { tag: 3 });
      r.wait(h);
    }
    if (step % 16 === 15) r.allreduce();
    if (step % 32 === 31) r.bcast(0, { comm: 'half' });
  }
}
for (const r of job.ranks) r.finalize();

const { frames, records } = streamOf(job);
const prepMs = performance.now() - t00;
console.log(
  `shard-sim: ${RANKS} ranks, ${STEPS} steps, ${records.toLocaleString('en-US')} records in ${frames.length.toLocaleString('en-US')} frames (generated in ${(prepMs / 1000).toFixed(1)} s)`,
);

/**
 * Without threads, on this thread: the coordinator's routing model and router over every frame collect the
 * rows shard 1 of four (one that is not the global shard) is sent; then the CPU of the lone engine over every
 * frame, and of shard 1's engine over its rows alone (already decoded, as a shard thread gets them).
 */
function shardRows(k: number): RecordColumns {
  const model = new RouteModel(RANKS);
  const router = new Router(k, model);
  const decoders = new Map<number, RankDecoder>();
  const rows = new RecordColumns(1024);
  const mine = new RecordColumns(1 << 16);
  for (const f of frames) {
    rows.clear();
    let d = decoders.get(f.rank);
    if (d === undefined) decoders.set(f.rank, (d = new RankDecoder(f.rank)));
    d.decodeInto(f.data, rows);
    for (let r = 0; r < rows.length; r++) {
      if (router.route(rows, r).includes(1)) {
        const w = rows.wordStart[r] as number;
        const at = mine.add(
          rows.kind[r] as number,
          rows.flags[r] as number,
          rows.func[r] as number,
          rows.rank[r] as number,
          rows.seq[r] as number,
          rows.time[r] as number,
          rows.site[r] as number,
          rows.words,
          w,
          rows.wordCount[r] as number,
        );
        const text = rows.text.get(r);
        if (text !== undefined) mine.text.set(at, text);
      }
      model.take(rows, r);
    }
  }
  return mine;
}

function loneEngine(): void {
  const engine = createEngine({ ranks: RANKS });
  for (const f of frames) {
    engine.pushRecords(f.rank, f.data);
    engine.takeFindings();
  }
  engine.finish();
}

function shardEngine(rows: RecordColumns, k: number): void {
  const engine = createEngine({ ranks: RANKS, owns: shardOwnership(1, k) });
  for (let r = 0; r < rows.length; r += 256) {
    engine.pushColumns(rows, r, Math.min(rows.length, r + 256));
    engine.takeFindings();
  }
  engine.finish();
}

const quarter = shardRows(4);
// The first pass warms the JIT up; the second is measured.
loneEngine();
shardEngine(quarter, 4);
const lone = cpuMsOf(loneEngine);
const shard = cpuMsOf(() => shardEngine(quarter, 4));
console.log(
  `one engine on this thread, CPU: lone ${lone.toFixed(0)} ms over ${records.toLocaleString('en-US')} records; shard 1 of four (not the global one) ${shard.toFixed(0)} ms (${((shard / lone) * 100).toFixed(0)}%) over the ${quarter.length.toLocaleString('en-US')} calls routed to it`,
);

const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const m = (n: number) => `${(n / 1e6).toFixed(3)} M`;
const rows: string[][] = [
  [
    'K',
    'wall',
    'records/s (wall)',
    'records per CPU-s',
    'CPU per record',
    'steady: CPU per record',
    'coordinator thread',
    'shard threads',
    'coordinator CPU',
    'shard CPU',
    'findings',
    'coordinator heap',
    'calls per shard',
    'calls per shard CPU-s',
    'shard heaps (peak)',
  ],
];
let reference: string[] | undefined;
const routes: string[] = [];
async function main(): Promise<void> {
  for (const k of KS) {
    collect();
    const base = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const thread0 = threadCpuMs() ?? 0;
    const t0 = performance.now();
    const engine = new ShardedEngine(RANKS, k);
    let coordinatorPeak = 0;
    // The first quarter of the frames warms the threads up (each shard loads and compiles the engine: about
    // 0.3 s of CPU per thread); the steady cost per record is measured over the rest.
    const warm = Math.floor(frames.length / 4);
    let warmRecords = 0;
    let steady0 = { cpu: process.cpuUsage(), thread: 0, shards: [] as number[] };
    frames.forEach((f, i) => {
      if (i === warm) {
        engine.settle();
        steady0 = {
          cpu: process.cpuUsage(),
          thread: threadCpuMs() ?? 0,
          shards: engine.routing()?.cpuMs ?? [],
        };
      }
      if (i < warm) warmRecords += f.data.byteLength / 64;
      engine.pushRecords(f.rank, f.data);
      if (i % 512 === 0) {
        engine.takeFindings();
        coordinatorPeak = Math.max(coordinatorPeak, process.memoryUsage().heapUsed - base);
      }
    });
    const found = [...engine.takeFindings(), ...engine.finish()];
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsSince(cpu0);
    const coordinatorMs = (threadCpuMs() ?? 0) - thread0;
    const steadyMs = cpuMsSince(steady0.cpu);
    const steadyRecords = records - warmRecords;
    const steadyUs = ((steadyMs * 1000) / steadyRecords).toFixed(2);
    const steadyCoordinatorUs = ((((threadCpuMs() ?? 0) - steady0.thread) * 1000) / steadyRecords).toFixed(2);
    coordinatorPeak = Math.max(coordinatorPeak, process.memoryUsage().heapUsed - base);
    const keys = found.map(findingKey);
    reference ??= keys;
    const same = JSON.stringify(keys) === JSON.stringify(reference);
    const heaps = engine.shardHeaps();
    const routing = engine.routing();
    if (routing !== undefined) {
      const c = routing.counts;
      routes.push(
        `K=${k}: rows to no shard ${c.none.toLocaleString('en-US')}, to one ${c.one.toLocaleString('en-US')}, to some ${c.some.toLocaleString('en-US')}, to every shard ${c.every.toLocaleString('en-US')}`,
      );
    }
    rows.push([
      String(k),
      `${(wallMs / 1000).toFixed(2)} s`,
      m((records / wallMs) * 1000),
      m((records / cpuMs) * 1000),
      `${((cpuMs * 1e6) / records / 1000).toFixed(2)} µs`,
      `${steadyUs} µs`,
      `${steadyCoordinatorUs} µs`,
      routing === undefined
        ? '-'
        : `${((routing.cpuMs.reduce((a, b, i) => a + b - (steady0.shards[i] ?? 0), 0) * 1000) / steadyRecords).toFixed(2)} µs`,
      `${(coordinatorMs / 1000).toFixed(2)} s`,
      routing === undefined
        ? '-'
        : `${(routing.cpuMs.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s (${routing.cpuMs.map((c) => (c / 1000).toFixed(2)).join(' + ')})`,
      `${found.length}${found.length > 0 ? ` (${[...new Set(found.map((f) => f.kind))].join(', ')})` : ''}${same ? ', same as K=1' : ', DIFFERENT from K=1'}`,
      `${mb(coordinatorPeak)}${k > 1 ? ' (routing: communicators, calls in flight)' : ' (the lone engine)'}`,
      routing === undefined
        ? 'no threads'
        : routing.perShard.map((n) => n.toLocaleString('en-US')).join(', '),
      routing === undefined
        ? '-'
        : routing.perShard.map((n, i) => m((n / Math.max(1, routing.cpuMs[i] ?? 0)) * 1000)).join(', '),
      heaps.length === 0 ? 'no threads' : heaps.map(mb).join(', '),
    ]);
    await engine.dispose();
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  '));
  for (const r of routes) console.log(r);
  console.log(
    "records/s and CPU per record: every record the analysis took, over the whole process (coordinator and shard threads). The coordinator decodes every record and routes it (it keeps the communicators, no model); shard 0, the global shard, is sent every call and answers the global questions; each other shard is sent only the calls of its rank pairs and communicators and the definitions every shard needs (ARCHITECTURE.md, \"Shards\"). Shard heaps: the global shard first. steady: after the first quarter of the frames (the threads' start-up and compilation), CPU per record of the whole process, of the coordinator's thread and of all shard threads together. Thread CPU from /proc/thread-self/stat; the rest of the process's CPU is V8's helper threads (garbage collection, compilation). calls per shard CPU-s: the calls a shard was sent over its thread's CPU time.",
  );
}

void main();
