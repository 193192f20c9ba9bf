import type { EngineFinding, RankEvent, SkippedCheck } from '../engine/model/types';
import { DEFAULT_ANALYZERS } from '../shards/analyzers';
import { Analysis } from './analysis';
import { noProgressFinding } from './hang-watch';
import { parseRankText } from './held-ack';
import { parseHello } from './rank-server';
import { UsageError, type Finding, type SessionResult, type SessionStart } from './session-api';
import { isEndRecord, spillFilesOf, spillFrames, TraceTally } from './spill';
import { SESSION_RANK, TraceReader, type TraceCut, type TraceFrame } from './trace-file';
import { RankMerge } from './rank-merge';

interface SessionRecord {
  readonly program?: string;
  readonly ranks?: number;
  readonly mpi?: string;
  readonly cwd?: string;
  readonly deadlockTimeout?: number;
}

interface HangRecord {
  readonly how?: 'graph' | 'no-progress';
  readonly ranks?: readonly number[];
  readonly seconds?: number;
}

function noProgressAt(analysis: Analysis, rec: HangRecord): EngineFinding {
  const stuck = analysis.engine.rankStates().filter((s) => rec.ranks?.includes(s.rank) ?? false);
  return noProgressFinding(stuck, rec.seconds ?? 0);
}

interface EndRecord {
  readonly exitCode?: number | null;
  readonly outcome?: SessionResult['outcome'];
}

/** What a caller that wants more than the report (the trace's timeline) is told during a replay. */
export interface ReplayHooks {
  /** The job's shape from the session record, before any event (a consumer can build on the events as they come). */
  start?(ranks: number, program: string): void;
  /**
   * A binary frame's decoded events, right after the engine took them; `findingsSoFar` counts the findings
   * found up to and including this frame (the resolved findings come back in the same order), so a caller
   * can place each finding at the event where it was found.
   */
  events(events: readonly RankEvent[], findingsSoFar: number): void;
  /** Before the analysis is disposed: resolve call sites with the run's binaries (rank, return address). */
  sites?(
    resolve: (
      rank: number,
      address: number,
    ) => Promise<{ file: string; line: number; function: string } | undefined>,
  ): Promise<void>;
}

/**
 * Rebuild a run's findings from its trace (`mpiscope report TRACE`): the same frames through the same
 * decoder and engine, in the order they arrived. A job we ended for a deadlock is asked for that deadlock
 * again once its frames are replayed.
 *
 * With `analyze: false` the frames are only decoded for the hooks (the engine, most of a replay's cost,
 * gets nothing): the result then has no findings and no endings, and its outcome is the one the trace
 * recorded ('completed' when it recorded none). The trace editor draws the timeline from such a pass
 * before the findings' pass is done.
 */
export async function replayTrace(
  path: string,
  analyzers = DEFAULT_ANALYZERS,
  hooks?: ReplayHooks,
  { analyze = true }: { analyze?: boolean } = {},
): Promise<{ start: SessionStart; result: SessionResult; cut?: TraceCut }> {
  let reader: TraceReader;
  try {
    reader = new TraceReader(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(
      e.code === 'ENOENT'
        ? `trace file ${path} not found; pass the file written by mpiscope run --trace`
        : e.message,
    );
  }
  // The frames are read as they are replayed, a chunk of the file at a time (TraceReader): the report holds
  // what the analysis keeps, not the trace.
  const opening = reader.frames();
  const head = opening.next().value;
  opening.return();
  if (head === undefined || head.rank !== SESSION_RANK)
    throw new UsageError(`${path} has no session record; it was cut short before the job started`);
  const session = parseRecord(head.data) as SessionRecord | undefined;
  if (session === undefined) throw new UsageError(`${path} has a damaged session record (not JSON)`);
  const ranks = session.ranks ?? 0;
  if (!Number.isInteger(ranks) || ranks < 1)
    throw new UsageError(`${path} has a damaged session record (ranks ${String(ranks)})`);
  hooks?.start?.(ranks, session.program ?? '');
  // What the ranks recorded after the analyzer died, from their spill files (spill.ts): the merge needs each
  // rank's frame count in the trace, so a trace with spill files is read twice.
  let spilled: ReturnType<typeof spillFrames>;
  if (spillFilesOf(path).length > 0) {
    const tally = new TraceTally();
    for (const f of reader.frames()) tally.add(f);
    spilled = spillFrames(path, tally, ranks);
  }
  const spill = spilled?.summary;
  const analysis = new Analysis(ranks, session.cwd ?? process.cwd(), analyzers);
  try {
    const raw: EngineFinding[] = [];
    const refused = new Set<number>();
    let end: EndRecord = {};
    let hangSeen = false;
    let first = true;
    for (const f of withSpills(reader.frames(), spilled?.frames ?? [])) {
      if (first) {
        first = false; // the session record, read above
        continue;
      }
      if (f.rank === SESSION_RANK) {
        const rec = (parseRecord(f.data) ?? {}) as EndRecord & HangRecord & { type?: string; rank?: number };
        if (rec.type === 'end') end = rec;
        if (!analyze) continue;
        // The rank's connection closed here in the live session.
        if (
          rec.type === 'closed' &&
          Number.isInteger(rec.rank) &&
          (rec.rank ?? -1) >= 0 &&
          (rec.rank ?? ranks) < ranks
        ) {
          analysis.close(rec.rank ?? 0);
          raw.push(...analysis.takeFindings());
        }
        if (rec.type === 'hang') {
          // The live session found the hang here, before the job was ended (and ranks sent their last records).
          hangSeen = true;
          analysis.endingJob();
          // Every shard's findings of the stream so far come first, as with one engine (session.ts tick).
          analysis.engine.settle();
          raw.push(...analysis.takeFindings());
          const found = rec.how === 'graph' ? analysis.engine.findDeadlock() : noProgressAt(analysis, rec);
          if (found !== undefined) raw.push(found);
          raw.push(...analysis.takeFindings());
        }
        continue;
      }
      if (refused.has(f.rank)) continue;
      if (f.kind === 'text') {
        const text = f.data.toString('utf8');
        if (!analysis.connected(f.rank)) {
          if (typeof parseHello(text, ranks) !== 'string') analysis.open(f.rank);
          continue;
        }
        // Modules and the sites a rank resolved itself (its binary is not on this machine).
        const parsed = parseRankText(text);
        if (typeof parsed !== 'string' && parsed.type === 'module') analysis.module(f.rank, parsed.module);
        if (typeof parsed !== 'string' && parsed.type === 'sites') analysis.rankSites(f.rank, parsed.sites);
        if (typeof parsed !== 'string' && parsed.type === 'crash') analysis.crash(f.rank, parsed.crash);
        continue;
      }
      let events: readonly RankEvent[] = [];
      try {
        events = analysis.frame(f.rank, f.data, hooks !== undefined, analyze).events;
      } catch {
        // The live session closed this connection at the same frame.
        refused.add(f.rank);
        analysis.close(f.rank);
      }
      if (analyze) raw.push(...analysis.takeFindings());
      hooks?.events(events, raw.length);
    }
    const start: SessionStart = {
      program: session.program ?? '',
      ranks,
      mpi: session.mpi ?? '',
      command: [],
      pid: 0,
    };
    if (!analyze) {
      await hooks?.sites?.((rank, address) => analysis.resolveSite(rank, address));
      return {
        ...(reader.cut !== undefined ? { cut: reader.cut } : {}),
        start,
        result: {
          findings: [],
          ranks,
          exitCode: end.exitCode ?? null,
          outcome: end.outcome ?? 'completed',
          endings: [],
          ...(spill !== undefined ? { spill } : {}),
        },
      };
    }
    let killed = end.outcome === 'deadlock' || end.outcome === 'terminated';
    const unfinished = Array.from({ length: ranks }, (_, r) => r).some((r) => !analysis.ended(r));
    // A trace without a hang marker whose ranks did not all end was cut short (the analyzer died): ask now.
    if (!hangSeen && unfinished && end.outcome !== 'terminated') {
      analysis.engine.settle();
      raw.push(...analysis.takeFindings());
      const deadlock = analysis.engine.findDeadlock();
      if (deadlock !== undefined) {
        raw.push(deadlock, ...analysis.takeFindings());
        killed = true;
      }
    }
    analysis.closeAll();
    if (!killed) raw.push(...analysis.observedFindings(analysis.engine.finish()));
    else {
      analysis.engine.releaseHeld();
      raw.push(...analysis.takeFindings());
    }
    // MPI's own errors and crashes inside calls that no finding of ours explained (as the live session, last).
    raw.push(...analysis.verdicts());
    const findings: Finding[] = [];
    const rankMerge = new RankMerge();
    for (const f of raw) rankMerge.add(findings, await analysis.resolve(f), f.merge);
    await hooks?.sites?.((rank, address) => analysis.resolveSite(rank, address));
    const outcome = end.outcome ?? (killed ? 'deadlock' : 'completed');
    return {
      ...(reader.cut !== undefined ? { cut: reader.cut } : {}),
      start,
      result: {
        findings,
        ranks,
        exitCode: end.exitCode ?? null,
        outcome,
        ...(analysis.engine.lostRecords() > 0 ? { lostRecords: analysis.engine.lostRecords() } : {}),
        ...skippedOf(analysis.engine),
        endings: await analysis.endings(),
        ...(spill !== undefined ? { spill } : {}),
      },
    };
  } finally {
    await analysis.dispose();
  }
}

/** A session record's JSON object, or undefined when it is damaged (the replay goes on without it). */
function parseRecord(data: Buffer): object | undefined {
  try {
    const v: unknown = JSON.parse(data.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The engine's skipped checks, as an optional field of the result (absent when every check ran). */
function skippedOf(engine: { skippedChecks(): SkippedCheck[] }): { skippedChecks?: SkippedCheck[] } {
  const skipped = engine.skippedChecks();
  return skipped.length > 0 ? { skippedChecks: skipped } : {};
}

/**
 * The trace's frames, then the spill files' frames, before the session's end record when the trace ends with
 * one (the order mergeSpills gives a whole trace).
 */
function* withSpills(frames: Iterable<TraceFrame>, spills: readonly TraceFrame[]): Generator<TraceFrame> {
  let held: TraceFrame | undefined;
  for (const f of frames) {
    if (held !== undefined) yield held;
    held = f;
  }
  if (held !== undefined && isEndRecord(held)) {
    yield* spills;
    yield held;
  } else {
    if (held !== undefined) yield held;
    yield* spills;
  }
}
