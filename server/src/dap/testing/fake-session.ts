import { EventEmitter } from 'node:events';
import type { RankEvent, RankState } from '../../engine/model/types';
import type {
  MessageQueueView,
  Finding,
  HeldRank,
  Location,
  SessionEvents,
  SessionOptions,
  SessionResult,
} from '../../session/session-api';
import type { SessionPort, SourcePlace } from '../session-port';

/**
 * A scripted session for tests of the debug adapter and the language server: the test plays the
 * events a real job would emit and inspects what the adapter asked of it.
 */
export class FakeSession implements SessionPort {
  private readonly events = new EventEmitter();
  readonly calls: string[] = [];
  readonly findings: Finding[] = [];
  paused = false;
  breakSet: readonly string[] = [];
  /** The breakpoints whose hits hold only the hitting rank (breakOn's `judged`). */
  judgedSet: readonly string[] = [];
  stopped = false;
  /** What backtrace(rank) answers: the frames below a held rank's MPI call. */
  readonly backtraces = new Map<number, readonly SourcePlace[]>();

  constructor(
    readonly options: SessionOptions,
    private readonly sites: ReadonlyMap<number, SourcePlace> = new Map(),
  ) {}

  on<K extends keyof SessionEvents>(event: K, listener: SessionEvents[K]): this {
    this.events.on(event, listener);
    return this;
  }

  stop(): void {
    this.calls.push('stop');
    if (this.stopped) return;
    this.stopped = true;
    this.end({ findings: this.findings, ranks: this.options.np, exitCode: null, outcome: 'terminated' });
  }

  pause(): void {
    this.calls.push('pause');
    this.paused = true;
  }

  resume(): void {
    this.calls.push('resume');
    this.paused = false;
    // Like the real session: released ranks have no held backtrace.
    this.backtraces.clear();
  }

  stepRank(rank: number): void {
    this.calls.push(`step ${rank}`);
    this.backtraces.delete(rank);
  }

  /** What messageQueues() answers. */
  queues: MessageQueueView | undefined;

  messageQueues(): Promise<MessageQueueView | undefined> {
    return Promise.resolve(this.queues);
  }

  breakOn(functions: readonly string[], judged: readonly string[] = []): void {
    this.breakSet = functions;
    this.judgedSet = judged;
  }

  releaseRank(rank: number): void {
    this.calls.push(`release ${rank}`);
    this.backtraces.delete(rank);
  }

  resolveSite(_rank: number, site: number): Promise<SourcePlace | undefined> {
    return Promise.resolve(this.sites.get(site));
  }

  backtrace(rank: number): Promise<readonly SourcePlace[]> {
    return Promise.resolve(this.backtraces.get(rank) ?? []);
  }

  pid(rank: number): number | undefined {
    return rank < this.options.np ? 4000 + rank : undefined;
  }

  // What the test plays:

  rank(state: RankState): void {
    this.events.emit('rank', state);
  }

  held(held: HeldRank): void {
    this.events.emit('held', held);
  }

  finding(finding: Finding): void {
    this.findings.push(finding);
    this.events.emit('finding', finding);
  }

  /** A finding emitted before gained locations (another rank's part of it: session/rank-merge.ts). */
  findingRanks(finding: Finding, added: readonly Location[]): void {
    const at = this.findings.findIndex((f) => f.kind === finding.kind && f.message === finding.message);
    if (at >= 0) this.findings[at] = finding;
    this.events.emit('finding-ranks', finding, added);
  }

  rankEvents(events: readonly RankEvent[]): void {
    this.events.emit('events', events);
  }

  output(text: string, stream: 'stdout' | 'stderr', rank: number | undefined): void {
    this.events.emit('output', text, stream, rank);
  }

  end(result: SessionResult): void {
    this.events.emit('end', result);
  }
}
