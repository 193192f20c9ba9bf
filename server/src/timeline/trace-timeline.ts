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

/**
 * A trace file's timeline (for the trace editor and `mpiscope export`): the trace is replayed through the
 * same decoder and engine as `mpiscope report`, its events go through the same TimelineModel as a live run,
 * and each finding is placed where the replay found it (on the calls the ranks were in after the events of
 * the frame that produced it), so it sits on the calls it names, as it did live. Sites are resolved with the
 * run's binaries when they are still on this machine; otherwise the calls show their addresses and the
 * findings their own lines.
 *
 * The events go to the model as the replay decodes them, not kept until its end: a million events held as
 * objects cost more in garbage collection than the model itself. A finding's details come only at the end
 * (resolved then), so where it was found is kept as each rank's place at that moment (findingTimes).
 */
export async function traceTimeline(path: string, analyzers = DEFAULT_ANALYZERS): Promise<TraceTimeline> {
  let out: TimelineModel | undefined;
  const messages: TimelineMessage[] = [];
  /** For each finding in the order the replay found them: every rank's place when it was found. */
  const foundAt: number[][] = [];
  let sinceBatch = 0;
  const take = (): void => {
    const b = out?.takeBatch();
    if (b !== undefined) messages.push(b);
  };
  const begin = (ranks: number, program: string): TimelineModel => {
    const model = new TimelineModel(ranks, program);
    messages.push(model.reset());
    out = model;
    return model;
  };
  const hooks: ReplayHooks = {
    start: (ranks, program) => void begin(ranks, program),
    events(batch, findingsSoFar) {
      const model = out ?? begin(0, '');
      for (const e of batch) {
        model.push(e);
        if (++sinceBatch === BATCH_EVENTS) {
          sinceBatch = 0;
          take();
        }
      }
      while (foundAt.length < findingsSoFar) foundAt.push(model.findingTimes());
    },
    async sites(resolve) {
      // The model's sites are the calls' (rank, return address) pairs, each once.
      for (const s of out?.unresolvedSites() ?? []) {
        const pos = await resolve(s.rank, s.address).catch(() => undefined);
        if (pos !== undefined && (pos.file !== '' || pos.function !== ''))
          out?.resolveSite(s.id, pos.file, pos.line, pos.function);
      }
    },
  };
  const replay = await replayTrace(path, analyzers, hooks);
  const { start, result } = replay;
  const model = out ?? begin(start.ranks, start.program);
  // Findings found after the last frame (the end of the job) sit where the ranks are at the end.
  result.findings.forEach((f, i) => model.addFinding(f, foundAt[i]));
  take();
  return { start, result, ...(replay.cut !== undefined ? { cut: replay.cut } : {}), messages };
}
