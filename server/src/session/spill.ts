/**
 * Spill files: what the ranks recorded after the analyzer died (native-shim/src/msc_spill.c). With
 * `mpiscope run --trace TRACE`, a rank that loses its connection without a close frame writes the frames it
 * could not send to TRACE.rankR.spill (the trace format: a {"type":"spill",...} session record, then the
 * rank's frames). `mpiscope report TRACE` merges them here.
 *
 * The shim numbers every frame it sends (its hello is frame 0) and starts the spill with a copy of its last
 * frames, since the ones the socket took may have died in the kernel's buffers with the analyzer. The spill
 * says the number of its first frame; the trace holds the rank's frames 0..n-1 in order; so the merge takes
 * the spill's frames from number n on. Nothing is fed twice, and frames neither file has are counted.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readTraceUpToCut, SESSION_RANK, type TraceFrame } from './trace-file';

/** What the merge added, for the report. */
export interface SpillSummary {
  /** The spill files merged, in rank order. */
  readonly files: readonly string[];
  /** 64-byte records that came from spill files (the analyzer never saw them). */
  readonly records: number;
  /** Frames of a rank that neither the trace nor its spill holds (more were in flight than the shim kept). */
  readonly missingFrames: number;
  /** Ranks whose spill reached its bound (MPISCOPE_SPILL_MAX_MB): their later calls were not recorded. */
  readonly fullRanks: readonly number[];
  /** Spill files left out, each with why (another run's, damaged). */
  readonly skipped: readonly string[];
}

const SPILL_NAME = /^(.*)\.rank(\d+)\.spill$/;

/** The spill files written next to a trace, whatever their rank (one per rank that lost the analyzer). */
export function spillFilesOf(tracePath: string): string[] {
  const dir = dirname(tracePath);
  const base = basename(tracePath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => ({ n, m: SPILL_NAME.exec(n) }))
    .filter((e) => e.m !== null && e.m[1] === base)
    .sort((a, b) => Number(a.m?.[2]) - Number(b.m?.[2]))
    .map((e) => join(dir, e.n));
}

/** A new trace at this path makes the spill files of an older run there meaningless: they go. */
export function removeStaleSpills(tracePath: string): void {
  for (const f of spillFilesOf(tracePath)) rmSync(f, { force: true });
}

interface SpillHead {
  type?: unknown;
  rank?: unknown;
  firstFrame?: unknown;
  pid?: unknown;
}

function parseJson(data: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(data.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The trace's frames with its spill files' new frames added at the end (before the session's end record,
 * when the session lived to write one), interleaved a frame of each rank in turn as they would have arrived.
 * Undefined summary when there is no spill file.
 */
export function mergeSpills(
  tracePath: string,
  frames: readonly TraceFrame[],
  ranks: number,
): { frames: TraceFrame[]; summary?: SpillSummary } {
  const seen = new TraceTally();
  for (const f of frames) seen.add(f);
  const spills = spillFrames(tracePath, seen, ranks);
  if (spills === undefined) return { frames: [...frames] };
  const out = [...frames];
  const last = out[out.length - 1];
  const end = last !== undefined && isEndRecord(last) ? out.pop() : undefined;
  out.push(...spills.frames);
  if (end !== undefined) out.push(end);
  return { frames: out, summary: spills.summary };
}

/** Whether a frame is the session's end record (the last frame of a trace whose session lived to write it). */
export function isEndRecord(f: TraceFrame): boolean {
  return f.rank === SESSION_RANK && parseJson(f.data)?.type === 'end';
}

/** What the spill merge needs to know of a trace: each rank's frame count and its hello's pid. */
export class TraceTally {
  readonly frames = new Map<number, number>();
  readonly pids = new Map<number, number>();

  add(f: TraceFrame): void {
    if (f.rank === SESSION_RANK) return;
    const n = this.frames.get(f.rank) ?? 0;
    if (n === 0 && f.kind === 'text') {
      const pid = parseJson(f.data)?.pid;
      if (typeof pid === 'number') this.pids.set(f.rank, pid);
    }
    this.frames.set(f.rank, n + 1);
  }
}

/**
 * The spill files' frames that the trace does not hold, interleaved a frame of each rank in turn, and what the
 * merge did; undefined when there is no spill file. `seen` is the trace's tally (TraceTally).
 */
export function spillFrames(
  tracePath: string,
  seen: TraceTally,
  ranks: number,
): { frames: TraceFrame[]; summary: SpillSummary } | undefined {
  const files = spillFilesOf(tracePath);
  if (files.length === 0) return undefined;
  const pids = seen.pids;
  const added: TraceFrame[][] = [];
  const merged: string[] = [];
  const skipped: string[] = [];
  const fullRanks: number[] = [];
  let records = 0;
  let missingFrames = 0;
  for (const file of files) {
    let spill: TraceFrame[];
    try {
      // A rank killed while writing its spill leaves it cut mid-frame: what is whole is used.
      spill = readTraceUpToCut(file).frames;
    } catch (err) {
      skipped.push(`${file}: ${(err as Error).message}`);
      continue;
    }
    const head = spill[0];
    const meta = (head?.rank === SESSION_RANK ? parseJson(head.data) : undefined) as SpillHead | undefined;
    const rank = meta?.rank;
    const first = meta?.firstFrame;
    if (
      meta?.type !== 'spill' ||
      typeof rank !== 'number' ||
      !Number.isInteger(rank) ||
      rank < 0 ||
      rank >= ranks ||
      typeof first !== 'number' ||
      !Number.isInteger(first) ||
      first < 0
    ) {
      skipped.push(`${file}: not a spill file of this ${ranks}-rank trace`);
      continue;
    }
    const pid = pids.get(rank);
    if (pid !== undefined && typeof meta.pid === 'number' && meta.pid !== pid) {
      skipped.push(
        `${file}: written by process ${meta.pid}, not by rank ${rank} of this trace (process ${pid})`,
      );
      continue;
    }
    const have = seen.frames.get(rank) ?? 0;
    if (first > have) missingFrames += first - have;
    const mine: TraceFrame[] = [];
    let index = first;
    for (const f of spill.slice(1)) {
      if (f.rank === SESSION_RANK) {
        if (parseJson(f.data)?.type === 'spill-full') fullRanks.push(rank);
        continue;
      }
      if (f.rank !== rank) continue;
      if (index++ < have) continue;
      mine.push(f);
      if (f.kind === 'binary') records += f.data.length / 64;
    }
    added.push(mine);
    merged.push(file);
  }
  const out: TraceFrame[] = [];
  for (let i = 0; added.some((a) => i < a.length); i++)
    for (const a of added) {
      const f = a[i];
      if (f !== undefined) out.push(f);
    }
  return { frames: out, summary: { files: merged, records, missingFrames, fullRanks, skipped } };
}
