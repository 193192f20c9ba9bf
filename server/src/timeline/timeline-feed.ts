import type { RankEvent } from '../engine/model/types';
import type { Finding } from '../session/session-api';
import { TimelineModel } from './timeline-model';
import type { TimelineMessage } from './timeline-protocol';

export interface SitePosition {
  readonly file: string;
  readonly line: number;
  readonly function: string;
}

export interface TimelineFeedOptions {
  readonly ranks: number;
  readonly program?: string;
  /** Where each message goes: the language server sends it as the `mpiscope/timeline` notification. */
  readonly send: (message: TimelineMessage) => void;
  /** Resolves a rank's return address to file:line (Analysis.resolveSite); sites stay addresses without it. */
  readonly resolveSite?: (rank: number, address: number) => Promise<SitePosition | undefined>;
  /** Coalesce events for this long before sending a batch (default 100 ms: live, but not a flood). */
  readonly intervalMs?: number;
  /** Timer to schedule a flush; injectable so tests drive it by hand. */
  readonly schedule?: (fn: () => void, ms: number) => { cancel(): void };
}

function defaultSchedule(fn: () => void, ms: number): { cancel(): void } {
  const t = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(t) };
}

/**
 * The server side of the timeline: feed it every decoded event and every finding; it batches them into
 * TimelineMessages and hands them to `send` at most every intervalMs. Wiring it into a session is one line
 * per event source; it never throws into the caller (a timeline must not break a run).
 */
export class TimelineFeed {
  readonly model: TimelineModel;
  private timer: { cancel(): void } | undefined;
  private resolving: Promise<void> = Promise.resolve();
  private readonly asked = new Set<number>();
  private disposed = false;

  constructor(private readonly opts: TimelineFeedOptions) {
    this.model = new TimelineModel(opts.ranks, opts.program ?? '');
    opts.send(this.model.reset());
  }

  push(event: RankEvent): void {
    if (this.disposed) return;
    this.model.push(event);
    this.later();
  }

  finding(finding: Finding): void {
    if (this.disposed) return;
    this.model.addFinding(finding);
    this.later();
  }

  /** Send what is pending now (the job ended, or a panel wants to be current). */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.disposed) return;
    const batch = this.model.takeBatch();
    if (batch !== undefined) this.opts.send(batch);
    this.resolveNewSites();
  }

  /** A reset and everything sent so far, for a receiver that starts late. */
  snapshot(): TimelineMessage[] {
    return this.model.snapshot();
  }

  /** Resolves when every site asked so far has been resolved and sent (for tests and job end). */
  async settled(): Promise<void> {
    await this.resolving;
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.disposed = true;
  }

  private later(): void {
    if (this.timer !== undefined) return;
    this.timer = (this.opts.schedule ?? defaultSchedule)(() => {
      this.timer = undefined;
      this.flush();
    }, this.opts.intervalMs ?? 100);
  }

  /** One site at a time, in a chain: addr2line per site is cached by the resolver, so this stays cheap. */
  private resolveNewSites(): void {
    const resolve = this.opts.resolveSite;
    if (resolve === undefined) return;
    const todo = this.model.unresolvedSites().filter((s) => !this.asked.has(s.id));
    if (todo.length === 0) return;
    for (const s of todo) this.asked.add(s.id);
    this.resolving = this.resolving.then(async () => {
      let any = false;
      for (const s of todo) {
        try {
          const pos = await resolve(s.rank, s.address);
          if (pos !== undefined && (pos.file !== '' || pos.function !== '')) {
            this.model.resolveSite(s.id, pos.file, pos.line, pos.function);
            any = true;
          }
        } catch {
          // An unresolvable site stays an address on the timeline; nothing else depends on it.
        }
      }
      if (any) this.later();
    });
  }
}
