import type { RankEvent } from '../engine/model/types';
import { DEFAULT_ANALYZERS } from '../shards/analyzers';
import { replayTrace, type ReplayHooks } from '../session/replay';
import type { SessionResult, SessionStart } from '../session/session-api';
import type { TraceCut } from '../session/trace-file';
import { TimelineModel } from './timeline-model';
import type { TimelineMessage } from './timeline-protocol';

/** Events per data batch: a webview ingests a batch per task, so a million events never block it at once. */
const BATCH_EVENTS = 50_000;

export interface TraceTimeline {
  readonly start: SessionStart;
  readonly result: SessionResult;
  readonly cut?: TraceCut;
  /** A reset, then data batches: the whole job, as the live timeline would have received it. */
  readonly messages: TimelineMessage[];
}

/** A trace's timeline drawn before its findings are judged (the trace editor): see openTraceTimeline. */
export interface TraceTimelineFirst {
  readonly start: SessionStart;
  readonly cut?: TraceCut;
  /**
   * A reset, then data batches: every call and message of the job; no finding and no source line yet (empty
   * when they went to openTraceTimeline's onMessage instead).
   */
  readonly messages: TimelineMessage[];
  /**
   * The second pass, through the engine: the report and the batch that adds its findings to the timeline
   * (placed where the replay found them) and its calls' source lines. Runs once; a second call gets the
   * same promise.
   */
  findings(): Promise<{ result: SessionResult; messages: TimelineMessage[] }>;
}

/**
 * A trace file's timeline (for the trace editor and `mpiscope export`): the trace is replayed through the
 * same decoder and engine as `mpiscope report`, its events go through the same TimelineModel as a live run,
 * and each finding is placed where the replay found it (on the calls the ranks were in after the events of
 * the frame that produced it), so it sits on the calls it names, as it did live. Sites are resolved with the
 * run's binaries when they are still on this machine; otherwise the calls show their addresses and the
 * findings their own lines.
 */
export async function traceTimeline(path: string, analyzers = DEFAULT_ANALYZERS): Promise<TraceTimeline> {
  const first = await openTraceTimeline(path, analyzers);
  const { result, messages } = await first.findings();
  return {
    start: first.start,
    result,
    ...(first.cut !== undefined ? { cut: first.cut } : {}),
    messages: [...first.messages, ...messages],
  };
}

/**
 * A trace's timeline in two passes, so that an editor can draw it before the findings are judged. The engine
 * is most of a replay's cost (1.1 M events: decoding and the model about 0.9 s of CPU, the engine's replay
 * 1.3 s more), and the timeline needs none of it. The first pass only decodes the frames into the model
 * (events streamed to it as decoded: a million events held as objects cost more in garbage collection than
 * the model itself); `findings()` then replays the trace through the engine, keeping for each finding where
 * every rank was when it was found (FindingPlaces), and adds them and the calls' source lines to the same
 * model.
 */
export async function openTraceTimeline(
  path: string,
  analyzers = DEFAULT_ANALYZERS,
  onMessage?: (message: TimelineMessage) => void,
): Promise<TraceTimelineFirst> {
  // Given onMessage, each message goes there as it is made (the trace editor draws the first batches while
  // the rest is decoded) and none is kept.
  const messages: TimelineMessage[] = [];
  const feed = new TraceFeed(onMessage ?? ((m: TimelineMessage): void => void messages.push(m)));
  const drawn = await replayTrace(path, analyzers, feed.hooks, { analyze: false });
  const model = feed.finish(drawn.start);

  let second: Promise<{ result: SessionResult; messages: TimelineMessage[] }> | undefined;
  const findings = async (): Promise<{ result: SessionResult; messages: TimelineMessage[] }> => {
    const places = new FindingPlaces();
    const { result } = await replayTrace(path, analyzers, {
      events: (batch, findingsSoFar) => places.events(batch, findingsSoFar),
      sites: (resolve) => resolveSites(model, resolve),
    });
    return { result, messages: addFindings(model, places, result) };
  };
  return {
    start: drawn.start,
    ...(drawn.cut !== undefined ? { cut: drawn.cut } : {}),
    messages,
    findings: () => (second ??= findings()),
  };
}

/**
 * The findings of a trace whose timeline was not decoded here (the trace editor read it from the trace's index,
 * trace-index.ts): one replay through the engine feeds both a model, which makes the same batches as
 * openTraceTimeline (dropped: the editor has them) so the findings' batch follows them, and the findings'
 * places. What openTraceTimeline's findings() gives, in one pass instead of two.
 */
export async function traceFindings(
  path: string,
  analyzers = DEFAULT_ANALYZERS,
): Promise<{ result: SessionResult; messages: TimelineMessage[] }> {
  const feed = new TraceFeed(() => undefined);
  const places = new FindingPlaces();
  const drawn = await replayTrace(path, analyzers, {
    start: (ranks, program) => feed.hooks.start?.(ranks, program),
    events(batch, findingsSoFar) {
      feed.hooks.events(batch, findingsSoFar);
      places.events(batch, findingsSoFar);
    },
    // After the last event: the model is finished first, as openTraceTimeline's is before its findings' pass
    // (what the start hold kept is placed, so its sites are there to resolve).
    sites: (resolve) => resolveSites(feed.finish(), resolve),
  });
  const model = feed.finish(drawn.start);
  return { result: drawn.result, messages: addFindings(model, places, drawn.result) };
}

/** Feeds a replay's events to a TimelineModel, a batch taken every BATCH_EVENTS events (the same for every pass). */
class TraceFeed {
  private out: TimelineModel | undefined;
  private sinceBatch = 0;
  readonly hooks: ReplayHooks;

  constructor(private readonly emit: (m: TimelineMessage) => void) {
    this.hooks = {
      start: (ranks, program) => void this.begin(ranks, program),
      events: (batch) => {
        const model = this.model();
        for (const e of batch) {
          model.push(e);
          if (++this.sinceBatch === BATCH_EVENTS) {
            this.sinceBatch = 0;
            this.take();
          }
        }
      },
    };
  }

  model(): TimelineModel {
    return this.out ?? this.begin(0, '');
  }

  private finished = false;

  /** The stream is whole: the last batch taken (once); the model, for the findings. */
  finish(start?: SessionStart): TimelineModel {
    const model = this.out ?? this.begin(start?.ranks ?? 0, start?.program ?? '');
    if (!this.finished) {
      this.finished = true;
      model.finish();
      this.take();
    }
    return model;
  }

  private begin(ranks: number, program: string): TimelineModel {
    const model = new TimelineModel(ranks, program);
    this.emit({ ...model.reset(), replay: true });
    this.out = model;
    return model;
  }

  private take(): void {
    const b = this.out?.takeBatch();
    if (b !== undefined) this.emit(b);
  }
}

/** Sites resolved at once: each may be an addr2line process, or a wait of up to 3 s for a rank's own answer. */
const SITES_AT_ONCE = 8;

/**
 * The model's sites are the calls' (rank, return address) pairs, each once; resolving them runs addr2line, whose
 * start (a fork of this large process) is not worth delaying the first frame for: it runs in the findings' pass.
 * A few at a time, not one after the other: a site its rank was to resolve itself (its binary not on this
 * machine), unanswered in the trace, is waited for 3 s by the resolver (session/site-resolver.ts), so the two
 * corpus traces of test/fixtures/record-format (11 such sites) took 33 s of waiting, one by one.
 */
async function resolveSites(
  model: TimelineModel,
  resolve: Parameters<NonNullable<ReplayHooks['sites']>>[0],
): Promise<void> {
  const sites = model.unresolvedSites();
  const found: (Awaited<ReturnType<typeof resolve>> | undefined)[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < sites.length; i = next++) {
      const s = sites[i];
      if (s !== undefined) found[i] = await resolve(s.rank, s.address).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: SITES_AT_ONCE }, worker));
  // In the sites' order, whichever answered first: the findings' batch is the same at every replay.
  sites.forEach((s, i) => {
    const pos = found[i];
    if (pos !== undefined && (pos.file !== '' || pos.function !== ''))
      model.resolveSite(s.id, pos.file, pos.line, pos.function);
  });
}

/** The findings placed on the model; the batch that adds them (and the sites resolved). */
function addFindings(model: TimelineModel, places: FindingPlaces, result: SessionResult): TimelineMessage[] {
  // Findings found after the last frame (the end of the job) sit where the ranks are at the end.
  result.findings.forEach((f, i) => model.addFinding(f, places.jobTimes(i, model)));
  const b = model.takeBatch();
  return b !== undefined ? [b] : [];
}

/**
 * Where each rank was when each finding was found, read from the events of the findings' pass: the start of
 * the rank's open call, else of its last call (the TimelineModel's rule for a finding placed now), in the
 * rank's own clock, turned into job time by the model that drew the timeline.
 */
export class FindingPlaces {
  /** Per rank: the seq and start of its open call (seq -1: none), and the start of its last call. */
  private readonly openSeq: number[] = [];
  private readonly openStart: number[] = [];
  private readonly lastStart: (number | undefined)[] = [];
  /** For each finding in the order found: per rank, its place then (undefined: no call yet). */
  private readonly found: (number | undefined)[][] = [];

  events(batch: readonly RankEvent[], findingsSoFar: number): void {
    for (const e of batch) {
      if (e.type === 'enter') {
        this.openSeq[e.rank] = e.seq;
        this.openStart[e.rank] = e.time;
        this.lastStart[e.rank] = e.time;
      } else if (e.type === 'exit' && this.openSeq[e.rank] === e.seq) this.openSeq[e.rank] = -1;
    }
    while (this.found.length < findingsSoFar) this.found.push(this.places());
  }

  /** The i-th finding's place on each rank's lane in the model's job time; undefined for a rank: now. */
  jobTimes(i: number, model: TimelineModel): (number | undefined)[] | undefined {
    const at = this.found[i];
    return at?.map((t, rank) => (t === undefined ? undefined : model.jobTime(rank, t)));
  }

  private places(): (number | undefined)[] {
    return Array.from(this.lastStart, (last, rank) =>
      (this.openSeq[rank] ?? -1) >= 0 ? this.openStart[rank] : last,
    );
  }
}
