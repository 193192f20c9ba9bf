import type {
  ClockEvent,
  EnterEvent,
  ExitEvent,
  CompleteEvent,
  FunctionSpec,
  Handle,
  RankEvent,
} from '../engine/model/types';
import type { Finding } from '../session/session-api';
import { callClassOf } from './call-class';
import { list, rolesOf, scalar } from './call-roles';
import { ClockAlign } from './clock-align';
import { ColumnStore } from './column-store';
import { CommIds } from './comm-ids';
import { MessagePairs, type RecvSide, type SendSide } from './message-pairs';
import { StartHold } from './start-hold';
import type {
  OpenCall,
  TimelineData,
  TimelineFinding,
  TimelineFunction,
  TimelineMessage,
  TimelineReset,
  TimelineSite,
} from './timeline-protocol';

const PROC_NULL = -2;
const SPAN_COLUMNS = ['rank', 'start', 'end', 'fn', 'site', 'comm'] as const;
const MESSAGE_COLUMNS = ['src', 'sendTime', 'dst', 'recvTime', 'bytes', 'tag'] as const;
/** Calls whose new request is one side of a point-to-point message (collective requests carry none). */
const REQUEST_KINDS: Readonly<Record<string, 'send' | 'recv'>> = {
  isend: 'send',
  send_init: 'send',
  irecv: 'recv',
  recv_init: 'recv',
  imrecv: 'recv',
};

interface Open {
  readonly start: number;
  readonly fn: FunctionSpec;
  readonly site: number;
  readonly comm: number;
  readonly event: EnterEvent;
}

interface RequestInfo {
  readonly kind: 'send' | 'recv';
  readonly persistent: boolean;
  readonly comm: Handle;
  readonly dest: number;
  readonly tag: number;
}

interface RankTrack {
  open: Open | undefined;
  lastStart: number;
  readonly requests: Map<Handle, RequestInfo>;
  /** Matched-probe message handles → their communicator handle (for MPI_Mrecv/Imrecv). */
  readonly messages: Map<Handle, Handle>;
  ended: boolean;
}

/**
 * Turns decoded events into the timeline: spans per rank (ENTER..EXIT), messages (send → receive, paired
 * by the non-overtaking rule from the receives' actual source and tag), open calls and findings placed
 * on the lanes. Pure: no clock, no I/O; the feed decides when to take a batch and where to send it.
 */
export class TimelineModel {
  private readonly clock = new ClockAlign();
  /** The first events wait until every rank's CLOCK is in, so that time 0 is the earliest rank's start. */
  private readonly hold = new StartHold(() => this.ranks);
  private readonly comms = new CommIds();
  private readonly spans = new ColumnStore(SPAN_COLUMNS, 4096);
  private readonly messages = new ColumnStore(MESSAGE_COLUMNS, 1024);
  private readonly pairs = new MessagePairs((s, r) => this.addMessage(s, r));
  private readonly tracks = new Map<number, RankTrack>();
  private readonly functions = new Map<number, TimelineFunction>();
  /** Per rank, return address → site id (a Map per rank: a string key per call cost 5 % of a trace's open). */
  private readonly siteIds = new Map<number, Map<number, number>>();
  private readonly sites: TimelineSite[] = [];
  private readonly findings: TimelineFinding[] = [];
  private now = 0;
  private seq = 0;
  /** What has been handed out by takeBatch() (everything before these indices). */
  private sent = { spans: 0, messages: 0, functions: 0, findings: 0, sites: 0 };
  private readonly functionOrder: TimelineFunction[] = [];
  private readonly siteUpdates: TimelineSite[] = [];
  private dirty = false;
  /** finish() was called: the stream is whole, so the job has ended whatever its ranks said. */
  private whole = false;

  constructor(
    private ranks: number,
    private readonly program = '',
  ) {}

  get spanCount(): number {
    return this.spans.length;
  }

  get messageCount(): number {
    return this.messages.length;
  }

  /**
   * A CLOCK record known before the events it aligns: a reader of a whole trace gives every CLOCK first
   * (trace-clocks.ts), so that the clock measurement of MPI_Finalize (the drift) applies to the events before it;
   * live, they arrive in order and events are placed with what is known when they come.
   */
  preloadClock(e: ClockEvent): void {
    this.clock.clock(e.rank, e.time, e.realtime, e.bounds);
  }

  push(e: RankEvent): void {
    this.dirty = true;
    if (e.rank >= this.ranks) this.ranks = e.rank + 1;
    const wasHolding = this.hold.holding;
    const ready = this.hold.push(e);
    if (wasHolding && !this.hold.holding) this.started();
    for (const x of ready) this.place(x);
  }

  /** The hold ended: fix time 0 at the earliest CLOCK before placing anything. */
  private started(): void {
    const origin = this.hold.origin;
    if (origin !== undefined) this.clock.startAt(origin);
  }

  private place(e: RankEvent): void {
    if (e.type === 'clock') {
      this.clock.clock(e.rank, e.time, e.realtime, e.bounds);
      return;
    }
    const t = this.clock.toJob(e.rank, e.time);
    if (t > this.now) this.now = t;
    const track = this.track(e.rank);
    switch (e.type) {
      case 'enter':
        this.enter(track, e, t);
        break;
      case 'complete':
        this.complete(track, e, t);
        break;
      case 'exit':
        this.exit(track, e, t);
        break;
      case 'comm':
        this.comms.add(e);
        break;
      case 'end':
        track.ended = true;
        break;
      default:
        break;
    }
  }

  /**
   * Where a finding found now sits on each rank's lane (the start of the rank's current or last call), for a
   * finding whose details come later: a trace's replay resolves its findings at the end, when the ranks have
   * moved on. Pass the result to addFinding then.
   */
  findingTimes(): number[] {
    this.releaseHold();
    return Array.from({ length: this.ranks }, (_, r) => this.findingTime(r));
  }

  /**
   * A rank's clock reading (its own nanoseconds) on the job's time axis, as the model placed or would place
   * an event of that rank read then: for a finding placed after the model has its events (a trace's
   * findings, judged after its timeline was drawn; see FindingPlaces).
   */
  jobTime(rank: number, time: number): number {
    return this.clock.toJob(rank, time);
  }

  /**
   * The stream is whole (a trace read to its end): what the start hold keeps is placed now, and the job
   * counts as ended even where a rank's END never came (a rank killed at a deadlock before it could say so):
   * nothing more will come for it.
   */
  finish(): void {
    this.releaseHold();
    this.whole = true;
    this.dirty = true;
  }

  /**
   * A finding (resolved by the session): placed at the start of each named rank's current or last call, now
   * or, with `at` (findingTimes() of the moment it was found, or job times of another pass), then; a rank
   * `at` leaves undefined is placed now.
   */
  addFinding(f: Finding, at?: readonly (number | undefined)[]): void {
    this.dirty = true;
    // The finding is placed on the ranks' calls: they must be placed first.
    this.releaseHold();
    const times = f.locations.map((l) => at?.[l.rank] ?? this.findingTime(l.rank));
    this.findings.push({
      id: this.findings.length,
      kind: f.kind,
      severity: f.severity,
      message: f.message,
      locations: f.locations.map((l) => ({
        rank: l.rank,
        file: l.file,
        line: l.line,
        call: l.call,
        detail: l.detail,
      })),
      times,
    });
  }

  private findingTime(rank: number): number {
    const tr = this.tracks.get(rank);
    return tr?.open?.start ?? tr?.lastStart ?? this.now;
  }

  private releaseHold(): void {
    if (!this.hold.holding) return;
    const held = this.hold.release();
    this.started();
    for (const x of held) this.place(x);
  }

  /** Call sites the server has not resolved yet: (site id, rank, address). */
  unresolvedSites(): readonly TimelineSite[] {
    return this.sites.filter((s) => s.file === '' && s.function === '');
  }

  /** The server resolved a call site; the next batch carries it. */
  resolveSite(id: number, file: string, line: number, fn: string): void {
    const s = this.sites[id];
    if (s === undefined) return;
    const next = { ...s, file, line, function: fn };
    this.sites[id] = next;
    this.siteUpdates.push(next);
    this.dirty = true;
  }

  /** Everything new since the previous call, or undefined when nothing changed. */
  takeBatch(): TimelineData | undefined {
    // While holding, times are not known yet; `dirty` stays set so the first batch after carries it all.
    if (!this.dirty || this.hold.holding) return undefined;
    this.dirty = false;
    const s = this.sent;
    const batch = this.data(this.seq++, s.spans, s.messages, s.functions, s.findings, s.sites);
    batch.sites.push(...this.siteUpdates);
    this.siteUpdates.length = 0;
    this.sent = {
      spans: this.spans.length,
      messages: this.messages.length,
      functions: this.functionOrder.length,
      findings: this.findings.length,
      sites: this.sites.length,
    };
    return batch;
  }

  /**
   * Everything already handed out by takeBatch(), as a reset and one data batch: for a receiver that
   * starts late. Together with the batches taken after it, it is the whole job.
   */
  snapshot(): TimelineMessage[] {
    const reset: TimelineMessage = { type: 'reset', ranks: this.ranks, program: this.program };
    const all = this.data(Math.max(0, this.seq - 1), 0, 0, 0, 0, 0, this.sent);
    // Sites resolved since are in the next delta anyway; the snapshot shows them as they were sent.
    return [reset, all];
  }

  /** The reset message a new job starts with. */
  reset(): TimelineReset {
    return { type: 'reset', ranks: this.ranks, program: this.program };
  }

  private data(
    seq: number,
    spans: number,
    messages: number,
    functions: number,
    findings: number,
    sites: number,
    until = {
      spans: this.spans.length,
      messages: this.messages.length,
      functions: this.functionOrder.length,
      findings: this.findings.length,
      sites: this.sites.length,
    },
  ): TimelineData & { sites: TimelineSite[] } {
    const open: OpenCall[] = [];
    for (const [rank, tr] of this.tracks) {
      if (tr.open !== undefined) {
        open.push({ rank, start: tr.open.start, fn: tr.open.fn.id, site: tr.open.site, comm: tr.open.comm });
      }
    }
    let ended = this.tracks.size >= this.ranks;
    for (const tr of this.tracks.values()) ended &&= tr.ended;
    ended ||= this.whole;
    return {
      type: 'data',
      seq,
      ranks: this.ranks,
      now: this.now,
      functions: this.functionOrder.slice(functions, until.functions),
      sites: this.sites.slice(sites, until.sites),
      spans: this.spans.slice(spans, until.spans),
      messages: this.messages.slice(messages, until.messages),
      findings: this.findings.slice(findings, until.findings),
      open,
      ended,
    };
  }

  private track(rank: number): RankTrack {
    let tr = this.tracks.get(rank);
    if (tr === undefined) {
      tr = { open: undefined, lastStart: 0, requests: new Map(), messages: new Map(), ended: false };
      this.tracks.set(rank, tr);
    }
    return tr;
  }

  private siteId(rank: number, address: number): number {
    if (address === 0) return -1;
    let ids = this.siteIds.get(rank);
    if (ids === undefined) this.siteIds.set(rank, (ids = new Map<number, number>()));
    let id = ids.get(address);
    if (id === undefined) {
      id = this.sites.length;
      ids.set(address, id);
      this.sites.push({ id, rank, address, file: '', line: 0, function: '' });
    }
    return id;
  }

  private enter(tr: RankTrack, e: EnterEvent, t: number): void {
    if (!this.functions.has(e.fn.id)) {
      const f: TimelineFunction = { id: e.fn.id, name: e.fn.name, cls: callClassOf(e.fn.cls) };
      this.functions.set(e.fn.id, f);
      this.functionOrder.push(f);
    }
    const roles = rolesOf(e.fn);
    const commHandle = scalar(e.args, roles.comm);
    const comm = roles.comm === undefined ? -1 : this.comms.id(e.rank, commHandle);
    tr.open = { start: t, fn: e.fn, site: this.siteId(e.rank, e.site), comm, event: e };
    tr.lastStart = t;
    switch (e.fn.cls) {
      case 'send':
      case 'isend':
      case 'sendrecv':
      case 'sendrecv_replace':
        this.postSend(e.rank, commHandle, scalar(e.args, roles.dest), scalar(e.args, roles.sendTag), t);
        break;
      case 'start':
      case 'startall':
        for (const h of [...list(e.args, roles.request), ...list(e.args, roles.requests)]) {
          const r = tr.requests.get(h);
          if (r?.kind === 'send') this.postSend(e.rank, r.comm, r.dest, r.tag, t);
        }
        break;
      default:
        break;
    }
  }

  private postSend(rank: number, commHandle: Handle, dest: number, tag: number, time: number): void {
    if (dest === PROC_NULL) return;
    const send: SendSide = {
      src: rank,
      dst: this.comms.world(rank, commHandle, dest),
      comm: this.comms.id(rank, commHandle),
      tag,
      time,
    };
    this.pairs.send(send);
  }

  private complete(tr: RankTrack, e: CompleteEvent, t: number): void {
    // A completed request that is not persistent is freed: its entry goes whatever it completed (a cancelled
    // receive too), so the map holds only the requests pending now.
    const freed = e.request !== 0 ? tr.requests.get(e.request) : undefined;
    if (freed !== undefined && !freed.persistent) tr.requests.delete(e.request);
    if (e.cancelled || e.source === PROC_NULL || e.source < 0) return;
    let commHandle: Handle | undefined;
    const open = tr.open;
    if (e.request === 0) {
      if (open === undefined) return;
      const roles = rolesOf(open.fn);
      switch (open.fn.cls) {
        case 'recv':
        case 'sendrecv':
        case 'sendrecv_replace':
          commHandle = scalar(open.event.args, roles.comm);
          break;
        case 'mrecv':
          commHandle = tr.messages.get(scalar(open.event.args, roles.message));
          break;
        default:
          return; // Probes and blocking sends complete nothing that is a message arrival.
      }
    } else {
      if (freed === undefined || freed.kind !== 'recv') return;
      commHandle = freed.comm;
    }
    if (commHandle === undefined) return;
    const recv: RecvSide = {
      src: this.comms.world(e.rank, commHandle, e.source),
      dst: e.rank,
      comm: this.comms.id(e.rank, commHandle),
      tag: e.tag,
      time: t,
      bytes: e.bytes,
    };
    this.pairs.recv(recv);
  }

  private exit(tr: RankTrack, e: ExitEvent, t: number): void {
    const open = tr.open;
    if (open === undefined || open.event.seq !== e.seq) return;
    tr.open = undefined;
    this.spans.push([e.rank, open.start, t, open.fn.id, open.site, open.comm]);
    const roles = rolesOf(open.fn);
    const args = open.event.args;
    const out = scalar(e.outputs, roles.requestOut);
    const cls = open.fn.cls;
    const kind = REQUEST_KINDS[cls];
    const persistent = cls === 'send_init' || cls === 'recv_init';
    // A send's request is needed later only when it is persistent (MPI_Start posts the send again); an Isend's is
    // not kept. It often completes inside the Isend, before this exit, so it would never leave the map: a 1.1
    // M-event trace kept 160,000 of them, whose handles (the shim's, for requests done at once, differing only in
    // their high bits) hash badly as numbers: 2.4 s of CPU in this map's set, 0.4 s for the whole model without.
    if (out !== 0 && kind !== undefined && (kind === 'recv' || persistent)) {
      const comm =
        cls === 'imrecv' ? (tr.messages.get(scalar(args, roles.message)) ?? 0) : scalar(args, roles.comm);
      tr.requests.set(out, {
        kind,
        persistent,
        comm,
        dest: scalar(args, roles.dest),
        tag: scalar(args, roles.sendTag),
      });
    }
    const msg = scalar(e.outputs, roles.messageOut);
    if (msg !== 0) tr.messages.set(msg, scalar(args, roles.comm));
  }

  private addMessage(s: SendSide, r: RecvSide): void {
    this.messages.push([s.src, s.time, r.dst, r.time, r.bytes, r.tag]);
  }
}
