import type {
  EndHow,
  EngineFinding,
  RankEvent,
  RawLocation,
  SkippedCheck,
  StackBufferCandidate,
} from '../engine/model/types';
import type { ShardedEngine } from '../shards/sharded-engine';
import {
  createEngine,
  createFrameDecoder,
  END_HOWS,
  eventAt,
  functions,
  KIND,
  RecordColumns,
  type FrameDecoder,
} from './engine-port';
import type { Finding, Location } from './session-api';
import type { RankSite } from './held-ack';
import { sameModuleHere, type RemoteModule } from './module-identity';
import { constants } from 'node:os';
import { isSystemModule, signalName, type CrashReport, type RankEnding } from './rank-endings';
import { SiteResolver, linkAddress, type SiteKey, type SourcePosition } from './site-resolver';
import { StackObjects, overflowIn } from './stack-objects';
import { timingMark } from './timing';

const { SIGSEGV, SIGBUS } = constants.signals;

/** Finding kinds about how ranks interact, which a rank whose calls never arrived makes meaningless. */
const NEEDS_EVERY_RANK: ReadonlySet<string> = new Set([
  'unmatched-message',
  'message-mismatch',
  'potential-deadlock',
  'message-race',
  'collective-mismatch',
  'type-mismatch',
  'count-mismatch',
]);

/**
 * Finding kinds about what became of a call (never received, never completed, blocked), not about the call's own
 * arguments: they do not explain MPI's verdict on that call (verdicts()).
 */
const CONSEQUENCES: ReadonlySet<string> = new Set([
  'unmatched-message',
  'message-mismatch',
  'deadlock',
  'potential-deadlock',
  'resource-leak',
  'message-race',
]);

interface RankProgress {
  readonly decoder: FrameDecoder;
  /** The rank's hello arrived (else this progress only records that the rank is over). */
  hello: boolean;
  ended: boolean;
  /** An MPI call of this rank arrived (its hello alone says only that the process started). */
  called: boolean;
  /** The rank's own END record arrived (finalized, exited, crashed), not only a closed connection. */
  said: boolean;
  lastSeq: number;
  lastTime: number;
  /** The last MPI call that arrived (its name and site), for the report of how the rank ended. */
  lastCall: string;
  lastSite: number;
  /** The rank's END record, when it sent one. */
  end: { how: EndHow; code: number } | undefined;
  /** The crashing thread's stack, when the rank died of a signal. */
  crash: CrashReport | undefined;
  /** The rank's stream ended after mpiscope began to end the job (a deadlock, the user's Ctrl-C). */
  endedByUs: boolean;
  /** This rank's return addresses → module and offset (ASLR gives every process its own addresses). */
  readonly sites: Map<number, SiteKey>;
  /** Modules whose file here is not the rank's: the rank resolves their sites itself. */
  readonly foreign: Set<string>;
}

/**
 * Frames in, findings with resolved call sites out. Shared by the live session and `mpiscope report TRACE`,
 * so a report rebuilt from a trace is the report the run printed.
 */
export class Analysis {
  readonly engine: ShardedEngine;
  /** The rows of the frame being fed, reused frame after frame. */
  private readonly rows = new RecordColumns(1024);
  private readonly ranks = new Map<number, RankProgress>();
  /** Ranks whose stream was cut by the end of the drain (markCut). */
  private readonly cut = new Set<number>();
  /** Ranks whose connection the session closed for a bad frame (markRefused), with the first such reason. */
  private readonly refused = new Map<number, string>();
  private readonly resolver: SiteResolver;
  /** The frames of the modules in which stack buffers were judged. */
  private readonly stackObjects = new StackObjects();
  /** Module descriptions already compared with the files here. */
  private readonly sameHere = new Map<string, boolean>();
  private ending = false;
  /** MPI's verdicts on calls, held to the end of the run (verdicts()). */
  private readonly heldVerdicts: EngineFinding[] = [];
  /** "rank|site" of every call an error or warning of ours named (not a consequence): a verdict there says no more. */
  private readonly namedCalls = new Set<string>();

  /** `analyzers`: the engine's shard threads (1: the lone engine on this thread; see server/src/shards). */
  constructor(
    readonly size: number,
    cwd: string,
    analyzers = 1,
  ) {
    this.engine = createEngine(size, analyzers);
    this.resolver = new SiteResolver(cwd);
  }

  /** A rank said hello: from now on its frames are decoded. */
  open(rank: number): void {
    this.progress(rank).hello = true;
  }

  private progress(rank: number): RankProgress {
    let r = this.ranks.get(rank);
    if (r === undefined) {
      this.ranks.set(
        rank,
        (r = {
          decoder: createFrameDecoder(rank),
          hello: false,
          ended: false,
          called: false,
          said: false,
          lastSeq: 0,
          lastTime: 0,
          lastCall: '',
          lastSite: 0,
          end: undefined,
          crash: undefined,
          endedByUs: false,
          sites: new Map(),
          foreign: new Set(),
        }),
      );
    }
    return r;
  }

  /** The time stamp of the rank's last record taken (0 before any). */
  position(rank: number): number {
    return this.ranks.get(rank)?.lastTime ?? 0;
  }

  /** The rank said hello (a rank closed without ever connecting has progress, but no hello). */
  connected(rank: number): boolean {
    return this.ranks.get(rank)?.hello === true;
  }

  get connectedCount(): number {
    let n = 0;
    for (const r of this.ranks.values()) if (r.hello) n++;
    return n;
  }

  /** Ranks none of whose MPI calls arrived (never connected, or calls not intercepted). */
  silentRanks(): number[] {
    return Array.from({ length: this.size }, (_, r) => r).filter((r) => !this.called(r));
  }

  /**
   * End-of-run findings that stay true when some ranks were not observed. A message to an unobserved rank
   * may well have been received there, and whether sends could deadlock or receives race depends on every
   * rank: those checks are dropped (the session says that the findings do not cover those ranks). What an
   * observed rank did on its own (leaks, invalid arguments, request misuse, call order, buffers) stands.
   */
  /**
   * Ranks whose stream the session stopped reading before it ended: their connection was still open, with no
   * END record, when the drain gave up on it (silent for DRAIN_QUIET_MS after the launcher exited, or past
   * DRAIN_MAX_MS). Their last records may never have arrived, so a message they received could look unreceived.
   */
  markCut(ranks: readonly number[]): void {
    for (const rank of ranks) {
      const r = this.ranks.get(rank);
      if (r !== undefined && r.called && !r.said) this.cut.add(rank);
    }
  }

  /**
   * The session closed this rank's connection because a frame of it could not be read (rank-server.ts): the
   * shim then runs on as a pass-through, so none of the rank's later calls arrives, and the job may well
   * complete. What needs every rank is then not judged, as for a rank never heard from.
   */
  markRefused(rank: number, reason: string): void {
    if (!this.refused.has(rank)) this.refused.set(rank, reason);
  }

  /** The checks observedFindings() leaves out, named for the report (never silently off). */
  unobservedSkip(): SkippedCheck | undefined {
    const silent = this.silentRanks();
    const cut = [...this.cut].sort((a, b) => a - b);
    const refused = [...this.refused].sort((a, b) => a[0] - b[0]);
    if (silent.length === 0 && cut.length === 0 && refused.length === 0) return undefined;
    const why: string[] = [];
    if (silent.length > 0)
      why.push(
        `no MPI call of rank${silent.length === 1 ? '' : 's'} ${silent.join(', ')} reached the analyzer`,
      );
    if (cut.length > 0)
      why.push(
        `the connection${cut.length === 1 ? '' : 's'} of rank${cut.length === 1 ? '' : 's'} ${cut.join(', ')} stayed open and silent after the job ended, so ${cut.length === 1 ? 'its' : 'their'} last records may not have arrived`,
      );
    for (const [rank, reason] of refused)
      why.push(
        `the analyzer closed the connection of rank ${rank} at a frame it could not read (${reason}), so none of that rank's later MPI calls was checked`,
      );
    return {
      cause: 'unobserved-ranks',
      checks: [...NEEDS_EVERY_RANK],
      reason: `${why.join('; ')}, so what needs every rank's calls was not judged.`,
    };
  }

  observedFindings(found: readonly EngineFinding[]): EngineFinding[] {
    const judged = this.judged(found);
    if (this.silentRanks().length === 0 && this.cut.size === 0 && this.refused.size === 0) return judged;
    return judged.filter((f) => !NEEDS_EVERY_RANK.has(f.kind));
  }

  /** The engine's findings so far, its stack-buffer candidates judged (use this, not engine.takeFindings()). */
  takeFindings(): EngineFinding[] {
    return this.judged(this.engine.takeFindings());
  }

  /**
   * Stack-buffer candidates (engine/lifecycle/stack-buffer.ts) become invalid-argument findings when the
   * caller's debug info puts a smaller variable under the buffer, and are dropped otherwise; the rest pass.
   * Synchronous, so that the findings keep their order and places (the timeline counts them as they come).
   */
  private judged(found: readonly EngineFinding[]): EngineFinding[] {
    const kept: EngineFinding[] = [];
    for (const f of this.judgedStack(found)) {
      if (f.mpiVerdict === true) {
        this.heldVerdicts.push(f);
        continue;
      }
      // A note does not explain why MPI failed a call, nor what followed from it (a send that crashed is never
      // received); an error or a warning about the call itself does.
      if (f.severity !== 'note' && !CONSEQUENCES.has(f.kind))
        for (const l of f.locations) this.namedCalls.add(`${l.rank}|${l.site}`);
      kept.push(f);
    }
    return kept;
  }

  /**
   * MPI's verdicts on calls (engine/lifecycle/mpi-verdict.ts: its error under MPI_ERRORS_ARE_FATAL, a crash inside
   * a call), held until the run is over and handed out once, here: each keeps only the locations that no other
   * finding named (the same rank and call site), and goes when none is left. Held because the finding that says
   * more about the same call (a truncation's count-mismatch, once the sender's records arrive) may come later.
   */
  verdicts(): EngineFinding[] {
    const out: EngineFinding[] = [];
    for (const f of this.heldVerdicts) {
      const locations = f.locations.filter((l) => !this.namedCalls.has(`${l.rank}|${l.site}`));
      if (locations.length === 0) continue;
      const { mpiVerdict: _held, ...finding } = f;
      out.push({ ...finding, locations });
    }
    this.heldVerdicts.length = 0;
    return out;
  }

  private judgedStack(found: readonly EngineFinding[]): EngineFinding[] {
    if (!found.some((f) => f.stackBuffer !== undefined)) return [...found];
    const out: EngineFinding[] = [];
    for (const f of found) {
      const { stackBuffer, ...finding } = f;
      if (stackBuffer === undefined) {
        out.push(f);
        continue;
      }
      const kept: { l: RawLocation; text: string }[] = [];
      for (const l of f.locations) {
        const c = stackBuffer.find((s) => s.rank === l.rank);
        const over = c !== undefined ? this.stackOverflow(l, c) : undefined;
        if (over !== undefined) kept.push({ l: { ...l, detail: over.detail }, text: over.text });
      }
      const first = kept[0];
      if (first === undefined) continue;
      const others =
        kept.length > 1
          ? ` (and on rank${kept.length > 2 ? 's' : ''} ${kept
              .slice(1)
              .map((k) => k.l.rank)
              .join(', ')})`
          : '';
      out.push({
        ...finding,
        message: `${first.text}${others}. Make count × datatype fit the variable, or give a larger buffer.`,
        locations: kept.map((k) => k.l),
      });
    }
    return out;
  }

  /** Why a stack buffer's call reaches past its variable (the finding's text), or undefined when it does not. */
  private stackOverflow(
    l: RawLocation,
    c: StackBufferCandidate,
  ): { text: string; detail: string } | undefined {
    const key = this.siteOf(l);
    // A module resolved by its rank (another host, another build) has no debug info here to judge with.
    if (key === undefined || key.byRank !== undefined) return undefined;
    // The return address follows the call: the call's own byte is one before it.
    const fn = this.stackObjects.functionAt(key.module, linkAddress(key) - 1);
    const over = fn !== undefined ? overflowIn(fn, c) : undefined;
    if (over === undefined) return undefined;
    const into = over.at > 0 ? `${over.at} bytes into` : 'to';
    const past = c.reach - (over.size - over.at);
    return {
      text: `Rank ${l.rank}'s ${l.call} reaches ${c.reach} bytes from its ${c.param}, which points ${into} the local variable ${over.variable} of ${over.function} (${over.size} bytes): ${past > 0 ? `${past} bytes past its end` : 'before its start'}`,
      detail: `${l.call}: ${c.param} = ${over.variable} (${over.size} bytes), ${c.reach} bytes reached`,
    };
  }

  /**
   * Decode and feed one binary frame. Throws (with a reason) on a bad frame; the caller closes that rank.
   * The frame is decoded once, into columns the engine reads; event objects are built from them only when
   * `events` is true (the timeline wants them), so a run without a timeline builds none. With `analyze`
   * false the engine is not fed (a trace's timeline drawn before its findings are judged). Returns the
   * number of calls the frame completed, and their events when asked.
   */
  frame(
    rank: number,
    data: Uint8Array,
    events = false,
    analyze = true,
  ): { calls: number; events: readonly RankEvent[] } {
    const r = this.ranks.get(rank);
    if (r === undefined) throw new Error(`rank ${rank} sent records before its hello`);
    const rows = this.rows;
    rows.clear();
    r.decoder.decodeInto(data, rows);
    for (let row = 0; row < rows.length; row++) {
      // The shim sends END when MPI_Finalize is entered, then keeps the connection: the EXIT of
      // MPI_Finalize and any MPI call made after it (a call-order error) still arrive and are fed, since
      // the engine judges calls after END itself.
      r.lastSeq = Math.max(r.lastSeq, rows.seq[row] as number);
      r.lastTime = Math.max(r.lastTime, rows.time[row] as number);
      const kind = rows.kind[row];
      if (kind === KIND.SITE) {
        const module = rows.text.get(row) ?? '';
        const address = rows.word(row, 0);
        r.sites.set(address, {
          module,
          offset: rows.word(row, 1),
          address,
          ...(r.foreign.has(module) ? { byRank: rank } : {}),
        });
      }
      if (kind === KIND.END) {
        timingMark(`END of rank ${rank}`);
        r.ended = r.said = true;
        r.end ??= { how: END_HOWS[rows.word(row, 0)] ?? 'disconnected', code: rows.word(row, 1) };
        r.endedByUs ||= this.ending;
        // The report says where each rank ended (endings()): its last call's site is resolved now, while the
        // job ends, rather than after it (an addr2line, ~7 ms, on the end of every run).
        const last = this.siteOf({ rank, site: r.lastSite, call: '', detail: '' });
        if (last !== undefined) void this.resolver.resolve([last]);
      }
      if (kind === KIND.ENTER) {
        r.called = true;
        r.lastCall = functions[rows.func[row] as number]?.name ?? '';
        r.lastSite = rows.site[row] as number;
      }
    }
    if (analyze) {
      this.engine.pushColumns(rows, 0, rows.length);
      this.engine.endFrame(rank, data);
    }
    const out: RankEvent[] = [];
    if (events) for (let row = 0; row < rows.length; row++) out.push(eventAt(rows, row));
    return { calls: rows.length, events: out };
  }

  /**
   * The rank's stream is over. A rank that never sent END (crashed, killed, or cut off for a bad frame)
   * ends as 'disconnected', so the engine knows it will never act again.
   */
  close(rank: number): void {
    const r = this.progress(rank);
    if (r.ended) return;
    r.ended = true;
    r.endedByUs = this.ending;
    const end: RankEvent = {
      type: 'end',
      rank,
      seq: r.lastSeq,
      time: r.lastTime,
      how: 'disconnected',
      code: 0,
      dropped: 0,
    };
    this.engine.push(end);
    this.engine.endClose(rank, end.seq, end.time);
  }

  /** Ends the engine's shard threads, if any. */
  dispose(): Promise<unknown> {
    return this.engine.dispose();
  }

  /** Close every rank 0..size-1 that has not ended, including ranks that never connected. */
  closeAll(): void {
    for (let rank = 0; rank < this.size; rank++) this.close(rank);
  }

  /**
   * A rank described a module before its first call site in it. Returns true when the file at that path
   * here is not the rank's (the rank runs on another host, or another build): the caller then asks the rank
   * to resolve that module's sites itself ({"type":"resolve"}), and they arrive through rankSites().
   */
  module(rank: number, m: RemoteModule): boolean {
    const r = this.ranks.get(rank);
    if (r === undefined) return false;
    const id = `${m.path}\0${m.buildId}\0${m.size}\0${m.mtime}`;
    let same = this.sameHere.get(id);
    if (same === undefined) this.sameHere.set(id, (same = sameModuleHere(m)));
    if (!same) r.foreign.add(m.path);
    return !same;
  }

  /** The rank's own resolution of sites in a module it was asked to resolve. */
  rankSites(rank: number, sites: readonly RankSite[]): void {
    const r = this.ranks.get(rank);
    if (r === undefined) return;
    for (const s of sites) {
      const key = r.sites.get(s.address);
      if (key?.byRank === undefined) continue;
      this.resolver.answer(key, { file: s.file, line: s.line, function: s.function });
    }
  }

  /** True once any MPI call of the rank arrived. */
  called(rank: number): boolean {
    return this.ranks.get(rank)?.called ?? false;
  }

  /** True when the rank itself said how it ended (an END record); a dropped connection does not. */
  saidEnd(rank: number): boolean {
    return this.ranks.get(rank)?.said ?? false;
  }

  ended(rank: number): boolean {
    return this.ranks.get(rank)?.ended ?? false;
  }

  /** Every rank's stream is over, and at least one rank did not finalize (it aborted, died or vanished). */
  allEndedFailing(): boolean {
    let failing = false;
    for (let rank = 0; rank < this.size; rank++) {
      const r = this.ranks.get(rank);
      if (r === undefined || !r.ended) return false;
      if (r.end?.how !== 'finalized') failing = true;
    }
    return failing;
  }

  /** mpiscope begins to end the job: the ranks that end from now on are its doing. */
  endingJob(): void {
    this.ending = true;
  }

  /** The crashing thread's stack a rank sent before its END (a `crash` message). */
  crash(rank: number, report: CrashReport): void {
    const r = this.ranks.get(rank);
    if (r !== undefined) r.crash ??= report;
  }

  /** How every rank ended, with the place resolved (see RankEnding). */
  async endings(): Promise<RankEnding[]> {
    // Every place at once: addr2line runs once per module for the whole job, not once per rank.
    const keys: SiteKey[] = [];
    for (const [rank, r] of this.ranks) {
      if (r.end?.how === 'signal' && r.crash !== undefined) keys.push(...r.crash.frames);
      const last =
        r.lastSite === 0 ? undefined : this.siteOf({ rank, site: r.lastSite, call: '', detail: '' });
      if (last !== undefined) keys.push(last);
    }
    await this.resolver.resolve(keys);
    const out: RankEnding[] = [];
    for (let rank = 0; rank < this.size; rank++) {
      const r = this.ranks.get(rank);
      if (r?.hello !== true) {
        out.push({ rank, how: 'never-connected', lastCall: '', file: '', line: 0, function: '' });
        continue;
      }
      const how: EndHow = r.end?.how ?? 'disconnected';
      let pos: SourcePosition | undefined;
      if (how === 'signal' && r.crash !== undefined && r.crash.frames.length > 0) {
        const frames = r.crash.frames;
        const resolved = frames.map((k) => this.resolver.lookup(k));
        let inLibrary: SourcePosition | undefined;
        for (const [i, p] of resolved.entries()) {
          if (p.file === '') continue;
          if (!isSystemModule(frames[i]?.module ?? '')) {
            pos = p;
            break;
          }
          inLibrary ??= p;
        }
        pos ??= inLibrary;
      }
      const last =
        r.lastSite === 0 ? undefined : this.siteOf({ rank, site: r.lastSite, call: '', detail: '' });
      if (pos === undefined && last !== undefined) pos = this.resolver.lookup(last);
      const code = r.end?.code;
      out.push({
        rank,
        how,
        ...(how === 'signal' || how === 'abort' ? { code: code ?? 0 } : {}),
        ...(how === 'signal' ? { signal: signalName(code ?? 0) } : {}),
        // The address a SIGSEGV or SIGBUS touched (0 for a null pointer); the shim sends 0 for other signals.
        ...(how === 'signal' && r.crash !== undefined && (code === SIGSEGV || code === SIGBUS)
          ? { address: r.crash.address }
          : {}),
        ...(r.endedByUs ? { endedByMpiscope: true } : {}),
        ...(how === 'signal' && r.crash?.inCall === true ? { inCall: true } : {}),
        lastCall: r.lastCall,
        file: pos?.file ?? '',
        line: pos?.line ?? 0,
        function: pos?.function ?? '',
      });
    }
    return out;
  }

  /** Resolve a finding's call sites (addr2line, cached) into the report's shape. */
  async resolve(f: EngineFinding): Promise<Finding> {
    const keys = f.locations.map((l) => this.siteOf(l)).filter((k): k is SiteKey => k !== undefined);
    await this.resolver.resolve(keys);
    const locations = f.locations.map((l): Location => {
      const key = this.siteOf(l);
      const pos = key === undefined ? { file: '', line: 0, function: '' } : this.resolver.lookup(key);
      return {
        rank: l.rank,
        file: pos.file,
        line: pos.line,
        function: pos.function,
        call: l.call,
        detail: l.detail,
      };
    });
    return {
      kind: f.kind,
      severity: f.severity,
      message: f.message,
      locations,
      ...(f.race !== undefined ? { race: f.race } : {}),
    };
  }

  async resolveSite(rank: number, site: number): Promise<SourcePosition | undefined> {
    const key = this.siteOf({ rank, site, call: '', detail: '' });
    if (key === undefined) return undefined;
    await this.resolver.resolve([key]);
    return this.resolver.lookup(key);
  }

  /** Resolve return addresses given with their modules (a held rank's backtrace), in order. */
  async resolveKeys(keys: readonly SiteKey[]): Promise<SourcePosition[]> {
    await this.resolver.resolve(keys);
    return keys.map((k) => this.resolver.lookup(k));
  }

  private siteOf(l: RawLocation): SiteKey | undefined {
    if (l.site === 0) return undefined;
    return this.ranks.get(l.rank)?.sites.get(l.site);
  }
}
