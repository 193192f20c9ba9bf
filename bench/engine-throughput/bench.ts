/**
 * Events per second through the decoder and the engine, on a synthetic 8-rank halo exchange (Irecv, Isend,
 * Waitall, a collective every 100 steps): about 1M events. A benchmark, not a test: it prints numbers.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createEngine } from '../../server/src/engine/engine';
import type { RankEvent } from '../../server/src/engine/model/types';
import { RankDecoder } from '../../server/src/protocol/decoder';
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
import { Job } from '../../test/unit/engine-dsl';

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
const profileTo = process.env['MPISCOPE_BENCH_PROFILE'];
const inspector = profileTo ? new Session() : undefined;
if (inspector) {
  inspector.connect();
  inspector.post('Profiler.enable');
  inspector.post('Profiler.start');
}

const decoders = Array.from({ length: RANKS }, (_, r) => new RankDecoder(r));
// CPU time of this process (all its threads, the garbage collector's included) beside the wall time: on a
// machine others load, it moves much less than the wall time between runs.
const cpu0 = process.cpuUsage();
let t0 = performance.now();
const events: RankEvent[] = [];
for (const f of order) for (const e of (decoders[f.rank] as RankDecoder).decode(f.data)) events.push(e);
const decodeMs = performance.now() - t0;

const engine = createEngine({ ranks: RANKS });
t0 = performance.now();
for (const e of events) engine.push(e);
const pushMs = performance.now() - t0;
t0 = performance.now();
const findings = [...engine.takeFindings(), ...engine.finish()];
const finishMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
const engineMs = pushMs + finishMs;
if (inspector && profileTo)
  inspector.post('Profiler.stop', (err, res) => {
    if (err === null) writeFileSync(profileTo, JSON.stringify(res.profile));
    inspector.disconnect();
  });

const rate = (n: number, ms: number) => `${(((n / ms) * 1000) / 1e6).toFixed(2)}M/s`;
for (const f of findings.slice(0, 3)) console.log(`unexpected: ${f.kind}: ${f.message}`);
console.log(`records: ${records}, events: ${events.length}, findings: ${findings.length} (expected 0)`);
console.log(
  `decode: ${decodeMs.toFixed(0)} ms, ${rate(records, decodeMs)} records, ${rate(events.length, decodeMs)} events`,
);
console.log(
  `engine: push ${pushMs.toFixed(0)} ms (${rate(events.length, pushMs)} events), finish ${finishMs.toFixed(0)} ms (replay, races, leaks), total ${rate(events.length, engineMs)} events`,
);
console.log(
  `decode+engine: ${rate(events.length, decodeMs + engineMs)} events (wall); CPU ${cpuMs.toFixed(0)} ms, ${rate(events.length, cpuMs)} events per CPU-second (issue 12's goal: 5.00M/s on one core)`,
);
console.log(
  `heap used after run: ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB (includes the ${events.length} events kept for timing)`,
);
