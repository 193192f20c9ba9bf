import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, resolve as resolvePath } from 'node:path';
import type { EngineFinding, RankState, SkippedCheck } from '../engine/model/types';
import { Analysis } from './analysis';
import { HangWatch, noProgressFinding } from './hang-watch';
import { BlockedBacktraces } from './blocked-backtraces';
import { parseRankText } from './held-ack';
import { jobArguments } from './job-command';
import { planLaunch, type LaunchPlan } from './launch-plan';
import { endJob, killNow } from './process-tree';
import { RankControl } from './rank-control';
import { RankServer, type Hello } from './rank-server';
import {
  UsageError,
  type Finding,
  type HeldRank,
  type SessionEvents,
  type SessionOptions,
  type SessionResult,
} from './session-api';
import { ensureShim } from './shim-locator';
import type { SourcePosition } from './site-resolver';
import { TraceWriter } from './trace-file';

const TICK_MS = 100;
const QUIET_MS = 200;
const KILL_GRACE_MS = 1000;
/** After mpirun exits, how long ranks' sockets may take to deliver their last frames. */
const DRAIN_MS = 2000;

/**
 * One MPI job under the shim: checks the options, starts mpirun with the shim preloaded into every rank,
 * feeds every rank's frames to the engine, watches for hangs, and reports findings as they are made.
 *
 *   const s = new Session(options); s.on('finding', f => …); const result = await s.run();
 *
 * run() rejects only with a UsageError (the tool could not do its job); everything the job does is a result.
 */
export class Session {
  private readonly emitter = new EventEmitter();
  private readonly findings: Finding[] = [];
  private analysis: Analysis | undefined;
  private server: RankServer | undefined;
  private trace: TraceWriter | undefined;
  private child: ChildProcess | undefined;
  private readonly rankPids = new Map<number, number>();
  private outcome: SessionResult['outcome'] | undefined;
  /** Findings are resolved (addr2line) asynchronously; this chain keeps them in the order they were made. */
  private pending: Promise<void> = Promise.resolve();
  private ending: Promise<void> | undefined;
  private readonly lastStates = new Map<number, string>();
  /** A hang was reported; with keepAlive the job goes on, but the same hang is not reported twice. */
  private hangReported = false;
  /** Pause, continue and breakpoints; messages for ranks not connected yet are sent when they connect. */
  private readonly hold: RankControl;
  private readonly probes = new BlockedBacktraces(
    (rank) => this.server?.sendControl(rank, { type: 'backtrace' }) ?? false,
  );

  constructor(readonly options: SessionOptions) {
    this.hold = new RankControl(
      options.np,
      (rank, message) => this.server?.sendControl(rank, message) ?? false,
      options.breakOn ?? [],
    );
  }

  on<K extends keyof SessionEvents>(event: K, listener: SessionEvents[K]): this {
    this.emitter.on(event, listener);
    return this;
  }

  /** Send a control message (pause, continue, breakpoints, terminate) to one rank or all. */
  control(rank: number | 'all', message: object): void {
    const server = this.server;
    const n = this.options.np;
    if (server === undefined) return;
    for (const r of rank === 'all' ? Array.from({ length: n }, (_, i) => i) : [rank])
      server.sendControl(r, message);
  }

  /** End the job at the user's request. */
  terminate(): Promise<void> {
    return this.endJob('terminated');
  }

  /** The debug adapter's names (server/src/dap/session-port.ts). */
  stop(): Promise<void> {
    return this.terminate();
  }

  /** Hold every rank at its next MPI call; each held rank is reported by a 'held' event. */
  pause(): void {
    this.hold.pause();
  }

  resume(): void {
    this.hold.resume();
  }

  /** When any rank enters one of these MPI functions, every rank is held (replaces the previous set). */
  breakOn(functions: readonly string[]): void {
    this.hold.breakOn(functions);
  }

  /**
   * The callers below a rank's current MPI call, innermost first, resolved to source lines: from its
   * acknowledgement when it is held at a call entry, asked of its shim when it is blocked inside MPI, else
   * none. A frame whose source is not on this machine (the C library's, built elsewhere) keeps its function
   * but no file, and such frames at the bottom (the C runtime's start) are left out.
   */
  async backtrace(rank: number): Promise<readonly SourcePosition[]> {
    const analysis = this.analysis;
    if (analysis === undefined) return [];
    let keys = this.hold.heldAt(rank)?.frames;
    if (keys === undefined) {
      if (analysis.engine.rankStates().find((s) => s.rank === rank)?.state !== 'blocked') return [];
      const reply = await this.probes.request(rank);
      if ('error' in reply) return [];
      keys = reply.frames;
    }
    const frames = keys;
    const places = await analysis.resolveKeys(frames);
    const result = places.map((p, i): SourcePosition => {
      const key = frames[i];
      const where = p.file !== '' && existsSync(p.file) ? p : { ...p, file: '', line: 0 };
      if (where.function !== '' || key === undefined) return where;
      return { ...where, function: `${basename(key.module)}+0x${key.offset.toString(16)}` };
    });
    while (result.length > 0 && result[result.length - 1]?.file === '') result.pop();
    return result;
  }

  /** A rank's OS process id, from its hello. */
  pid(rank: number): number | undefined {
    return this.rankPids.get(rank);
  }

  rankStates(): readonly RankState[] {
    return this.analysis?.engine.rankStates() ?? [];
  }

  /** Resolve one of a rank's call sites (RawLocation.site) to function/file/line. */
  async resolveSite(rank: number, site: number): Promise<SourcePosition | undefined> {
    return this.analysis?.resolveSite(rank, site);
  }

  async run(): Promise<SessionResult> {
    const o = this.options;
    if (!Number.isInteger(o.np) || o.np < 1)
      throw new UsageError(`-np must be a whole number of ranks, at least 1 (got ${String(o.np)})`);
    const timeout = o.deadlockTimeout ?? 30;
    if (!(timeout > 0) || !Number.isFinite(timeout)) {
      throw new UsageError(
        `--deadlock-timeout must be a positive number of seconds (got ${String(o.deadlockTimeout)})`,
      );
    }
    for (const name of o.breakOn ?? []) {
      if (!/^MPI_[A-Za-z0-9_]+$/.test(name))
        throw new UsageError(
          `cannot break on ${JSON.stringify(name)}: give MPI function names such as MPI_Recv`,
        );
    }
    const cwd = resolvePath(o.cwd ?? process.cwd());
    const plan = await planLaunch(o.program, cwd, o.mpirun);
    const shim = await ensureShim(plan.flavor, { ...process.env, ...o.env });
    try {
      if (o.traceFile !== undefined) this.trace = new TraceWriter(resolvePath(cwd, o.traceFile));
    } catch (err) {
      throw new UsageError(
        `cannot write the trace file ${o.traceFile}: ${(err as Error).message}; choose a writable path with --trace`,
      );
    }
    this.trace?.writeSession({
      type: 'session',
      version: 1,
      program: plan.program,
      args: o.args,
      ranks: o.np,
      mpi: plan.flavor,
      cwd,
      started: new Date().toISOString(),
    });
    const analysis = (this.analysis = new Analysis(o.np, cwd));
    const watch = new HangWatch({ quietMs: QUIET_MS, noProgressMs: timeout * 1000 }, Date.now());
    const server = (this.server = await this.listen(analysis, watch));
    try {
      return await this.runJob(plan, shim, cwd, analysis, server, watch, timeout);
    } finally {
      await server.close();
      this.trace?.close();
    }
  }

  private async listen(analysis: Analysis, watch: HangWatch): Promise<RankServer> {
    return RankServer.listen(this.options.np, {
      hello: (rank: number, hello: Hello, raw: string) => {
        this.trace?.write(rank, 'text', raw);
        analysis.open(rank);
        this.hold.connected(rank);
        if (hello.pid > 0 && (hello.host === '' || hello.host === hostname()))
          this.rankPids.set(rank, hello.pid);
        watch.activity(Date.now());
      },
      frame: (rank: number, data: Buffer) => {
        this.trace?.write(rank, 'binary', data);
        const events = analysis.frame(rank, data);
        if (events.length > 0) {
          watch.activity(Date.now());
          this.emit('events', events);
        }
        this.collect(analysis.engine.takeFindings());
      },
      control: (rank: number, text: string) => {
        this.trace?.write(rank, 'text', text);
        this.acknowledged(rank, text);
      },
      closed: (rank: number, reason: string | undefined) => {
        if (reason !== undefined)
          this.emit('output', `mpiscope: closed the connection of rank ${rank}: ${reason}\n`, 'stderr', rank);
        analysis.close(rank);
        this.hold.closed(rank);
        watch.activity(Date.now());
        this.collect(analysis.engine.takeFindings());
      },
      rejected: (reason: string) =>
        this.emit('output', `mpiscope: refused a connection: ${reason}\n`, 'stderr', undefined),
    });
  }

  private async runJob(
    plan: LaunchPlan,
    shim: string,
    cwd: string,
    analysis: Analysis,
    server: RankServer,
    watch: HangWatch,
    timeout: number,
  ): Promise<SessionResult> {
    const o = this.options;
    const args = jobArguments({
      flavor: plan.flavor,
      mpirunPrefixArgs: plan.mpirunPrefixArgs,
      mpirunArgs: o.mpirunArgs ?? [],
      np: o.np,
      program: plan.program,
      args: o.args,
      rankEnv: {
        MPISCOPE_URL: server.url,
        MPISCOPE_TOKEN: server.token,
        LD_PRELOAD: shim,
        ...(o.breakOn?.length ? { MPISCOPE_BREAK: o.breakOn.join(',') } : {}),
      },
      isRoot: process.getuid?.() === 0,
    });
    // Its own process group (detached), so the whole job can be signalled at once.
    const child = (this.child = spawn(plan.mpirun, args, {
      cwd,
      env: { ...process.env, ...o.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    const exited = new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null));
      child.on('close', (code, signal) => resolve(code ?? (signal !== null ? 128 : null)));
    });
    child.stdout?.on('data', (d: Buffer) => this.emit('output', d.toString(), 'stdout', undefined));
    child.stderr?.on('data', (d: Buffer) => this.emit('output', d.toString(), 'stderr', undefined));
    if (child.pid === undefined) {
      await exited;
      throw new UsageError(`could not start ${plan.mpirun}; check that it runs (${plan.mpirun} --version)`);
    }
    this.emit('start', {
      program: plan.program,
      ranks: o.np,
      mpi: plan.flavor,
      command: [plan.mpirun, ...args],
      pid: child.pid,
    });

    const ticker = setInterval(() => this.tick(analysis, watch, timeout), TICK_MS);
    // If this process ends abruptly (an uncaught error, process.exit), the job must not outlive it.
    const jobPid = child.pid;
    const killOnExit = (): void => killNow(jobPid, [...this.rankPids.values()]);
    process.on('exit', killOnExit);
    let exitCode: number | null;
    try {
      exitCode = await exited;
      await this.drain(server);
    } finally {
      clearInterval(ticker);
      process.off('exit', killOnExit);
    }
    await this.ending;
    const killed = this.outcome !== undefined;
    analysis.closeAll();
    // After we ended the job, end-of-run checks would only describe the kill (no finalize, pending messages).
    if (!killed) this.collect(analysis.engine.finish());
    else {
      analysis.engine.takeFindings();
      // Held per-rank findings (thread-level call-order) were made before the end: they are real.
      analysis.engine.releaseHeld();
      this.collect(analysis.engine.takeFindings());
    }
    this.emitStates(analysis.engine.rankStates());
    await this.pending;
    if (analysis.connectedCount === 0 && !killed) {
      throw new UsageError(
        `no rank connected to the analyzer (${plan.mpirun} exited with ${String(exitCode)}); check that the program starts with ${plan.mpirun} alone`,
      );
    }
    const outcome = this.outcome ?? (exitCode === 0 ? 'completed' : 'failed');
    const result: SessionResult = {
      findings: this.findings,
      ranks: o.np,
      exitCode: killed ? null : exitCode,
      outcome,
      ...(analysis.engine.lostRecords() > 0 ? { lostRecords: analysis.engine.lostRecords() } : {}),
      ...skippedOf(analysis.engine),
    };
    this.trace?.writeSession({ type: 'end', exitCode: result.exitCode, outcome });
    this.emit('end', result);
    return result;
  }

  /** A rank's text after its hello: `paused` becomes a 'held' event, `backtrace` answers backtrace(). */
  private acknowledged(rank: number, text: string): void {
    const parsed = parseRankText(text);
    if (typeof parsed === 'string') {
      this.emit(
        'output',
        `mpiscope: ignored a control message from rank ${rank}: ${parsed}\n`,
        'stderr',
        rank,
      );
      return;
    }
    if (parsed.type === 'backtrace') {
      this.probes.answered(rank, parsed.reply);
      return;
    }
    const ack = parsed.ack;
    if (this.hold.acknowledged(rank, ack) === undefined) return;
    const held: HeldRank = { rank, seq: ack.seq, function: ack.function, reason: ack.reason, site: ack.site };
    this.emit('held', held);
  }

  /** Wait until every connected rank's socket has closed, or DRAIN_MS, whichever is first. */
  private async drain(server: RankServer): Promise<void> {
    const deadline = Date.now() + DRAIN_MS;
    while (Date.now() < deadline && server.openConnections > 0) await new Promise((r) => setTimeout(r, 20));
  }

  private tick(analysis: Analysis, watch: HangWatch, timeout: number): void {
    const states = analysis.engine.rankStates();
    this.emitStates(states);
    if (this.outcome !== undefined || this.hangReported) return;
    const allConnected = Array.from(
      { length: this.options.np },
      (_, r) => analysis.connected(r) || analysis.ended(r),
    ).every(Boolean);
    const verdict = watch.tick(Date.now(), states, allConnected);
    if (verdict.action === 'ask-engine') {
      const deadlock = analysis.engine.findDeadlock();
      if (deadlock !== undefined) {
        if (process.env.MPISCOPE_DEBUG === '1')
          this.emit(
            'output',
            `mpiscope: deadlock found ${watch.quietFor(Date.now())} ms after the last event\n`,
            'stderr',
            undefined,
          );
        this.foundHang(deadlock, { type: 'hang', how: 'graph' });
        // Findings the engine held for the end of the run, released with the deadlock (the job ends without finish()).
        this.collect(analysis.engine.takeFindings());
      }
    } else if (verdict.action === 'no-progress') {
      this.foundHang(noProgressFinding(verdict.stuck, timeout), {
        type: 'hang',
        how: 'no-progress',
        ranks: verdict.stuck.map((s) => s.rank),
        seconds: timeout,
      });
    }
  }

  /** marker goes into the trace at this point of the stream, so `mpiscope report` asks the engine at the same moment. */
  private foundHang(finding: EngineFinding, marker: object): void {
    this.trace?.writeSession(marker);
    this.collect([finding]);
    this.hangReported = true;
    // With keepAlive the job stays for inspection until the user ends it (terminate()).
    if (!this.options.keepAlive) void this.endJob('deadlock');
  }

  private endJob(outcome: 'deadlock' | 'terminated'): Promise<void> {
    if (this.ending !== undefined) return this.ending;
    this.outcome = outcome;
    const pid = this.child?.pid;
    this.ending =
      pid === undefined
        ? Promise.resolve()
        : this.pending.then(() => endJob(pid, [...this.rankPids.values()], KILL_GRACE_MS));
    return this.ending;
  }

  private collect(found: readonly EngineFinding[]): void {
    const analysis = this.analysis;
    if (analysis === undefined) return;
    for (const f of found) {
      this.pending = this.pending.then(async () => {
        const finding = await analysis.resolve(f);
        this.findings.push(finding);
        this.emit('finding', finding);
      });
    }
  }

  private emitStates(states: readonly RankState[]): void {
    for (const s of states) {
      const key = JSON.stringify(s);
      if (this.lastStates.get(s.rank) === key) continue;
      this.lastStates.set(s.rank, key);
      this.probes.forget(s.rank);
      this.emit('rank', s);
    }
  }

  private emit<K extends keyof SessionEvents>(event: K, ...args: Parameters<SessionEvents[K]>): void {
    this.emitter.emit(event, ...args);
  }
}

/** The engine's skipped checks, as an optional field of the result (absent when every check ran). */
function skippedOf(engine: { skippedChecks(): SkippedCheck[] }): { skippedChecks?: SkippedCheck[] } {
  const skipped = engine.skippedChecks();
  return skipped.length > 0 ? { skippedChecks: skipped } : {};
}
