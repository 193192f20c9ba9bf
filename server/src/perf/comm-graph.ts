/**
 * Communication graphs for `mpiscope map`: bytes sent from rank i to rank j, from a run's trace or from a
 * collective algorithm's exchange pattern. Square, row = sender, stored as a flat Float64Array.
 */
import { SESSION_RANK, TraceReader } from '../session/trace-file';
import { createFrameDecoder, type FrameDecoder } from '../session/engine-port';
import { UsageError } from '../session/session-api';
import { TimelineModel } from '../timeline/timeline-model';

export interface CommGraph {
  readonly ranks: number;
  /** bytes[i * ranks + j]: bytes rank i sent to rank j. */
  readonly bytes: Float64Array;
}

export const ALGORITHMS = ['recursive-doubling', 'bruck', 'ring'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

/**
 * The allgather exchange of `block` bytes per rank:
 * - recursive doubling (ranks a power of two): at step k rank i exchanges its 2^k gathered blocks with i XOR 2^k;
 * - Bruck: at step k rank i sends min(2^k, n - 2^k) blocks to i - 2^k (mod n);
 * - ring: n - 1 steps, each rank sends one block to i + 1 (mod n).
 */
export function algorithmGraph(algorithm: Algorithm, ranks: number, block: number): CommGraph {
  const bytes = new Float64Array(ranks * ranks);
  const add = (i: number, j: number, b: number): void => {
    bytes[i * ranks + j] = (bytes[i * ranks + j] ?? 0) + b;
  };
  switch (algorithm) {
    case 'recursive-doubling':
      if ((ranks & (ranks - 1)) !== 0)
        throw new UsageError(
          `recursive doubling exchanges with rank XOR 2^k, so it needs a power-of-two number of ranks (got ${ranks}); use --algorithm bruck or ring`,
        );
      for (let k = 1; k < ranks; k <<= 1) for (let i = 0; i < ranks; i++) add(i, i ^ k, k * block);
      break;
    case 'bruck':
      for (let k = 1; k < ranks; k <<= 1)
        for (let i = 0; i < ranks; i++) add(i, (i - k + ranks) % ranks, Math.min(k, ranks - k) * block);
      break;
    case 'ring':
      for (let i = 0; i < ranks; i++) add(i, (i + 1) % ranks, (ranks - 1) * block);
      break;
  }
  return { ranks, bytes };
}

/**
 * Bytes per rank pair of a traced run: every point-to-point message, paired send to receive exactly as the
 * timeline pairs them (timeline-model.ts), with the receive's byte count. Collectives are not counted: their
 * traffic depends on the MPI library's algorithm, which the trace does not show (model one with
 * --algorithm instead).
 */
export function traceGraph(path: string): CommGraph {
  let reader: TraceReader;
  try {
    reader = new TraceReader(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(
      e.code === 'ENOENT'
        ? `trace file ${path} not found; write one with mpiscope run --trace FILE`
        : e.message,
    );
  }
  // Read as the model takes it, a chunk at a time (TraceReader), not the whole file at once.
  const frames = reader.frames();
  const head = frames.next().value;
  if (head === undefined || head.rank !== SESSION_RANK) {
    frames.return();
    throw new UsageError(`${path} has no session record; it was cut short before the job started`);
  }
  let session: { ranks?: number };
  try {
    session = JSON.parse(head.data.toString('utf8')) as { ranks?: number };
  } catch {
    frames.return();
    throw new UsageError(`${path} has a damaged session record (not JSON)`);
  }
  const ranks = session.ranks ?? 0;
  if (!Number.isInteger(ranks) || ranks < 2) {
    frames.return();
    throw new UsageError(`${path} is a run of ${String(ranks)} rank(s); mapping needs at least 2`);
  }
  const model = new TimelineModel(ranks);
  const decoders = new Map<number, FrameDecoder>();
  const damaged = new Set<number>();
  for (const f of frames) {
    if (f.kind !== 'binary' || f.rank >= ranks || damaged.has(f.rank)) continue;
    let d = decoders.get(f.rank);
    if (d === undefined) decoders.set(f.rank, (d = createFrameDecoder(f.rank)));
    try {
      for (const e of d.decode(f.data)) model.push(e);
    } catch {
      // A damaged frame ends what this rank contributes, as it closed the rank's connection in the run.
      damaged.add(f.rank);
    }
  }
  const batch = model.takeBatch();
  const bytes = new Float64Array(ranks * ranks);
  const m = batch?.messages;
  if (m !== undefined)
    for (let k = 0; k < m.src.length; k++) {
      const i = m.src[k] as number;
      const j = m.dst[k] as number;
      if (i >= 0 && i < ranks && j >= 0 && j < ranks)
        bytes[i * ranks + j] = (bytes[i * ranks + j] ?? 0) + (m.bytes[k] ?? 0);
    }
  if (!bytes.some((b) => b > 0))
    throw new UsageError(
      `${path} holds no point-to-point message between ranks, so there is no traffic to place; map a collective with --algorithm instead`,
    );
  return { ranks, bytes };
}

/** Bytes that cross hosts under a placement (host index per rank). */
export function interHostBytes(g: CommGraph, placement: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < g.ranks; i++)
    for (let j = 0; j < g.ranks; j++) if (placement[i] !== placement[j]) sum += g.bytes[i * g.ranks + j] ?? 0;
  return sum;
}
