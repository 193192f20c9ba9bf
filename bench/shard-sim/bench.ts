/**
 * The partitioning proven on a job larger than this machine can run: 1,024 synthetic ranks whose records
 * (encoded as the shim encodes them, in frames of 256 records) stream into the analysis with K = 1, 2 and 4
 * shard threads, one after the other in one run. Each step every rank exchanges with its ring neighbours
 * (Irecv, Isend, Waitall), with a partner of a random pairing that changes every step (Sendrecv), and every
 * eighth step receives from MPI_ANY_SOURCE what its left neighbour sends; every 16th step is an Allreduce
 * on MPI_COMM_WORLD, every 32nd a Bcast on a split half. Printed per K: events per second (wall, and per
 * CPU-second of the whole process, all threads), the same findings as K = 1, and the memory of each shard
 * (V8 heap used, peak over the run) beside the coordinator's; before that, the CPU of one engine on this
 * thread as the lone engine, as the coordinator's and as one shard's of four. A benchmark, not a test.
 */
import { createEngine } from '../../server/src/engine/engine';
import type { Ownership } from '../../server/src/engine/model/ownership';
import { GLOBAL_ONLY, shardOwnership } from '../../server/src/shards/ownership-map';
import { ShardedEngine } from '../../server/src/shards/sharded-engine';
import { findingKey } from '../../server/src/shards/finding-merge';
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
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

const frames: { rank: number; data: Uint8Array }[] = [];
let records = 0;
const perRank: { rank: number; data: Uint8Array }[][] = job.ranks.map(() => []);
for (const r of job.ranks) {
  let batch: Uint8Array[] = [];
  let n = 0;
  const flush = () => {
    perRank[r.rank]?.push({ rank: r.rank, data: frameOf(batch) });
    records += n;
    batch = [];
    n = 0;
  };
  for (const e of r.events) {
    const rec = encodeEvent(e);
    batch.push(rec);
    n += rec.length / 64;
    if (n >= 256) flush();
  }
  if (batch.length > 0) flush();
  r.events.length = 0;
}
// Round robin over the ranks, each rank's frames in order, as the session receives them.
for (let i = 0; perRank.some((l) => l.length > i); i++)
  for (const l of perRank) {
    const f = l[i];
    if (f !== undefined) frames.push(f);
  }
const prepMs = performance.now() - t00;
console.log(
  `shard-sim: ${RANKS} ranks, ${STEPS} steps, ${records.toLocaleString('en-US')} records in ${frames.length.toLocaleString('en-US')} frames (generated in ${(prepMs / 1000).toFixed(1)} s)`,
);

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * One engine's CPU on this thread over every frame (no threads, no batches): the lone engine, the
 * coordinator's (global, owning no pair or communicator) and one shard's of four (owning a quarter).
 */
function engineCpuMs(owns: Ownership | undefined): number {
  gc?.();
  const engine = createEngine({ ranks: RANKS, ...(owns !== undefined ? { owns } : {}) });
  const c0 = process.cpuUsage();
  for (const f of frames) {
    engine.pushRecords(f.rank, f.data);
    engine.takeFindings();
  }
  engine.finish();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
// The first pass warms the JIT up; the second is measured.
for (const owns of [undefined, GLOBAL_ONLY, shardOwnership(0, 4)]) engineCpuMs(owns);
const lone = engineCpuMs(undefined);
const coordinator = engineCpuMs(GLOBAL_ONLY);
const shard = engineCpuMs(shardOwnership(0, 4));
console.log(
  `one engine on this thread, CPU: lone ${lone.toFixed(0)} ms; coordinator's ${coordinator.toFixed(0)} ms (${((coordinator / lone) * 100).toFixed(0)}%); one shard of four ${shard.toFixed(0)} ms (${((shard / lone) * 100).toFixed(0)}%)`,
);

const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const rows: string[][] = [
  [
    'K',
    'wall',
    'records/s (wall)',
    'records per CPU-s',
    'findings',
    'coordinator heap',
    'shard heaps (peak)',
  ],
];
let reference: string[] | undefined;
async function main(): Promise<void> {
  for (const k of KS) {
    gc?.();
    const base = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const engine = new ShardedEngine(RANKS, k);
    let coordinatorPeak = 0;
    frames.forEach((f, i) => {
      engine.pushRecords(f.rank, f.data);
      if (i % 512 === 0) {
        engine.takeFindings();
        coordinatorPeak = Math.max(coordinatorPeak, process.memoryUsage().heapUsed - base);
      }
    });
    const found = [...engine.takeFindings(), ...engine.finish()];
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    coordinatorPeak = Math.max(coordinatorPeak, process.memoryUsage().heapUsed - base);
    const keys = found.map(findingKey);
    reference ??= keys;
    const same = JSON.stringify(keys) === JSON.stringify(reference);
    const heaps = engine.shardHeaps();
    rows.push([
      String(k),
      `${(wallMs / 1000).toFixed(2)} s`,
      `${(((records / wallMs) * 1000) / 1e6).toFixed(3)} M`,
      `${(((records / cpuMs) * 1000) / 1e6).toFixed(3)} M`,
      `${found.length}${found.length > 0 ? ` (${[...new Set(found.map((f) => f.kind))].join(', ')})` : ''}${same ? ', same as K=1' : ', DIFFERENT from K=1'}`,
      `${mb(coordinatorPeak)}${k > 1 ? ' (model + global questions)' : ' (the lone engine)'}`,
      heaps.length === 0 ? 'no threads' : heaps.map(mb).join(', '),
    ]);
    await engine.dispose();
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  '));
  console.log(
    'records/s counts every record the analysis took (decoded by the coordinator and by every shard). Each shard keeps the model (ranks, requests, communicators, datatypes) from every record and runs the checks of its pairs and communicators; see ARCHITECTURE.md, "Shards".',
  );
}

void main();
