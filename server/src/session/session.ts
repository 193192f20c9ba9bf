import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { hostname } from 'node:os';
import { basename, resolve as resolvePath } from 'node:path';
import type { EngineFinding, RankState, SkippedCheck } from '../engine/model/types';
import type { Analysis } from './analysis';
import { removeStaleSpills } from './spill';
import type { SessionCert } from './tls-cert';
import { analyzersProblem, DEFAULT_ANALYZERS } from '../shards/analyzers';
import { drainWaitMs, keepDraining, lastLookDue, LAST_LOOK_MS, type DrainState } from './drain';
import { HangWatch, noProgressFinding } from './hang-watch';
import { BlockedBacktraces } from './blocked-backtraces';
import { parseRankText } from './held-ack';
import type { MessageQueueView } from './session-api';
import { hydraBindsEachRank, jobCommand } from './job-command';
import { physicalCores } from './cpu-cores';
import { expandHostlist, listenFor, readHostfile, type ListenChoice } from './listen-address';
import { planLaunch, type LaunchPlan } from './launch-plan';
import { endJob, killNow } from './process-tree';
import { RankControl } from './rank-control';
import type { Hello, RankServer } from './rank-server';
import {
  UsageError,
  type Finding,
  type HeldRank,
  type SessionEvents,
  type SessionOptions,
  type SessionResult,
} from './session-api';
import { ensureShim } from './shim-locator';
import { memcheckMode } from './memcheck-mode';
import { moduleAddressName, type SourcePosition } from './site-resolver';
import { TraceWriter } from './trace-file';
import { timingMark } from './timing';
import { RankMerge } from './rank-merge';

const TICK_MS = 100;
const QUIET_MS = 200;
/**
 * Quiet time after which a job whose every live rank waits in a window call after an epoch rule was broken on that
 * window (MPI_Win_free with a lock or post left open…) is called hung, instead of the no-progress timeout: no rank
 * is left to close the epoch. Several seconds, so that a loaded machine's slow MPI_Win_free is not taken for it: a
 * library may complete the call in spite of the broken rule (Open MPI frees a window with a lock still open), and
 * the corpus runs these programs at load averages of 30-40 on 2 cores.
 */
const BROKEN_EPOCH_MS = 8000;
const KILL_GRACE_MS = 1000;
/**
 * How long the launcher may take to exit once every rank has ended, one of them failing. Open MPI's mpirun
 * sometimes never does after a rank aborted: every rank process is gone and it waits on a lock in its own
 * PMIx_server_finalize (seen with two ranks failing at once, 1 run in 2 under mpiscope, 0 in 5 without).
 */
const LAUNCHER_TEARDOWN_MS = 10_000;
/** How long the launcher has to end its ranks after the user's signal before they are ended for it. */
const INTERRUPT_GRACE_MS = 3000;

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
  /** A later rank's part of a finding already emitted joins it (EngineFinding.merge). */
  private readonly rankMerge = new RankMerge();
  private analysis: Analysis | undefined;
  private server: RankServer | undefined;
  private trace: TraceWriter | undefined;
  /** The session's certificate under --tls (made before the job starts, so a missing openssl is said first). */
  private cert: SessionCert | undefined;
  private child: ChildProcess | undefined;
  private readonly rankPids = new Map<number, number>();
  private readonly rankHosts = new Map<number, string>();
  /** Set when the job was ended because no MPI call of any live rank arrived for this many seconds. */
  private unobservedFor: number | undefined;
  private saidNoneConnected = false;
  private outcome: SessionResult['outcome'] | undefined;
  /** Findings are resolved (addr2line) asynchronously; this chain keeps them in the order they were made. */
  private pending: Promise<void> = Promise.resolve();
  /** When the last binary frame of any rank arrived (Date.now()): the drain waits while frames still flow. */
  private lastFrameAt = 0;
  /** Someone listens to 'events' (the timeline): only then are event objects built from the rows. */
  private eventsWanted = false;
  /** Wakes the drain (set while it sleeps): a rank's connection closed. */
  private wakeDrain: (() => void) | undefined;
  private ending: Promise<void> | undefined;
  private readonly lastStates = new Map<number, string>();
  /** A hang was reported; with keepAlive the job goes on, but the same hang is not reported twice. */
  private hangReported = false;
  /** When every rank was first seen ended with one failing (watchTeardown), and whether the launcher was ended. */
  private allEndedAt: number | undefined;
  private teardownKilled = false;
  /** Pause, continue and breakpoints; messages for ranks not connected yet are sent when they connect. */
  private readonly hold: RankControl;
  /** The job's hosts and where the analyzer listens, decided in run(). */
  private syntax: LaunchPlan['syntax'] | undefined;
  /** The job runs in the memcheck mode (memcheck-mode.ts). */
  private memcheck = false;
  private layout:
    | { hosts: readonly string[]; fileHosts: readonly string[]; hostfile?: string; where: ListenChoice }
    | undefined;
  private readonly probes = new BlockedBacktraces(
    (rank) => this.server?.sendControl(rank, { type: 'backtrace' }) ?? false,
  );

  constructor(readonly options: SessionOptions) {
    this.hold = new RankControl(
      options.np,
      (rank, message) => this.server?.sendControl(rank, message) ?? false,
      options.breakOn ?? [],
      options.judgedBreaks ?? [],
    );
  }

  on<K extends keyof SessionEvents>(event: K, listener: SessionEvents[K]): this {
    this.emitter.on(event, listener);
    if (event === 'events') this.eventsWanted = true;
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

  /**
   * End the job at the user's request. With a signal (the one the user sent mpiscope), the launcher gets it
   * first and may end its ranks as it would without mpiscope (srun gets SIGTERM: one SIGINT only makes it
   * print its status); whatever is left after a grace period is ended as after a deadlock.
   */
  terminate(signal?: NodeJS.Signals): Promise<void> {
    return this.endJob('terminated', signal);
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

  /** Releases one held rank to its next MPI call, where it is held again; the others stay held. */
  stepRank(rank: number): void {
    this.hold.step(rank);
  }

  /**
   * When any rank enters one of these MPI functions, every rank is held (replaces the previous set); one in
   * `judged` holds only the rank that entered it, until releaseRank() or pause().
   */
  breakOn(functions: readonly string[], judged: readonly string[] = []): void {
    this.hold.breakOn(functions, judged);
  }

  /** Lets one held rank go on (a judged breakpoint's hit that does not stop); the others stay as they are. */
  releaseRank(rank: number): void {
    this.hold.release(rank);
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
      return { ...where, function: moduleAddressName(key.module, key.offset) };
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

  /** Every rank's pending sends, receives and unexpected messages now, with call sites (the debugger's view). */
  async messageQueues(): Promise<MessageQueueView | undefined> {
    const analysis = this.analysis;
    if (analysis === undefined) return undefined;
    const q = analysis.engine.messageQueues();
    const entries = await Promise.all(
      q.entries.map(async (e) => {
        const place = e.site !== 0 ? await analysis.resolveSite(e.caller, e.site) : undefined;
        return { ...e, file: place?.file ?? '', line: place?.line ?? 0, function: place?.function ?? '' };
      }),
    );
    return { entries, edges: q.edges, cycles: q.cycles };
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
    const analyzers = o.analyzers ?? DEFAULT_ANALYZERS;
    const analyzersWrong = analyzersProblem(analyzers);
    if (analyzersWrong !== undefined) throw new UsageError(`--analyzers ${analyzersWrong}`);
    for (const name of o.breakOn ?? []) {
      if (!/^MPI_[A-Za-z0-9_]+$/.test(name))
        throw new UsageError(
          `cannot break on ${JSON.stringify(name)}: give MPI function names such as MPI_Recv`,
        );
    }
    const cwd = resolvePath(o.cwd ?? process.cwd());
    if (o.hosts !== undefined && o.hosts.length > 0 && o.hostfile !== undefined)
      throw new UsageError('give the hosts either with --host or with --hostfile, not both');
    for (const h of o.hosts ?? []) {
      if (!/^[A-Za-z0-9._-]+(:\d+)?$/.test(h))
        throw new UsageError(
          `bad host ${JSON.stringify(h)}: give host names or addresses, each optionally with :SLOTS`,
        );
    }
    if (o.stdin !== undefined && !existsSync(resolvePath(cwd, o.stdin)))
      throw new UsageError(
        `the stdin file ${o.stdin} does not exist; give an existing file for rank 0's input`,
      );
    const env = { ...process.env, ...o.env };
    timingMark('session starts');
    const planned = planLaunch(o.program, cwd, o.mpirun, o.launcher, env);
    // The rank server's modules (ws, http, https, crypto: ~10 ms of CPU) load while the checks' tools run, which
    // planLaunch has started by now, instead of before them (bench/end-to-end/README.md, "Start-up and end").
    const serving = import('./rank-server');
    const plan = await planned;
    timingMark('program and launcher checked');
    const hostfile = o.hostfile === undefined ? undefined : resolvePath(cwd, o.hostfile);
    const fileHosts = hostfile === undefined ? [] : readHostfile(hostfile);
    let jobHosts = o.hosts !== undefined && o.hosts.length > 0 ? o.hosts : fileHosts;
    // Under srun with no hosts named, the job runs on the allocation's nodes.
    if (jobHosts.length === 0 && plan.syntax === 'srun' && env.SLURM_JOB_NODELIST !== undefined)
      jobHosts = expandHostlist(env.SLURM_JOB_NODELIST);
    const where = await listenFor(jobHosts, o.listen);
    if (where.note !== undefined) this.emit('output', `mpiscope: ${where.note}\n`, 'stderr', undefined);
    this.layout = { hosts: o.hosts ?? [], fileHosts, ...(hostfile !== undefined ? { hostfile } : {}), where };
    this.memcheck = await memcheckMode(plan.program, o.memcheck, plan.ldd);
    const shim = await ensureShim(plan.flavor, env, this.memcheck ? 'memcheck' : 'default');
    timingMark('shim ready');
    try {
      if (o.traceFile !== undefined) {
        this.trace = new TraceWriter(resolvePath(cwd, o.traceFile), (why) =>
          this.emit(
            'output',
            `mpiscope: stopped writing the trace ${o.traceFile ?? ''}: ${why}; the run and its analysis go on, and the trace holds every frame up to there (mpiscope report reads it)\n`,
            'stderr',
            undefined,
          ),
        );
        removeStaleSpills(this.trace.path);
      }
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
    if (o.tls === true) this.cert = (await import('./tls-cert')).makeSessionCert();
    const watch = new HangWatch(
      {
        quietMs: QUIET_MS,
        noProgressMs: timeout * 1000,
        brokenEpochMs: Math.min(BROKEN_EPOCH_MS, timeout * 1000),
      },
      Date.now(),
    );
    const { RankServer } = await serving;
    const server = (this.server = await this.listen(watch, RankServer));
    timingMark('listening');
    try {
      return await this.runJob(plan, shim, cwd, analyzers, server, watch, timeout);
    } finally {
      await server.close();
      this.trace?.close();
      await this.analysis?.dispose();
    }
  }

  /**
   * The run's analysis, made in runJob right after the launcher is spawned and before this process reads any
   * socket again: the rank server's callbacks below run from socket events only, never before it exists.
   */
  private made(): Analysis {
    const analysis = this.analysis;
    if (analysis === undefined) throw new Error('a rank was heard from before the analysis was made');
    return analysis;
  }

  private async listen(watch: HangWatch, server: typeof RankServer): Promise<RankServer> {
    const where = this.layout?.where ?? { bind: '127.0.0.1', advertise: '127.0.0.1', port: 0 };
    try {
      return await this.listenAt(watch, where, server);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new UsageError(
        `cannot listen on ${where.bind}:${where.port} (${code}); give an address of this machine and a free port with --listen ADDR[:PORT]`,
      );
    }
  }

  private async listenAt(
    watch: HangWatch,
    where: { bind: string; advertise: string; port: number },
    server: typeof RankServer,
  ): Promise<RankServer> {
    const cert = this.cert;
    return server.listen(
      this.options.np,
      {
        hello: (rank: number, hello: Hello, raw: string) => {
          timingMark(`hello of rank ${rank}`);
          this.trace?.write(rank, 'text', raw);
          this.made().open(rank);
          this.hold.connected(rank);
          if (hello.pid > 0 && (hello.host === '' || hello.host === hostname()))
            this.rankPids.set(rank, hello.pid);
          this.rankHosts.set(rank, hello.host);
          watch.activity(Date.now());
        },
        frame: (rank: number, data: Buffer) => {
          if (this.lastFrameAt === 0) timingMark('first frame');
          this.lastFrameAt = Date.now();
          this.trace?.write(rank, 'binary', data);
          const analysis = this.made();
          const fed = analysis.frame(rank, data, this.eventsWanted);
          if (fed.calls > 0) {
            watch.activity(Date.now());
            if (fed.events.length > 0) this.emit('events', fed.events);
          }
          this.collect(analysis.takeFindings());
        },
        control: (rank: number, text: string) => {
          this.trace?.write(rank, 'text', text);
          this.acknowledged(rank, text);
        },
        closed: (rank: number, reason: string | undefined) => {
          timingMark(`connection of rank ${rank} closed`);
          const analysis = this.made();
          if (reason !== undefined) {
            this.emit(
              'output',
              `mpiscope: closed the connection of rank ${rank}: ${reason}\n`,
              'stderr',
              rank,
            );
            analysis.markRefused(rank, reason);
          }
          // In the trace too, so that a report rebuilt from it closes the rank at the same point of the stream.
          this.trace?.writeSession({ type: 'closed', rank });
          analysis.close(rank);
          this.hold.closed(rank);
          watch.activity(Date.now());
          this.collect(analysis.takeFindings());
          this.wakeDrain?.();
        },
        rejected: (reason: string) =>
          this.emit('output', `mpiscope: refused a connection: ${reason}\n`, 'stderr', undefined),
      },
      where,
      // A debugger waiting on a rank's acknowledgement gets it at once, not at the gate's next read.
      {
        ...(cert !== undefined ? { tls: cert } : {}),
        promptly: () => this.hold.interactive,
        // One host, one clock: a rank far ahead of the others waits for them (rank-server.ts, AHEAD_NS).
        ...(where.advertise === '127.0.0.1'
          ? { position: (rank: number) => this.made().position(rank) }
          : {}),
      },
    );
  }

  private async runJob(
    plan: LaunchPlan,
    shim: string,
    cwd: string,
    analyzers: number,
    server: RankServer,
    watch: HangWatch,
    timeout: number,
  ): Promise<SessionResult> {
    const o = this.options;
    const layout = this.layout;
    this.syntax = plan.syntax;
    const userArgs = [...plan.mpirunPrefixArgs, ...(o.mpirunArgs ?? [])];
    const bindEachRank =
      plan.syntax === 'hydra' &&
      hydraBindsEachRank({
        np: o.np,
        cores: physicalCores(),
        userArgs,
        env: { ...process.env, ...o.env },
        oneHost:
          (layout === undefined || (layout.hosts.length === 0 && layout.hostfile === undefined)) &&
          (layout?.where.advertise ?? '127.0.0.1') === '127.0.0.1',
        ldd: plan.ldd,
      });
    const { args, env: launcherEnv } = jobCommand({
      syntax: plan.syntax,
      flavor: plan.flavor,
      ...(bindEachRank ? { bindEachRank } : {}),
      ...(layout !== undefined && layout.hosts.length > 0 ? { hosts: layout.hosts } : {}),
      ...(layout?.hostfile !== undefined
        ? { hostfile: layout.hostfile, hostfileHosts: layout.fileHosts }
        : {}),
      ...(layout?.where.subnet !== undefined ? { tcpSubnet: layout.where.subnet } : {}),
      mpirunPrefixArgs: plan.mpirunPrefixArgs,
      mpirunArgs: o.mpirunArgs ?? [],
      np: o.np,
      program: plan.program,
      args: o.args,
      rankEnv: {
        MPISCOPE_URL: server.url,
        // The shim says hello from its constructor in this program only (not in processes a rank starts).
        MPISCOPE_PROGRAM: plan.program,
        LD_PRELOAD: shim,
        ...(o.breakOn?.length ? { MPISCOPE_BREAK: o.breakOn.join(',') } : {}),
        // Should the analyzer die, each rank records on into TRACE.rankR.spill for `mpiscope report` (spill.ts).
        ...(o.traceFile !== undefined ? { MPISCOPE_SPILL: resolvePath(cwd, o.traceFile) } : {}),
        // Ranks on other hosts have unrelated clocks: the shims measure them against rank 0's (msc_clockalign.c).
        ...(layout !== undefined && layout.where.advertise !== '127.0.0.1'
          ? { MPISCOPE_CLOCK_ALIGN: '1' }
          : {}),
        ...(o.replayRace !== undefined
          ? {
              MPISCOPE_REPLAY_RACE: `${o.replayRace.rank}:${o.replayRace.wildcard}:${o.replayRace.sender}`,
            }
          : {}),
      },
      // The pin travels like the token: in the environment, where a launcher forwards it by name.
      secretEnv: {
        MPISCOPE_TOKEN: server.token,
        ...(this.cert !== undefined ? { MPISCOPE_TLS_FINGERPRINT: this.cert.fingerprint } : {}),
      },
      isRoot: process.getuid?.() === 0,
    });
    const stdio = this.stdio(cwd);
    // Its own process group (detached), so the whole job can be signalled at once.
    let child: ChildProcess;
    try {
      child = this.child = spawn(plan.mpirun, args, {
        cwd,
        env: { ...process.env, ...o.env, ...launcherEnv },
        detached: true,
        stdio: stdio.stdio,
      });
    } finally {
      stdio.close();
    }
    if (stdio.feed && child.stdin !== null) {
      // A terminal: mpiscope reads it and passes it on (mpirun, in its own process group, could not read a
      // terminal without being stopped). The job may end without reading it all: that is not an error.
      child.stdin.on('error', () => undefined);
      process.stdin.pipe(child.stdin);
      child.on('close', () => process.stdin.unpipe(child.stdin ?? undefined));
    }
    const exited = new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null));
      child.on('close', (code, signal) => resolve(code ?? (signal !== null ? 128 : null)));
    });
    // A multibyte character may be split between two chunks: each stream has its own decoder.
    for (const [stream, name] of [
      [child.stdout, 'stdout'],
      [child.stderr, 'stderr'],
    ] as const) {
      if (stream === null) continue;
      const decoder = new StringDecoder('utf8');
      stream.on('data', (d: Buffer) => this.emit('output', decoder.write(d), name, undefined));
      stream.on('end', () => {
        const rest = decoder.end();
        if (rest !== '') this.emit('output', rest, name, undefined);
      });
    }
    if (child.pid === undefined) {
      await exited;
      throw new UsageError(`could not start ${plan.mpirun}; check that it runs (${plan.mpirun} --version)`);
    }
    timingMark('launcher started');
    // The engine's modules are loaded, and their tables made, only now (~30 ms of CPU: the spec's layouts, the
    // engine's readers by role; bench/end-to-end/README.md, "Start-up and end"), while the launcher starts the
    // ranks, instead of before it. Nothing is lost by it: in the bundle, import() runs the modules' initializers in
    // a microtask, so the analysis exists before this process returns to its event loop, i.e. before it reads the
    // first hello or frame (made() says so loudly otherwise).
    let analysis: Analysis;
    try {
      const { Analysis } = await import('./analysis');
      analysis = this.analysis = new Analysis(o.np, cwd, analyzers);
    } catch (err) {
      // No analysis, no job: it was made before the launch until the launch came first.
      killNow(child.pid, []);
      throw err;
    }
    timingMark('engine loaded');
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
      timingMark('launcher exited');
      await this.drain(server);
      timingMark('connections drained');
      // Connections the drain gave up on: what needs those ranks' last records is named as not judged.
      analysis.markCut(server.openRanks());
    } finally {
      clearInterval(ticker);
      process.off('exit', killOnExit);
    }
    await this.ending;
    const killed = this.outcome !== undefined;
    // What every shard found in the frames so far, before what the ends of the connections bring.
    analysis.engine.settle();
    this.collect(analysis.takeFindings());
    analysis.closeAll();
    // After we ended the job, end-of-run checks would only describe the kill (no finalize, pending messages).
    if (!killed) this.collect(analysis.observedFindings(analysis.engine.finish()));
    else {
      analysis.engine.settle();
      analysis.takeFindings();
      // Held per-rank findings (thread-level call-order) were made before the end: they are real.
      analysis.engine.releaseHeld();
      this.collect(analysis.takeFindings());
    }
    // MPI's own errors and crashes inside calls that no finding of ours explained.
    this.collect(analysis.verdicts());
    timingMark('end-of-run checks done');
    this.emitStates(analysis.engine.rankStates());
    await this.pending;
    timingMark('findings resolved');
    this.sayUnobserved(analysis, plan, server, exitCode, killed);
    const outcome = this.outcome ?? (exitCode === 0 ? 'completed' : 'failed');
    const result: SessionResult = {
      findings: this.findings,
      ranks: o.np,
      exitCode: killed ? null : exitCode,
      outcome,
      ...(analysis.engine.lostRecords() > 0 ? { lostRecords: analysis.engine.lostRecords() } : {}),
      ...skippedOf(analysis),
      endings: await analysis.endings(),
    };
    timingMark('rank endings resolved');
    this.trace?.writeSession({ type: 'end', exitCode: result.exitCode, outcome });
    this.emit('end', result);
    return result;
  }

  /**
   * The job's standard streams: the CLI's own (inheritStdio; a terminal on stdin is read and fed, see
   * runJob), or stdin from the configuration's file and the output piped to 'output' events.
   */
  private stdio(cwd: string): {
    stdio: ['ignore' | 'inherit' | 'pipe' | number, 'inherit' | 'pipe', 'inherit' | 'pipe'];
    feed: boolean;
    close: () => void;
  } {
    const o = this.options;
    let input: 'ignore' | 'inherit' | 'pipe' | number = 'ignore';
    let fd: number | undefined;
    let feed = false;
    if (o.stdin !== undefined) {
      try {
        fd = input = openSync(resolvePath(cwd, o.stdin), 'r');
      } catch (err) {
        throw new UsageError(
          `cannot read the stdin file ${o.stdin}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give a readable file`,
        );
      }
    } else if (o.inheritStdio === true) {
      feed = process.stdin.isTTY === true;
      input = feed ? 'pipe' : 'inherit';
    }
    const out = o.inheritStdio === true ? 'inherit' : 'pipe';
    return {
      stdio: [input, out, out],
      feed,
      close: () => {
        if (fd !== undefined) closeSync(fd);
      },
    };
  }

  /**
   * Ranks none of whose MPI calls has arrived and that did not say they ended: not connected, connected
   * but their calls not intercepted, or their connection dropped before any call (the process may well
   * run on, unobserved).
   */
  private unobserved(analysis: Analysis): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.options.np; r++) if (!analysis.called(r) && !analysis.saidEnd(r)) out.push(r);
    return out;
  }

  /** Why the given ranks' calls are missing, as far as the session knows (hello or not). */
  private silentWhy(analysis: Analysis, ranks: readonly number[]): string {
    const url = this.server?.url ?? '';
    const absent = ranks.filter((r) => !analysis.connected(r));
    const quiet = ranks.filter((r) => analysis.connected(r));
    const parts: string[] = [];
    if (absent.length > 0)
      parts.push(
        `${ranksText(absent)} never connected to the analyzer at ${url} (a rank that cannot connect says why on its stderr, with its host; if ranks run on other hosts, they must reach that address: choose one with --listen)`,
      );
    if (quiet.length > 0)
      parts.push(
        `${ranksText(quiet)}${this.onHosts(quiet)} started and connected, but none of ${quiet.length > 1 ? 'their' : 'its'} MPI calls reached mpiscope: the program calls MPI through functions the shim does not intercept (a language binding that calls PMPI_ directly, an MPI linked in statically), or has not called MPI_Init`,
      );
    return parts.join('; ');
  }

  private onHosts(ranks: readonly number[]): string {
    const hosts = [
      ...new Set(ranks.map((r) => this.rankHosts.get(r)).filter((h) => h !== undefined && h !== '')),
    ];
    return hosts.length === 0 ? '' : ` (on ${hosts.join(', ')})`;
  }

  /**
   * After the job: say which ranks mpiscope did not see, in one line; when it saw none, that is the tool
   * failing to do its job (exit 2), whatever the job did.
   */
  private sayUnobserved(
    analysis: Analysis,
    plan: LaunchPlan,
    server: RankServer,
    exitCode: number | null,
    killed: boolean,
  ): void {
    const silent = analysis.silentRanks();
    if (silent.length === 0) return;
    const launcher = basename(plan.mpirun);
    const job = killed
      ? this.unobservedFor !== undefined
        ? `mpiscope ended the job after ${this.unobservedFor} s in which no MPI call arrived`
        : 'mpiscope ended the job'
      : exitCode === 0
        ? 'the job exited with 0'
        : `${launcher} exited with ${String(exitCode)}`;
    if (analysis.connectedCount === 0) {
      if (killed || exitCode === 0)
        throw new UsageError(
          `could not observe this job: no rank connected to the analyzer at ${server.url} (${job}); each rank that cannot connect says why on its stderr, with its host`,
        );
      throw new UsageError(
        `could not observe this job: no rank connected to the analyzer (${job}); check that the program starts with ${launcher} alone`,
      );
    }
    if (silent.length === this.options.np)
      throw new UsageError(`could not observe this job (${job}): ${this.silentWhy(analysis, silent)}`);
    this.emit(
      'output',
      `mpiscope: the findings do not cover ${ranksText(silent)} (and checks that need every rank, such as messages never received, were skipped): ${this.silentWhy(analysis, silent)}\n`,
      'stderr',
      undefined,
    );
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
    if (parsed.type === 'module') {
      // Not the same file here (another host, another build): the rank resolves that module's sites.
      if (this.analysis?.module(rank, parsed.module) === true)
        this.server?.sendControl(rank, { type: 'resolve', module: parsed.module.path });
      return;
    }
    if (parsed.type === 'sites') {
      this.analysis?.rankSites(rank, parsed.sites);
      return;
    }
    if (parsed.type === 'crash') {
      this.analysis?.crash(rank, parsed.crash);
      return;
    }
    const ack = parsed.ack;
    if (this.hold.acknowledged(rank, ack) === undefined) return;
    const held: HeldRank = { rank, seq: ack.seq, function: ack.function, reason: ack.reason, site: ack.site };
    this.emit('held', held);
  }

  /**
   * Wait until every connected rank's socket has closed (drain.ts): while frames still arrive, however long
   * after mpirun exited; a connection silent for DRAIN_QUIET_MS is given up.
   */
  private async drain(server: RankServer): Promise<void> {
    const since = Date.now();
    const state = (): DrainState => ({
      open: server.openConnections,
      now: Date.now(),
      since,
      lastFrameAt: this.lastFrameAt,
    });
    // The last frame seen when the drain last looked at every connection (lastLookDue).
    let looked = -1;
    for (let s = state(); ; s = state()) {
      if (!keepDraining(s)) {
        if (!lastLookDue(s) || looked === this.lastFrameAt) break;
        looked = this.lastFrameAt;
        server.readEveryNow();
        await new Promise<void>((wake) => setTimeout(wake, LAST_LOOK_MS));
        continue;
      }
      // Until a connection closes, or until the silence bound could have been reached.
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, drainWaitMs(s));
        this.wakeDrain = () => {
          clearTimeout(timer);
          wake();
        };
      });
      this.wakeDrain = undefined;
    }
  }

  private tick(analysis: Analysis, watch: HangWatch, timeout: number): void {
    const states = analysis.engine.rankStates();
    this.emitStates(states);
    if (this.outcome !== undefined || this.hangReported) return;
    this.watchTeardown(analysis);
    const unobserved = this.unobserved(analysis);
    const verdict = watch.tick(Date.now(), states, unobserved);
    if (verdict.action === 'ask-engine') {
      // Every shard's findings of what arrived so far come before the answer, as with one engine.
      analysis.engine.settle();
      this.collect(analysis.takeFindings());
      const deadlock = analysis.engine.findDeadlock();
      if (deadlock !== undefined) {
        timingMark('deadlock found');
        if (process.env.MPISCOPE_DEBUG === '1')
          this.emit(
            'output',
            `mpiscope: deadlock found ${watch.quietFor(Date.now())} ms after the last event\n`,
            'stderr',
            undefined,
          );
        this.foundHang(deadlock, { type: 'hang', how: 'graph' });
        // Findings the engine held for the end of the run, released with the deadlock (the job ends without finish()).
        this.collect(analysis.takeFindings());
      }
    } else if (verdict.action === 'no-progress') {
      if (verdict.unobserved.length > 0 && verdict.stuck.length > 0) {
        this.emit(
          'output',
          `mpiscope: no MPI call of ${ranksText(verdict.unobserved)} arrived in ${timeout} s; ${this.silentWhy(analysis, verdict.unobserved)}\n`,
          'stderr',
          undefined,
        );
      }
      if (verdict.stuck.length === 0 && analysis.connectedCount === 0) {
        // No rank has even started as far as we know: a launcher waiting for resources (srun in a queue),
        // slow remote starts, or hosts that cannot reach us (each of those ranks says so on its stderr).
        // Said once; the job is not ended for it, since its processes may not exist yet.
        if (!this.saidNoneConnected)
          this.emit(
            'output',
            `mpiscope: no rank has connected to the analyzer at ${this.server?.url ?? ''} in ${timeout} s; still waiting (a rank that cannot connect says why on its stderr, with its host; Ctrl-C ends the job)\n`,
            'stderr',
            undefined,
          );
        this.saidNoneConnected = true;
        return;
      }
      if (verdict.stuck.length === 0) {
        // Nothing observed is stuck: there is no finding to make, only a job that cannot be watched.
        this.hangReported = true;
        this.unobservedFor = timeout;
        this.trace?.writeSession({ type: 'unobserved', ranks: verdict.unobserved, seconds: timeout });
        if (!this.options.keepAlive) void this.endJob('deadlock');
        return;
      }
      analysis.engine.settle();
      this.collect(analysis.takeFindings());
      this.foundHang(noProgressFinding(verdict.stuck, verdict.seconds), {
        type: 'hang',
        how: 'no-progress',
        ranks: verdict.stuck.map((s) => s.rank),
        seconds: verdict.seconds,
      });
    }
  }

  /**
   * The ranks are all gone, one of them failing, and the launcher still has not exited after
   * LAUNCHER_TEARDOWN_MS: it hangs in its own teardown, and the user's job would hang with it. End it (the report
   * is the ranks' own: nothing of the job is cut short, so the end-of-run checks still run).
   */
  private watchTeardown(analysis: Analysis): void {
    const child = this.child;
    if (
      this.teardownKilled ||
      child?.pid === undefined ||
      child.exitCode !== null ||
      child.signalCode !== null
    )
      return;
    if (!analysis.allEndedFailing()) {
      this.allEndedAt = undefined;
      return;
    }
    const now = Date.now();
    this.allEndedAt ??= now;
    if (now - this.allEndedAt < LAUNCHER_TEARDOWN_MS) return;
    this.teardownKilled = true;
    this.emit(
      'output',
      `mpiscope: every rank has ended, not all of them normally, but the launcher has not exited in ${LAUNCHER_TEARDOWN_MS / 1000} s (Open MPI's mpirun can hang in its own teardown after a rank aborts); ending it\n`,
      'stderr',
      undefined,
    );
    killNow(child.pid, [...this.rankPids.values()]);
  }

  /** marker goes into the trace at this point of the stream, so `mpiscope report` asks the engine at the same moment. */
  private foundHang(finding: EngineFinding, marker: object): void {
    this.trace?.writeSession(marker);
    this.collect([finding]);
    this.hangReported = true;
    // With keepAlive the job stays for inspection until the user ends it (terminate()).
    if (!this.options.keepAlive) void this.endJob('deadlock');
  }

  private endJob(outcome: 'deadlock' | 'terminated', signal?: NodeJS.Signals): Promise<void> {
    if (this.ending !== undefined) return this.ending;
    this.outcome = outcome;
    // Ranks that end from now on were ended by us: the report does not present that as news.
    this.analysis?.endingJob();
    const child = this.child;
    const pid = child?.pid;
    if (pid === undefined || child === undefined) return (this.ending = Promise.resolve());
    const first =
      signal === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(resolve, INTERRUPT_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            try {
              process.kill(pid, this.syntax === 'srun' ? 'SIGTERM' : signal);
            } catch {
              resolve();
            }
          });
    this.ending = first
      .then(() => this.pending)
      .then(() => endJob(pid, [...this.rankPids.values()], KILL_GRACE_MS));
    return this.ending;
  }

  private collect(found: readonly EngineFinding[]): void {
    const analysis = this.analysis;
    if (analysis === undefined) return;
    for (const f of found) {
      this.pending = this.pending.then(async () => {
        const finding = await analysis.resolve(f);
        const merged = this.rankMerge.add(this.findings, finding, f.merge);
        if (merged === undefined) this.emit('finding', finding);
        else this.emit('finding-ranks', merged.finding, merged.added);
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

/** "rank 3" or "ranks 0, 1, 2". */
function ranksText(ranks: readonly number[]): string {
  return ranks.length === 1 ? `rank ${String(ranks[0])}` : `ranks ${ranks.join(', ')}`;
}

/** The checks that did not run, as an optional field of the result (absent when every check ran). */
function skippedOf(analysis: Analysis): { skippedChecks?: SkippedCheck[] } {
  const skipped = analysis.engine.skippedChecks();
  const unobserved = analysis.unobservedSkip();
  if (unobserved !== undefined) skipped.push(unobserved);
  return skipped.length > 0 ? { skippedChecks: skipped } : {};
}
