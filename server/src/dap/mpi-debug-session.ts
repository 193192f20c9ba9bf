import {
  DebugSession,
  ExitedEvent,
  InitializedEvent,
  OutputEvent,
  Scope,
  Source,
  StackFrame,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
  Variable,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { basename } from 'node:path';
import type { EnterEvent, RankEvent, RankState, Severity } from '../engine/model/types';
import { functionNamed } from '../protocol/spec';
import { MESSAGE_QUEUES_REQUEST, type MessageQueuesResponse } from './message-queues-request';
import { ConditionError, parseCondition, parseHitCondition, type Condition } from './mpi-condition';
import { failsOn } from '../report/report-model';
import type { Finding, HeldRank, SessionResult } from '../session/session-api';
import { planLaunch, type MpiLaunchArguments } from './launch-args';
import { isDebugRankArguments, nativeAttachConfiguration } from './native-attach';
import { RankOutput } from './rank-output';
import type { SessionFactory, SessionPort, SourcePlace } from './session-port';
import { rankOf, threadIdOf, threadName } from './thread-names';

/** Frames of thread t have ids t * FRAMES_PER_THREAD + depth, so a frame id names its rank. */
const FRAMES_PER_THREAD = 1000;

export interface MpiDebugSessionOptions {
  readonly startSession: SessionFactory;
  /** When set, a launch request must carry it as `__mpiscopeToken` (the adapter listens on loopback). */
  readonly token?: string;
}

/**
 * DAP for an MPI job: ranks are threads, a rank's current MPI call is its top frame, pause and continue
 * act on every rank at its next MPI call, a finding stops the job with reason 'exception'. A thin
 * translation: all the knowledge is in the session it drives.
 */
export class MpiDebugSession extends DebugSession {
  private session: SessionPort | undefined;
  private np = 0;
  private program = '';
  private stopOnFinding = true;
  private failOn: Severity = 'error';
  private stopped = false;
  private ended = false;
  private supportsStartDebugging = false;
  private readonly states = new Map<number, RankState>();
  /** Ranks the shim holds at an MPI call entry (its acknowledgements), until the next continue or step. */
  private readonly held = new Map<number, HeldRank>();
  private breakFunctions = new Set<string>();
  /** Function breakpoints with a condition or a hit count, by MPI function name (PMPI_ folded into MPI_). */
  private conditional = new Map<string, ConditionalBreak[]>();
  /** MPI functions with a breakpoint that has neither condition nor hit count: every hit stops. */
  private plainBreaks = new Set<string>();
  /** Each rank's latest ENTERs of conditional breakpoint functions: what a condition reads at a hit. */
  private readonly enters = new Map<number, EnterEvent[]>();
  /** Waiters for an ENTER that had not arrived when its rank's acknowledgement did. */
  private readonly enterWaiters = new Set<() => void>();
  /** Breakpoint hits are judged one at a time, in the order their acknowledgements came. */
  private judging: Promise<void> = Promise.resolve();
  private lastFinding: Finding | undefined;
  /** The rank being stepped to its next MPI call, if a step is under way. */
  private stepping: number | undefined;
  private readonly output = new RankOutput((text, stream) => this.sendEvent(new OutputEvent(text, stream)));
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((resolve) => (this.configured = resolve));
  /** Ranks whose name changed since the last thread event; sent as one burst per tick. */
  private readonly renamed = new Set<number>();
  private renameTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * The thread the last stop is about, until the client has its stack trace. VS Code drops its handling of a
   * stop (the focus on the top frame, the Variables, the debug toolbar's stopped state) when a thread event
   * for that thread comes before the thread's stack trace: its rename (the held rank's state changing just
   * after the stop, as it does at a breakpoint hit) waits until then.
   */
  private settling: { readonly threadId: number; answered: boolean; asked: number } | undefined;

  constructor(private readonly options: MpiDebugSessionOptions) {
    super();
  }

  protected override initializeRequest(
    response: DebugProtocol.InitializeResponse,
    args: DebugProtocol.InitializeRequestArguments,
  ): void {
    this.supportsStartDebugging = args.supportsStartDebuggingRequest === true;
    response.body = {
      supportsConfigurationDoneRequest: true,
      supportsFunctionBreakpoints: true,
      supportsTerminateRequest: true,
      supportsExceptionInfoRequest: true,
      supportsSingleThreadExecutionRequests: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configured();
    this.sendResponse(response);
  }

  // DebugSession calls request handlers without awaiting them; the async work lives in private methods
  // whose failures become error responses instead of unhandled rejections.
  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: MpiLaunchArguments): void {
    this.launch(response, args).catch((error: unknown) =>
      this.sendErrorResponse(response, 1000, String(error)),
    );
  }

  private async launch(response: DebugProtocol.LaunchResponse, args: MpiLaunchArguments): Promise<void> {
    if (this.options.token !== undefined && args.__mpiscopeToken !== this.options.token) {
      this.sendErrorResponse(
        response,
        1001,
        'This debug adapter only accepts launches from the mpiscope extension.',
      );
      return;
    }
    let session: SessionPort;
    try {
      const plan = planLaunch(args);
      this.np = plan.options.np;
      this.program = plan.options.program;
      this.stopOnFinding = plan.stopOnFinding;
      this.failOn = plan.failOn;
      // Function breakpoints arrive between 'initialized' and configurationDone; start after them, with
      // them, so that the ranks break from their first call.
      await this.configurationDone;
      const breakOn = interceptedNames(this.breakFunctions);
      const judgedBreaks = this.judgedBreaks();
      session = await this.options.startSession(
        breakOn.length > 0
          ? { ...plan.options, breakOn, ...(judgedBreaks.length > 0 ? { judgedBreaks } : {}) }
          : plan.options,
      );
    } catch (error) {
      this.sendErrorResponse(response, 1002, (error as Error).message);
      return;
    }
    this.session = session;
    session.on('rank', (state) => this.onRank(state));
    session.on('finding', (finding) => this.onFinding(finding));
    session.on('output', (text, stream, rank) => this.output.write(text, stream, rank));
    session.on('end', (result) => this.onEnd(result));
    session.on('held', (held) => this.onHeld(held));
    session.on('events', (events) => this.onEvents(events));
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const ranks = new Set<number>(this.states.keys());
    for (let r = 0; r < this.np; r++) ranks.add(r);
    response.body = {
      threads: [...ranks]
        .sort((a, b) => a - b)
        .map((r) => new Thread(threadIdOf(r), threadName(r, this.states.get(r)))),
    };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): void {
    const settling = this.settling?.threadId === args.threadId ? this.settling : undefined;
    if (settling) settling.asked++;
    this.stackTrace(response, args)
      .catch((error: unknown) => this.sendErrorResponse(response, 1000, String(error)))
      .finally(() => {
        if (!settling) return;
        settling.asked--;
        settling.answered = true;
        // The held rename goes out a whole burst after this answer, never in the same batch of messages (the
        // client handles the answer in a continuation that a thread event dispatched with it would precede).
        if (this.renameTimer) clearTimeout(this.renameTimer);
        this.renameTimer = undefined;
        if (this.renamed.size > 0) this.scheduleRenames();
      });
  }

  private async stackTrace(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): Promise<void> {
    const rank = rankOf(args.threadId);
    const state = this.states.get(rank);
    const base = args.threadId * FRAMES_PER_THREAD;
    const frames: StackFrame[] = [];
    const held = this.held.get(rank);
    const call = state?.call;
    if (held !== undefined) {
      // Held at a call entry: the acknowledgement says exactly which call; the sampled state may lag behind.
      const same = call?.call === held.function && call.site === held.site;
      const place = held.site !== 0 ? await this.resolve(rank, held.site) : undefined;
      frames.push(this.frame(base, same ? call.detail || call.call : held.function, place));
    } else if (!call || (state.state !== 'in-call' && state.state !== 'blocked')) {
      // A pause holds a rank at its next MPI call: until then it runs, and the Call Stack says so.
      const text = !state
        ? '(not connected yet)'
        : this.stopped && state.state === 'running'
          ? '(running, not in MPI: held at its next MPI call)'
          : `(${state.state}, not in MPI)`;
      const label = new StackFrame(base, text);
      label.presentationHint = 'label';
      frames.push(label);
    } else {
      const place = call.site !== 0 ? await this.resolve(rank, call.site) : undefined;
      frames.push(this.frame(base, call.detail || call.call, place));
    }
    if (held !== undefined || frames[0]?.presentationHint !== 'label') {
      const deeper = (await this.session?.backtrace?.(rank).catch(() => [])) ?? [];
      deeper.forEach((p, i) => frames.push(this.frame(base + i + 1, p.function || '??', p, false)));
    }
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  /** `inFunction` appends the place's function to the name: "MPI_Recv in exchange" for the MPI call. */
  private frame(id: number, name: string, place: SourcePlace | undefined, inFunction = true): StackFrame {
    if (!place || place.file === '') {
      const f = new StackFrame(id, name);
      f.presentationHint = 'subtle';
      return f;
    }
    const label = inFunction && place.function ? `${name} in ${place.function}` : name;
    return new StackFrame(id, label, new Source(basename(place.file), place.file), place.line, 1);
  }

  private async resolve(rank: number, site: number): Promise<SourcePlace | undefined> {
    return (await this.session?.resolveSite?.(rank, site).catch(() => undefined)) ?? undefined;
  }

  protected override scopesRequest(
    response: DebugProtocol.ScopesResponse,
    args: DebugProtocol.ScopesArguments,
  ): void {
    response.body = { scopes: [new Scope('MPI', args.frameId, false)] };
    this.sendResponse(response);
  }

  protected override variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): void {
    const rank = rankOf(Math.floor(args.variablesReference / FRAMES_PER_THREAD));
    const state = this.states.get(rank);
    const pid = this.session?.pid?.(rank);
    const vars = [new Variable('rank', String(rank)), new Variable('state', state?.state ?? 'not connected')];
    if (state?.call)
      vars.push(new Variable('call', state.call.call), new Variable('waiting for', state.call.detail));
    if (state?.ended) vars.push(new Variable('ended', state.ended));
    // A rank held at a call whose ENTER is here (a conditional breakpoint's function): the call's arguments,
    // as the condition read them; the sampled state above may lag behind the hold.
    const held = this.held.get(rank);
    const enter = held !== undefined ? this.enters.get(rank)?.find((e) => e.seq === held.seq) : undefined;
    for (const p of enter?.fn.params ?? []) {
      const v = enter?.args[p.name];
      if (typeof v === 'number' && !Number.isNaN(v)) vars.push(new Variable(p.name, String(v)));
    }
    if (pid !== undefined) vars.push(new Variable('pid', String(pid)));
    response.body = { variables: vars };
    this.sendResponse(response);
  }

  protected override pauseRequest(
    response: DebugProtocol.PauseResponse,
    args: DebugProtocol.PauseArguments,
  ): void {
    if (!this.session?.pause) {
      this.sendErrorResponse(
        response,
        1003,
        'This mpiscope session cannot pause a running job (no pause control).',
      );
      return;
    }
    this.session.pause();
    this.sendResponse(response);
    this.stopAll('pause', args.threadId);
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    this.stopped = false;
    this.settled();
    this.stepping = undefined;
    this.held.clear();
    this.session?.resume?.();
    response.body = { allThreadsContinued: true };
    this.sendResponse(response);
  }

  // Stepping means "to the next MPI call": every rank is released and held again at its next call, and
  // the job stops when the stepped rank is seen entering one. Over, in and out are the same step.
  protected override nextRequest(
    response: DebugProtocol.NextResponse,
    args: DebugProtocol.NextArguments,
  ): void {
    this.step(response, args.threadId);
  }

  protected override stepInRequest(
    response: DebugProtocol.StepInResponse,
    args: DebugProtocol.StepInArguments,
  ): void {
    this.step(response, args.threadId);
  }

  protected override stepOutRequest(
    response: DebugProtocol.StepOutResponse,
    args: DebugProtocol.StepOutArguments,
  ): void {
    this.step(response, args.threadId);
  }

  private step(response: DebugProtocol.Response, threadId: number): void {
    if (!this.session?.pause || !this.session.resume) {
      this.sendErrorResponse(response, 1003, 'This mpiscope session cannot step (no pause control).');
      return;
    }
    const rank = rankOf(threadId);
    this.stepping = rank;
    this.settled();
    if (this.stopped && this.session.stepRank) {
      // Only this rank runs, to its next MPI call; the others stay held where they are. The job stays stopped
      // for the editor until the rank is held again (a 'step' stop), or pause/continue is asked.
      this.held.delete(rank);
      this.session.stepRank(rank);
      this.sendResponse(response);
      return;
    }
    this.stopped = false;
    this.held.clear();
    this.session.resume();
    this.session.pause();
    this.sendResponse(response);
  }

  protected override setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): void {
    const valid = (name: string): boolean => /^P?MPI_[A-Za-z_]+$/.test(name);
    let conditional: Map<string, ConditionalBreak[]>;
    try {
      conditional = conditionalBreaks(args.breakpoints.filter((b) => valid(b.name.trim())));
    } catch (error) {
      // One line, and the breakpoints set before stay as they were.
      this.sendErrorResponse(response, 1008, (error as Error).message);
      return;
    }
    this.conditional = conditional;
    this.breakFunctions = new Set(args.breakpoints.map((b) => b.name.trim()).filter(valid));
    this.plainBreaks = new Set(
      interceptedNames(
        new Set(
          args.breakpoints
            .filter((b) => !b.condition?.trim() && !b.hitCondition?.trim())
            .map((b) => b.name.trim())
            .filter(valid),
        ),
      ),
    );
    // A session that cannot release one rank gets no judged breakpoints: its hits hold the job, as before.
    const judged = this.session?.releaseRank !== undefined ? this.judgedBreaks() : [];
    this.session?.breakOn?.(interceptedNames(this.breakFunctions), judged);
    response.body = {
      breakpoints: args.breakpoints.map((b) =>
        valid(b.name.trim())
          ? { verified: true }
          : {
              verified: false,
              message: `mpiscope breaks only on MPI functions (e.g. MPI_Recv), not "${b.name}".`,
            },
      ),
    };
    this.sendResponse(response);
  }

  /** Line breakpoints cannot be honoured (the shim sees MPI calls, not lines); say what works instead. */
  protected override setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): void {
    response.body = {
      breakpoints: (args.breakpoints ?? []).map((b) => ({
        verified: false,
        line: b.line,
        message: 'mpiscope stops at MPI calls, not lines: add a function breakpoint such as MPI_Recv.',
      })),
    };
    this.sendResponse(response);
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse): void {
    const f = this.lastFinding;
    response.body = {
      exceptionId: f?.kind ?? 'none',
      description: f?.message ?? 'No finding.',
      breakMode: 'always',
      ...(f
        ? { details: { message: f.message, typeName: f.kind, stackTrace: f.locations.map(where).join('\n') } }
        : {}),
    };
    this.sendResponse(response);
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.endJob().then(
      () => this.sendResponse(response),
      (error: unknown) => this.sendErrorResponse(response, 1000, String(error)),
    );
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    this.endJob().then(
      () => this.sendResponse(response),
      (error: unknown) => this.sendErrorResponse(response, 1000, String(error)),
    );
  }

  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command === MESSAGE_QUEUES_REQUEST) {
      this.queues(response).catch((error: unknown) => this.sendErrorResponse(response, 1000, String(error)));
      return;
    }
    if (command !== 'mpiscope.debugRank') {
      super.customRequest(command, response, args);
      return;
    }
    if (!isDebugRankArguments(args)) {
      this.sendErrorResponse(
        response,
        1004,
        'mpiscope.debugRank needs { rank, debuggerType: "cppdbg" | "lldb" }.',
      );
      return;
    }
    const pid = this.session?.pid?.(args.rank);
    if (pid === undefined) {
      this.sendErrorResponse(
        response,
        1005,
        `The process id of rank ${args.rank} is not known (is the job running?).`,
      );
      return;
    }
    if (!this.supportsStartDebugging) {
      this.sendErrorResponse(
        response,
        1006,
        'This editor cannot start child debug sessions (no startDebugging support).',
      );
      return;
    }
    const configuration = nativeAttachConfiguration(args, pid, this.program);
    this.sendRequest('startDebugging', { request: 'attach', configuration }, 10_000, (child) => {
      if (child.success) this.sendResponse(response);
      else
        this.sendErrorResponse(
          response,
          1007,
          `Could not attach to rank ${args.rank}: ${child.message ?? 'unknown'}`,
        );
    });
  }

  /**
   * The message queues (pending sends, pending receives, unexpected messages, who waits for whom, cycles) as the
   * analyzer has them now. Meant for a stopped job, where they stand still; `paused` says whether it is.
   */
  private async queues(response: DebugProtocol.Response): Promise<void> {
    if (this.session?.messageQueues === undefined) {
      this.sendErrorResponse(
        response,
        1009,
        'No MPI job is running: the message queues exist while it runs.',
      );
      return;
    }
    const view = await this.session.messageQueues();
    if (view === undefined) {
      this.sendErrorResponse(
        response,
        1009,
        'The job has not started its analysis yet: ask again in a moment.',
      );
      return;
    }
    const body: MessageQueuesResponse = { paused: this.stopped, ranks: this.np, ...view };
    response.body = body;
    this.sendResponse(response);
  }

  private onRank(state: RankState): void {
    const before = this.states.get(state.rank);
    this.states.set(state.rank, state);
    if (!before || threadName(state.rank, before) !== threadName(state.rank, state)) this.rename(state.rank);
  }

  /**
   * A rank is held at an MPI call entry. Stops come from these acknowledgements, not from sampled rank
   * states, so every hit is seen, even a second one at the same call site.
   */
  private onHeld(held: HeldRank): void {
    this.held.set(held.rank, held);
    if (this.stepping === held.rank) {
      // A rank stepped alone stops the (already stopped) job again, at its next call.
      this.stepping = undefined;
      this.stopAll('step', threadIdOf(held.rank));
      return;
    }
    if (this.stopped) return;
    if (held.reason === 'breakpoint' && this.judgedBreaks().includes(held.function)) {
      const judged = this.judging.then(() => this.judge(held));
      this.judging = judged.catch(() => undefined);
    } else if (held.reason === 'breakpoint') {
      // The session already holds the other ranks at their next MPI call; pausing through the port as well
      // keeps whoever watches the port (the language server's run status) in step.
      this.session?.pause?.();
      this.stopAll('function breakpoint', threadIdOf(held.rank), `${held.function} on rank ${held.rank}`);
    }
  }

  /** Functions whose every breakpoint has a condition or a hit count: their hits are judged before a stop. */
  private judgedBreaks(): string[] {
    return [...this.conditional.keys()].filter((name) => !this.plainBreaks.has(name));
  }

  /**
   * A hit of a function breakpoint that has conditions: the shim holds the rank at the call's entry while the
   * condition is read from the call's ENTER; the other ranks run on (the session holds only the hitting rank
   * at a judged breakpoint). A hit that matches no breakpoint's condition and hit count releases that rank
   * alone, as if nothing happened; one that matches pauses the job. (A session without releaseRank held
   * every rank at the hit, and a false condition resumes them all.)
   */
  private async judge(held: HeldRank): Promise<void> {
    if (this.stopped || this.held.get(held.rank)?.seq !== held.seq) return;
    const enter = await this.enterOf(held.rank, held.seq);
    const breaks = this.conditional.get(held.function) ?? [];
    let hit: ConditionalBreak | undefined;
    for (const b of breaks) {
      const values = { rank: held.rank, args: enter?.args ?? {} };
      // Without its ENTER (records lost) a condition cannot be read: the hit stops, as a plain breakpoint.
      if (b.condition !== undefined && enter !== undefined && !b.condition.matches(values)) continue;
      b.hits++;
      if (b.hitCondition !== undefined && !b.hitCondition(b.hits)) continue;
      hit ??= b;
    }
    if (this.stopped) return;
    if (hit === undefined) {
      if (this.session?.releaseRank !== undefined) {
        this.held.delete(held.rank);
        this.session.releaseRank(held.rank);
      } else {
        this.held.clear();
        this.session?.resume?.();
      }
      return;
    }
    this.session?.pause?.();
    const why = [hit.conditionText, hit.hitText !== undefined ? `hit ${hit.hits}` : undefined]
      .filter((s) => s !== undefined)
      .join(', ');
    this.stopAll(
      'function breakpoint',
      threadIdOf(held.rank),
      `${held.function} on rank ${held.rank}${why !== '' ? ` (${why})` : ''}`,
    );
  }

  private onEvents(events: readonly RankEvent[]): void {
    if (this.conditional.size === 0) return;
    let added = false;
    for (const e of events) {
      if (e.type !== 'enter' || !this.conditional.has(e.fn.name)) continue;
      let list = this.enters.get(e.rank);
      if (list === undefined) this.enters.set(e.rank, (list = []));
      list.push(e);
      // A rank is held at one call at a time: its last few ENTERs are all a condition can ask about.
      if (list.length > 8) list.shift();
      added = true;
    }
    if (added) for (const w of [...this.enterWaiters]) w();
  }

  /** The ENTER of a held call; it may arrive just after the acknowledgement (another path from the shim). */
  private async enterOf(rank: number, seq: number): Promise<EnterEvent | undefined> {
    const find = () => this.enters.get(rank)?.find((e) => e.seq === seq);
    const now = find();
    if (now !== undefined) return now;
    return new Promise((done) => {
      const waiter = () => {
        const e = find();
        if (e === undefined) return;
        finish(e);
      };
      const finish = (e: EnterEvent | undefined) => {
        clearTimeout(timer);
        this.enterWaiters.delete(waiter);
        done(e);
      };
      const timer = setTimeout(() => finish(undefined), ENTER_WAIT_MS);
      this.enterWaiters.add(waiter);
    });
  }

  private onFinding(finding: Finding): void {
    // When the job stops, the exception widget shows the finding; otherwise a notification does.
    // Findings below the launch configuration's failOn severity are shown, not stopped at.
    const stops = this.stopOnFinding && !this.stopped && failsOn(finding.severity, this.failOn);
    this.sendEvent(
      new OutputEvent(
        `mpiscope found ${finding.kind} — ${finding.message}\n`,
        stops ? 'stderr' : 'important',
      ),
    );
    if (!stops) return;
    this.lastFinding = finding;
    this.session?.pause?.();
    const rank = finding.locations[0]?.rank ?? 0;
    this.stopAll('exception', threadIdOf(rank), finding.message, `Paused on ${finding.kind}`);
  }

  private onEnd(result: SessionResult): void {
    if (this.ended) return;
    this.ended = true;
    this.output.flush();
    const code = result.exitCode === null ? '' : `, exit code ${result.exitCode}`;
    this.sendEvent(
      new OutputEvent(
        `mpiscope: job ${result.outcome}${code}; ${result.findings.length} finding(s).\n`,
        'console',
      ),
    );
    this.sendEvent(new ExitedEvent(result.exitCode ?? 0));
    this.sendEvent(new TerminatedEvent());
    this.session = undefined;
  }

  /** `description` labels the stopped thread in the Call Stack; `text` is the longer explanation. */
  private stopAll(reason: string, threadId: number | undefined, text?: string, description?: string): void {
    this.stopped = true;
    const event: DebugProtocol.StoppedEvent = new StoppedEvent(reason, threadId ?? threadIdOf(0), text);
    this.settling = { threadId: event.body.threadId ?? threadIdOf(0), answered: false, asked: 0 };
    event.body.allThreadsStopped = true;
    if (description !== undefined) event.body.description = description;
    this.sendEvent(event);
  }

  private rename(rank: number): void {
    this.renamed.add(rank);
    this.scheduleRenames();
  }

  private scheduleRenames(): void {
    // VS Code refetches the thread list on a thread event; one burst per 100 ms keeps a chatty job cheap.
    this.renameTimer ??= setTimeout(() => {
      this.renameTimer = undefined;
      const s = this.settling;
      const held = s !== undefined && (!s.answered || s.asked > 0) ? s.threadId : undefined;
      for (const r of this.renamed) {
        if (threadIdOf(r) === held) continue;
        this.sendEvent(new ThreadEvent('started', threadIdOf(r)));
        this.renamed.delete(r);
      }
    }, 100);
  }

  /** The client left the last stop (continue, step): the stopped thread's renames need not wait any more. */
  private settled(): void {
    this.settling = undefined;
    if (this.renamed.size > 0) this.scheduleRenames();
  }

  /** The client went away without disconnecting (editor closed or crashed): the job must not outlive it. */
  clientGone(): void {
    this.endJob().catch(() => undefined);
  }

  private async endJob(): Promise<void> {
    if (this.renameTimer) clearTimeout(this.renameTimer);
    this.renameTimer = undefined;
    const session = this.session;
    if (session && !this.ended) {
      if (this.stopped) session.resume?.();
      await session.stop();
    }
  }
}

/** How long a breakpoint hit waits for its call's ENTER (it travels beside the acknowledgement). */
const ENTER_WAIT_MS = 2000;

interface ConditionalBreak {
  readonly condition?: Condition;
  readonly conditionText?: string;
  readonly hitCondition?: (hits: number) => boolean;
  readonly hitText?: string;
  hits: number;
}

/** The breakpoints that have a condition or a hit count, parsed; throws ConditionError with one line. */
function conditionalBreaks(
  breakpoints: readonly DebugProtocol.FunctionBreakpoint[],
): Map<string, ConditionalBreak[]> {
  const out = new Map<string, ConditionalBreak[]>();
  for (const b of breakpoints) {
    const name = b.name.trim().replace(/^P/, '');
    const condition = b.condition?.trim() || undefined;
    const hitText = b.hitCondition?.trim() || undefined;
    if (condition === undefined && hitText === undefined) continue;
    let fn;
    try {
      fn = functionNamed(name);
    } catch {
      throw new ConditionError(`${name} is not an MPI function mpiscope intercepts: it takes no condition`);
    }
    const parsed: ConditionalBreak = { hits: 0 };
    try {
      Object.assign(parsed, {
        ...(condition !== undefined
          ? { condition: parseCondition(condition, fn), conditionText: condition }
          : {}),
        ...(hitText !== undefined ? { hitCondition: parseHitCondition(hitText), hitText } : {}),
      });
    } catch (error) {
      const message = (error as Error).message;
      throw new ConditionError(message.startsWith(name) ? message : `${name}: ${message}`);
    }
    const list = out.get(name) ?? [];
    list.push(parsed);
    out.set(name, list);
  }
  return out;
}

/** The names the shim intercepts: a PMPI_ breakpoint is the same function as its MPI_ one. */
function interceptedNames(names: ReadonlySet<string>): string[] {
  return [...new Set([...names].map((n) => n.replace(/^P/, '')))];
}

function where(location: Finding['locations'][number]): string {
  const at = location.file ? `${location.file}:${location.line}` : 'unknown location';
  return `rank ${location.rank}: ${location.call} at ${at}`;
}
