/**
 * The set-up the analyzer's benchmarks share (bench/shard-sim, bench/engine-throughput): a synthetic job's
 * calls (written with the engine tests' DSL) encoded as the shim encodes them, cut into frames as the shim's
 * sender thread batches them, and interleaved as the session receives them; and the CPU time of this process.
 */
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
import type { Job } from '../../test/unit/engine-dsl';

/** Records per frame: the shim's sender thread sends a rank's records in frames of up to this many. */
export const RECORDS_PER_FRAME = 256;

export interface Frame {
  readonly rank: number;
  readonly data: Uint8Array;
}

export interface Stream {
  /** Every rank's frames, round robin over the ranks (each rank's in its order): the session's arrival order. */
  readonly frames: Frame[];
  /** 64-byte records in all. */
  readonly records: number;
}

/**
 * Encodes every rank's events of `job` into frames of `perFrame` records and interleaves them round robin.
 * Each rank's event list is emptied as it is encoded (a job of a thousand ranks holds millions of events).
 */
export function streamOf(job: Job, perFrame = RECORDS_PER_FRAME): Stream {
  let records = 0;
  const perRank: Frame[][] = job.ranks.map((r) => {
    const out: Frame[] = [];
    let batch: Uint8Array[] = [];
    let n = 0;
    const flush = () => {
      out.push({ rank: r.rank, data: frameOf(batch) });
      records += n;
      batch = [];
      n = 0;
    };
    for (const e of r.events) {
      const rec = encodeEvent(e);
      batch.push(rec);
      n += rec.length / 64;
      if (n >= perFrame) flush();
    }
    if (batch.length > 0) flush();
    r.events.length = 0;
    return out;
  });
  const frames: Frame[] = [];
  for (let i = 0; perRank.some((l) => l.length > i); i++)
    for (const l of perRank) {
      const f = l[i];
      if (f !== undefined) frames.push(f);
    }
  return { frames, records };
}

/** This process's CPU time (every thread: user and system) since `from`, in ms. */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** The CPU time of `run()` in ms, after a full collection (when node runs with --expose-gc: run-bench.mjs). */
export function cpuMsOf(run: () => void): number {
  collect();
  const c0 = process.cpuUsage();
  run();
  return cpuMsSince(c0);
}

/** A full collection when node runs with --expose-gc, so that heap numbers are what is held. */
export function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
