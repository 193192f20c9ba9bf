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

/**
 * A trace file's timeline (for the trace editor and `mpiscope export`): the trace is replayed through the
 * same decoder and engine as `mpiscope report`, its events go through the same TimelineModel as a live run,
 * and each finding is placed where the replay found it (after the events of the frame that produced it),
 * so it sits on the calls it names, as it did live. Sites are resolved with the run's binaries when they
 * are still on this machine; otherwise the calls show their addresses and the findings their own lines.
 */
export async function traceTimeline(path: string, analyzers = DEFAULT_ANALYZERS): Promise<TraceTimeline> {
  // The events are kept until the findings are resolved (they are resolved at the end of the replay), then
  // fed to the model with each finding inserted at the event count where it was found.
  const events: RankEvent[] = [];
  const foundAt: number[] = [];
  const resolved = new Map<string, { file: string; line: number; function: string }>();
  const hooks: ReplayHooks = {
    events(batch, findingsSoFar) {
      for (const e of batch) events.push(e);
      while (foundAt.length < findingsSoFar) foundAt.push(events.length);
    },
    async sites(resolve) {
      const asked = new Set<string>();
      for (const e of events) {
        if (e.type !== 'enter' || e.site === 0) continue;
        const key = `${e.rank}:${e.site}`;
        if (asked.has(key)) continue;
        asked.add(key);
        const pos = await resolve(e.rank, e.site).catch(() => undefined);
        if (pos !== undefined && (pos.file !== '' || pos.function !== '')) resolved.set(key, pos);
      }
    },
  };
  const replay = await replayTrace(path, analyzers, hooks);
  const { start, result } = replay;
  const out = new TimelineModel(start.ranks, start.program);
  const messages: TimelineMessage[] = [out.reset()];
  const take = (): void => {
    const b = out.takeBatch();
    if (b !== undefined) messages.push(b);
  };
  let next = 0;
  const place = (upTo: number): void => {
    while (next < result.findings.length && (foundAt[next] ?? events.length) <= upTo) {
      const f = result.findings[next++];
      if (f !== undefined) out.addFinding(f);
    }
  };
  for (let i = 0; i < events.length; i++) {
    place(i);
    out.push(events[i] as RankEvent);
    if (i % BATCH_EVENTS === BATCH_EVENTS - 1) take();
  }
  place(events.length);
  for (const s of out.unresolvedSites()) {
    const pos = resolved.get(`${s.rank}:${s.address}`);
    if (pos !== undefined) out.resolveSite(s.id, pos.file, pos.line, pos.function);
  }
  take();
  return { start, result, ...(replay.cut !== undefined ? { cut: replay.cut } : {}), messages };
}
