import type { RankState } from '../engine/model/types';
import type { SessionPort, SessionFactory } from '../dap/session-port';
import { UsageError, type Finding, type SessionOptions, type SessionResult } from '../session/session-api';
import type { DiagnosticStore } from './diagnostic-store';
import { locationPhrase } from './finding-diagnostics';
import type { HoverIndex } from './hover-index';
import type { RunStatus } from './protocol';
import { TimelineFeed } from '../timeline/timeline-feed';
import { replayOutcome, type ReplayOutcome, type ReplayTarget } from '../session/replay-race';
import type { TimelineMessage } from '../timeline/timeline-protocol';

/**
 * The language server's one running job. Whoever starts it (the mpiscope.run command or an F5 debug
 * session through the adapter), its findings become diagnostics and its calls fill the hover while it
 * runs; they stay after it ends, until the next run or a clear.
 */
export class SessionHub {
  private current: SessionPort | undefined;
  private readonly states = new Map<number, RankState>();
  private state: RunStatus = idle();
  private pending: ReturnType<typeof setTimeout> | undefined;
  private starting = false;
  private timeline: TimelineFeed | undefined;
  /** The last job started here, its findings and how it ended: what a race replay reruns and amends. */
  private last: { options: SessionOptions; findings: Finding[]; result?: SessionResult } | undefined;

  constructor(
    private readonly factory: SessionFactory,
    private readonly diagnostics: DiagnosticStore,
    private readonly hovers: HoverIndex,
    private readonly onStatus: (status: RunStatus) => void,
    /** Where the running job's timeline batches go (the mpiscope/timeline notification); none: no timeline. */
    private readonly onTimeline?: (message: TimelineMessage) => void,
  ) {}

  status(): RunStatus {
    return { ...this.state };
  }

  get running(): boolean {
    return this.current !== undefined || this.starting;
  }

  /** Starts a job; rejects (UsageError) when the session cannot start. One job at a time. */
  async start(options: SessionOptions): Promise<SessionPort> {
    if (this.running)
      throw new UsageError('An MPI job is already running under mpiscope; stop it first (mpiscope: Stop).');
    this.starting = true;
    let session: SessionPort;
    try {
      session = await this.factory(options);
    } finally {
      this.starting = false;
    }
    this.clear();
    this.current = session;
    this.last = { options, findings: [] };
    this.state = { state: 'running', program: options.program, ranks: options.np, blocked: 0, findings: 0 };
    this.startTimeline(session, options);
    session.on('finding', (finding) => this.onFinding(session, finding));
    session.on('finding-ranks', (finding) => this.onFindingRanks(session, finding));
    session.on('rank', (rank) => this.onRank(session, rank));
    session.on('end', (result) => this.onEnd(session, result));
    this.emit(true);
    return this.controlled(session);
  }

  async stop(): Promise<void> {
    await this.current?.stop();
  }

  /** Forget the last run's findings and hovers (a running job keeps adding new ones). */
  clear(): void {
    this.diagnostics.clear();
    this.hovers.clear();
    this.state = { ...this.state, findings: 0 };
    if (!this.current) this.state = idle();
    this.emit(true);
  }

  /**
   * Reruns the last job with one wildcard receive forced to another sender (--replay-race), without showing the
   * replay's own findings: its outcome is attached to the original race finding, whose diagnostics are
   * republished with it. Rejects (UsageError) while a job runs or when no job ran here.
   */
  async replayRace(target: ReplayTarget): Promise<ReplayOutcome> {
    const last = this.last;
    if (last?.result === undefined)
      throw new UsageError(
        this.running
          ? 'The job is still running: replay its race once it has ended.'
          : 'No job has run in this window: run it (mpiscope: Run) and then replay the race it finds.',
      );
    if (this.running) throw new UsageError('An MPI job is already running under mpiscope; stop it first.');
    this.starting = true;
    let session: SessionPort;
    try {
      // The trace and the debugger's breaks belong to the original run, not to its replay. So does keepAlive
      // (an F5 run leaves a deadlocked job alive for the debugger to inspect): nobody inspects the replay,
      // which must end by itself when its forced receive deadlocks, or the replay would never return.
      const {
        traceFile: _trace,
        breakOn: _breaks,
        judgedBreaks: _judged,
        keepAlive: _keep,
        ...options
      } = last.options;
      session = await this.factory({ ...options, replayRace: target });
    } finally {
      this.starting = false;
    }
    this.current = session;
    this.state = { ...this.state, state: 'running', blocked: 0 };
    this.emit(true);
    const result = await new Promise<SessionResult>((done) => session.on('end', done));
    this.current = undefined;
    const base = last.result;
    const outcome = replayOutcome(target, result, {
      exitCode: base.exitCode,
      kinds: last.findings.map((f) => f.kind),
    });
    // The outcome joins the race it answers (same receive); the other findings stay as they were.
    last.findings = last.findings.map((f) =>
      f.race !== undefined && f.race.rank === target.rank && f.race.wildcard === target.wildcard
        ? {
            ...f,
            message: `${f.message} Replayed with rank ${target.sender}'s message: ${outcome.outcome}. ${outcome.summary}`,
          }
        : f,
    );
    this.diagnostics.clear();
    this.hovers.clear();
    for (const f of last.findings) this.record(f);
    this.state = { ...this.state, state: 'ended', findings: last.findings.length };
    this.emit(true);
    return outcome;
  }

  /** Show findings that did not come from a live job (a JSON report). */
  showFindings(findings: readonly Finding[], ranks: number, program: string): void {
    this.clear();
    for (const finding of findings) this.record(finding);
    this.state = { state: 'ended', program, ranks, blocked: 0, findings: findings.length, outcome: 'report' };
    this.emit(true);
  }

  private record(finding: Finding): void {
    this.diagnostics.add(finding);
    for (const l of finding.locations)
      this.hovers.finding(l.file, l.line, l.rank, finding.kind, locationPhrase(l));
  }

  private startTimeline(session: SessionPort, options: SessionOptions): void {
    this.timeline?.dispose();
    this.timeline = undefined;
    const send = this.onTimeline;
    if (send === undefined) return;
    const feed = new TimelineFeed({
      ranks: options.np,
      program: options.program,
      send,
      resolveSite: session.resolveSite ? (rank, site) => session.resolveSite!(rank, site) : undefined,
    });
    this.timeline = feed;
    session.on('events', (events) => {
      if (session !== this.current) return;
      for (const event of events) feed.push(event);
    });
  }

  private onFinding(session: SessionPort, finding: Finding): void {
    if (session !== this.current) return;
    this.timeline?.finding(finding);
    this.last?.findings.push(finding);
    this.record(finding);
    this.state = { ...this.state, findings: this.state.findings + 1 };
    this.emit(true);
  }

  /** A finding shown already gained ranks: its diagnostics and hovers are made again, with them. */
  private onFindingRanks(session: SessionPort, finding: Finding): void {
    const last = this.last;
    if (session !== this.current || last === undefined) return;
    const at = last.findings.findIndex(
      (f) =>
        f.kind === finding.kind &&
        f.message === finding.message &&
        f.locations[0]?.file === finding.locations[0]?.file &&
        f.locations[0]?.line === finding.locations[0]?.line,
    );
    if (at < 0) return;
    last.findings[at] = finding;
    this.diagnostics.clear();
    this.hovers.clear();
    for (const f of last.findings) this.record(f);
    this.emit(true);
  }

  private onRank(session: SessionPort, rank: RankState): void {
    if (session !== this.current) return;
    this.states.set(rank.rank, rank);
    const blocked = [...this.states.values()].filter((s) => s.state === 'blocked').length;
    if (blocked !== this.state.blocked) {
      this.state = { ...this.state, blocked };
      this.emit(false);
    }
    const call = rank.call;
    if (call && call.site !== 0 && session.resolveSite) {
      // Resolution is asynchronous (the session resolves each address once); the hover is a
      // best-effort record, so a site that cannot be resolved is simply not shown.
      session
        .resolveSite(rank.rank, call.site)
        .then((place) => {
          if (place && session === this.current)
            this.hovers.call(place.file, place.line, rank.rank, locationPhrase({ ...call, function: '' }));
        })
        .catch(() => undefined);
    }
  }

  private onEnd(session: SessionPort, result: SessionResult): void {
    if (session !== this.current) return;
    this.current = undefined;
    if (this.last !== undefined) this.last.result = result;
    // The last batch goes out now; the feed stays until the next run so late site resolutions still arrive.
    this.timeline?.flush();
    this.states.clear();
    this.state = {
      ...this.state,
      state: 'ended',
      blocked: 0,
      ranks: result.ranks || this.state.ranks,
      outcome: result.outcome,
      notChecked: (result.skippedChecks ?? []).map((s) => `${s.checks.join(', ')}: ${s.reason}`),
    };
    this.emit(true);
  }

  /**
   * The session as handed to the debug adapter: pause and resume also update the run status. Every
   * method is forwarded with the session as `this`, so a session class with private fields works.
   */
  private controlled(session: SessionPort): SessionPort {
    const port: SessionPort = {
      on: (event, listener) => session.on(event, listener),
      stop: () => session.stop(),
    };
    if (session.pause) {
      port.pause = () => {
        session.pause?.();
        this.setPaused(session, true);
      };
    }
    if (session.resume) {
      port.resume = () => {
        session.resume?.();
        this.setPaused(session, false);
      };
    }
    if (session.breakOn) port.breakOn = (functions, judged) => session.breakOn?.(functions, judged);
    if (session.releaseRank) port.releaseRank = (rank) => session.releaseRank?.(rank);
    if (session.stepRank) port.stepRank = (rank) => session.stepRank?.(rank);
    if (session.resolveSite) port.resolveSite = (rank, site) => session.resolveSite!(rank, site);
    if (session.pid) port.pid = (rank) => session.pid?.(rank);
    if (session.backtrace) port.backtrace = (rank) => session.backtrace!(rank);
    if (session.rankStates) port.rankStates = () => session.rankStates?.() ?? [];
    if (session.messageQueues) port.messageQueues = () => session.messageQueues!();
    return port;
  }

  private setPaused(session: SessionPort, paused: boolean): void {
    if (session !== this.current) return;
    this.state = { ...this.state, state: paused ? 'paused' : 'running' };
    this.emit(true);
  }

  /** Status changes are coalesced so that a burst of rank events sends one notification. */
  private emit(now: boolean): void {
    if (now) {
      if (this.pending) clearTimeout(this.pending);
      this.pending = undefined;
      this.onStatus(this.status());
      return;
    }
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      this.onStatus(this.status());
    }, 100);
  }
}

function idle(): RunStatus {
  return { state: 'idle', program: '', ranks: 0, blocked: 0, findings: 0 };
}
