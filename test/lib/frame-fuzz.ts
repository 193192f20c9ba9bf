/**
 * Structure-aware fuzzing of what a rank sends the analyzer: well-formed streams (written by the test encoder
 * from engine-DSL jobs, or taken from a recorded trace) mutated at the level the format has — records, their
 * fields, frames — and fed through the session's own path (Analysis: the decoder, then the engine) the way the
 * session does: a frame that throws closes that rank only, and the others go on. The promise under test is
 * DESIGN.md's "every field of every frame is validated; a bad frame closes that connection with a reason,
 * never the session": anything thrown that is not a DecodeError (a TypeError or RangeError in the decoder, any
 * throw from the engine, which must take every well-formed event), and any throw from the end-of-run analyses,
 * is a failure.
 *
 * No coverage-guided JS fuzzer installs from npm without downloading a prebuilt binary (Jazzer.js does), so
 * the mutations are chosen to reach the decoder's branches on purpose: every record kind, function ids at and
 * past the table's end, EXT records out of place, calls split across frames, words at the edges of int64 and
 * of 2^53, frames cut mid-record and oversized.
 */
import type { RankEvent } from '../../server/src/engine/model/types';
import { DecodeError } from '../../server/src/protocol/decode-error';
import { KIND, RECORD_SIZE } from '../../server/src/protocol/spec';
import { encodeEvents } from '../../server/src/protocol/testing/encode';
import { Analysis } from '../../server/src/session/analysis';
import { createFrameDecoder } from '../../server/src/session/engine-port';

/** One rank's stream: the binary frames in the order they are sent. */
export type RankStream = Uint8Array[];

/** A job's streams, one per rank, and its size (a rank number past it is what a lying hello cannot pass). */
export interface FuzzJob {
  readonly size: number;
  readonly streams: RankStream[];
}

/** A small deterministic PRNG (xorshift32), so a failing input is found again from its seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s;
  }
  below(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
  chance(p: number): boolean {
    return this.next() / 4294967296 < p;
  }
}

/** Frames of one rank's events as the shim sends them: whole calls, up to `perFrame` records a frame. */
export function framesOf(events: readonly RankEvent[], perFrame = 64): RankStream {
  const frames: RankStream = [];
  let parts: Uint8Array[] = [];
  let records = 0;
  const flush = (): void => {
    if (records === 0) return;
    const f = new Uint8Array(records * RECORD_SIZE);
    let at = 0;
    for (const p of parts) {
      f.set(p, at);
      at += p.length;
    }
    frames.push(f);
    parts = [];
    records = 0;
  };
  // As the shim writes them (format 2): a blocking call's COMPLETE and EXIT merged into one record.
  for (const call of encodeEvents(events)) {
    if (records > 0 && records + call.length / RECORD_SIZE > perFrame) flush();
    parts.push(call);
    records += call.length / RECORD_SIZE;
  }
  flush();
  return frames;
}

/** A job's events (rank by rank) as streams. */
export function jobOf(size: number, events: readonly RankEvent[], perFrame = 64): FuzzJob {
  const byRank: RankEvent[][] = Array.from({ length: size }, () => []);
  for (const e of events) byRank[e.rank]?.push(e);
  return { size, streams: byRank.map((evs) => framesOf(evs, perFrame)) };
}

const INTERESTING_WORDS: readonly bigint[] = [
  0n,
  1n,
  -1n,
  2n,
  -2n,
  3n,
  7n,
  0x7fn,
  0xffn,
  0x7fffn,
  0xffffn,
  0x7fffffffn,
  -0x80000000n,
  0xffffffffn,
  1n << 32n,
  (1n << 53n) - 1n,
  1n << 53n,
  (1n << 53n) + 1n,
  (1n << 63n) - 1n,
  -(1n << 63n),
  -32766n, // MPI_UNDEFINED as the shim normalises it
  1024n,
  65536n,
];

const INTERESTING_BYTES = [0, 1, 2, 3, 0x7f, 0x80, 0xfe, 0xff];

function records(frame: Uint8Array): number {
  return Math.floor(frame.length / RECORD_SIZE);
}

/** One mutation of a stream, at the level of the format: byte, field, record or frame. */
function mutateStream(stream: RankStream, rng: Rng, donor: RankStream): void {
  if (stream.length === 0) {
    stream.push(new Uint8Array(RECORD_SIZE));
    return;
  }
  const fi = rng.below(stream.length);
  let f = stream[fi] as Uint8Array;
  const n = records(f);
  const rec = rng.below(Math.max(1, n));
  const at = rec * RECORD_SIZE;
  const view = new DataView(f.buffer, f.byteOffset, f.byteLength);
  switch (rng.below(16)) {
    case 0: // a bit
      if (f.length > 0) {
        const b = rng.below(f.length);
        f[b] = (f[b] ?? 0) ^ (1 << rng.below(8));
      }
      break;
    case 1: // a byte to an edge value
      if (f.length > 0) f[rng.below(f.length)] = INTERESTING_BYTES[rng.below(INTERESTING_BYTES.length)] ?? 0;
      break;
    case 2: // the kind: every kind there is, and a few that are not
      if (n > 0) view.setUint8(at, rng.below(KIND.BSEND + 4));
      break;
    case 3: // the function id: in range, at the end of the table, far past it
      if (n > 0) view.setUint16(at + 2, rng.chance(0.5) ? rng.below(600) : rng.next() & 0xffff, true);
      break;
    case 4: // the seq: an EXT that no longer matches its head, a call out of order
      if (n > 0)
        view.setUint32(
          at + 4,
          rng.chance(0.5) ? view.getUint32(at + 4, true) + rng.below(3) - 1 : rng.next(),
          true,
        );
      break;
    case 5: // a word (head words from byte 24, EXT words from byte 8) to an edge value
    case 6:
      if (n > 0) {
        const word = 8 * (1 + rng.below(7));
        view.setBigInt64(at + word, INTERESTING_WORDS[rng.below(INTERESTING_WORDS.length)] ?? 0n, true);
      }
      break;
    case 7: // a record duplicated
      if (n > 0) f = splice(f, at, 0, f.subarray(at, at + RECORD_SIZE));
      break;
    case 8: // a record lost
      if (n > 0) f = splice(f, at, RECORD_SIZE, new Uint8Array(0));
      break;
    case 9: {
      // two records swapped (an EXT before its head, a call's records interleaved with another's)
      const other = rng.below(Math.max(1, n)) * RECORD_SIZE;
      if (n > 1) {
        const a = f.slice(at, at + RECORD_SIZE);
        f.copyWithin(at, other, other + RECORD_SIZE);
        f.set(a, other);
      }
      break;
    }
    case 10: // the frame cut short, mid-record or at a record boundary
      f = f.slice(0, rng.chance(0.5) ? rng.below(f.length + 1) : rng.below(n + 1) * RECORD_SIZE);
      break;
    case 11: {
      // the frame split in two at a record boundary (a call's EXT records arrive in the next frame)
      const cut = rng.below(n + 1) * RECORD_SIZE;
      stream.splice(fi, 1, f.slice(0, cut), f.slice(cut));
      return;
    }
    case 12: // a frame sent twice
      stream.splice(fi, 0, f.slice());
      return;
    case 13: {
      // two frames swapped
      const fj = rng.below(stream.length);
      const g = stream[fj] as Uint8Array;
      stream[fj] = f;
      stream[fi] = g;
      return;
    }
    case 14: {
      // records of another stream spliced in (another rank's calls, seqs and handles)
      const d = donor[rng.below(donor.length)];
      if (d !== undefined && records(d) > 0) {
        const from = rng.below(records(d)) * RECORD_SIZE;
        const len = (1 + rng.below(Math.min(8, records(d) - from / RECORD_SIZE))) * RECORD_SIZE;
        f = splice(f, at, 0, d.subarray(from, from + len));
      }
      break;
    }
    case 15: {
      // oversized: a record repeated many times (an open-ended call that never ends, a flood of one kind)
      if (n > 0) {
        const times = 1 + rng.below(2048);
        const big = new Uint8Array(f.length + times * RECORD_SIZE);
        big.set(f.subarray(0, at + RECORD_SIZE));
        for (let k = 0; k < times; k++) big.set(f.subarray(at, at + RECORD_SIZE), at + RECORD_SIZE * (k + 1));
        big.set(f.subarray(at + RECORD_SIZE), at + RECORD_SIZE * (times + 1));
        f = big;
      }
      break;
    }
  }
  stream[fi] = f;
}

function splice(f: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(f.length - remove + insert.length);
  out.set(f.subarray(0, at));
  out.set(insert, at);
  out.set(f.subarray(at + remove), at + insert.length);
  return out;
}

/** A mutated copy of a job: a few mutations (1 to 8) spread over its ranks' streams. */
export function mutateJob(job: FuzzJob, rng: Rng): FuzzJob {
  const streams = job.streams.map((s) => s.map((f) => f.slice()));
  const times = 1 + rng.below(8);
  for (let i = 0; i < times; i++) {
    const r = rng.below(streams.length);
    mutateStream(streams[r] as RankStream, rng, job.streams[rng.below(job.streams.length)] ?? []);
  }
  return { size: job.size, streams };
}

/** What one input did: how many of its ranks' connections the session would have closed, and why. */
export interface FuzzOutcome {
  readonly closed: number;
  readonly reasons: readonly string[];
}

/** A failure of the promise: not a DecodeError from a frame, or a throw from the end of the run. */
export class FuzzFailure extends Error {
  constructor(
    readonly where: string,
    readonly thrown: unknown,
  ) {
    super(`${where}: ${thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown)}`);
    this.name = 'FuzzFailure';
  }
}

/**
 * The decoder alone (one per rank, as per connection): a frame either decodes or throws a DecodeError with a
 * reason, after which that rank sends nothing more. An order of magnitude cheaper than runJob (no engine to
 * build), so the long run reaches 10^6 inputs. Throws FuzzFailure.
 */
export function decodeJob(job: FuzzJob): FuzzOutcome {
  const reasons: string[] = [];
  job.streams.forEach((stream, r) => {
    const decoder = createFrameDecoder(r);
    for (const [i, f] of stream.entries()) {
      try {
        decoder.decode(f);
      } catch (err) {
        if (!(err instanceof DecodeError) || err.reason === '')
          throw new FuzzFailure(`rank ${r} frame ${i}`, err);
        reasons.push(err.reason);
        return;
      }
    }
  });
  return { closed: reasons.length, reasons };
}

/**
 * Feeds a job through Analysis as the session does: frames in rank-interleaved order, a rank whose frame
 * throws a DecodeError is closed and sends nothing more, then the end of the run. Throws FuzzFailure.
 */
export function runJob(job: FuzzJob): FuzzOutcome {
  const analysis = new Analysis(job.size, '/nonexistent');
  const reasons: string[] = [];
  const live = new Set<number>();
  for (let r = 0; r < job.streams.length; r++) {
    analysis.open(r);
    live.add(r);
  }
  const longest = Math.max(0, ...job.streams.map((s) => s.length));
  for (let i = 0; i < longest; i++) {
    for (let r = 0; r < job.streams.length; r++) {
      const f = job.streams[r]?.[i];
      if (f === undefined || !live.has(r)) continue;
      try {
        analysis.frame(r, f);
        analysis.engine.takeFindings();
      } catch (err) {
        if (!(err instanceof DecodeError)) throw new FuzzFailure(`rank ${r} frame ${i}`, err);
        if (err.message.length === 0)
          throw new FuzzFailure(`rank ${r} frame ${i}`, 'a DecodeError without a reason');
        reasons.push(err.reason);
        live.delete(r);
        analysis.close(r);
      }
    }
  }
  try {
    analysis.engine.findDeadlock();
    analysis.closeAll();
    analysis.observedFindings(analysis.engine.finish());
    analysis.engine.rankStates();
    analysis.engine.skippedChecks();
  } catch (err) {
    throw new FuzzFailure('end of run', err);
  }
  return { closed: reasons.length, reasons };
}
