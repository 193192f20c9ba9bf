/**
 * A rank's requests as rows of one struct-of-arrays store, not an object each: a request is a number (its row),
 * and what the engine knows of it sits in typed columns (handle, site, function, stamp, flags, the span it is
 * indexed under) grown by doubling and reused through a free list. The holders (the rank's handle table, its
 * pending-buffer indexes, orphans, earlyDone, a call's `creates`) keep the row. A request object lived from its
 * nonblocking call to its Wait — through one or two young-generation collections (copied, promoted) when many are
 * pending — and was 136 bytes plus a heap number for its handle; a row is 55 bytes in columns the collector does
 * not trace.
 *
 * What stays in object columns: the operation (`op`, a SendOp/RecvOp, until those are rows too), the creating call of
 * a persistent request (`template`) and a nonblocking collective's place (`coll`).
 *
 * Lifetime: a row is taken by `alloc` when the call that creates the request enters, and given back by `release`
 * when its last holder lets go (completed or freed and not orphaned; an orphan's operation completed; a call that
 * failed or made no request). `release` checks that the row is live and in no pending-buffer index: a row released
 * twice, or released while the index still holds it, is an engine bug and throws rather than let a later request
 * reuse the row under a holder that still points at it.
 */
import type { CommInfo } from './comms';
import type { RecvOp, SendOp } from './ops';
import type { CallEnter, FunctionSpec } from './types';
import { grown } from '../../protocol/grown';
import { functions } from '../../protocol/spec';

export type RequestWhat = 'send' | 'recv' | 'coll' | 'mrecv' | 'other';
export interface RequestColl {
  readonly comm: CommInfo;
  readonly index: number;
}
/** A request: its row in its rank's RequestPool. */
export type ReqId = number;

const WHATS: readonly RequestWhat[] = ['send', 'recv', 'coll', 'mrecv', 'other'];
const WHAT_MASK = 7;
const PERSISTENT = 8;
const ACTIVE = 16;
const MISUSED = 32;
const STATUS_SEEN = 64;
const LIVE = 128;
/** A persistent request that MPI_Start posted at least once (deadlock/unstarted-send.ts). */
const STARTED = 256;

/** Which pending-buffer index of the rank holds the row (RankTrack.pendingReads / pendingWrites). */
export const NOT_INDEXED = 0;
export const IN_READS = 1;
export const IN_WRITES = 2;

export class RequestPool {
  /** 0 until the EXIT of the call that creates it reports the handle. */
  private handles = new Float64Array(16);
  /** Call site of the creating call (what findings about the request name). */
  private sites = new Float64Array(16);
  /**
   * Its place in the order the rank's pending requests were walked in before the buffer index (the handle table's
   * insertion order, then earlyDone's): the overlap check reports the first pending request in that order.
   */
  private stamps = new Float64Array(16);
  /** Start of the span it is held under in a pending-buffer index (see `indexedIn`). */
  private spanFrom = new Float64Array(16);
  /** Its order in that index among equal starts (what SpanIndex.add returned; SpanIndex.remove finds it by it). */
  private spanOrd = new Float64Array(16);
  /** The bytes its operation's buffer spans, [lo, hi): NaN when unknown or when it has no operation. */
  private lows = new Float64Array(16);
  private highs = new Float64Array(16);
  /** Function id of the creating call. */
  private fns = new Int32Array(16);
  /** The free list's link of a released row. */
  private next = new Int32Array(16);
  private bits = new Uint16Array(16);
  private indexed = new Uint8Array(16);
  private ops: (SendOp | RecvOp | undefined)[] = new Array<SendOp | RecvOp | undefined>(16).fill(undefined);
  private templates: (CallEnter | undefined)[] = new Array<CallEnter | undefined>(16).fill(undefined);
  private colls: (RequestColl | undefined)[] = new Array<RequestColl | undefined>(16).fill(undefined);
  private freeHead = -1;
  /** Rows ever used (the next fresh row). */
  private top = 0;
  private used = 0;

  /** Rows live now. */
  get live(): number {
    return this.used;
  }

  /** Rows the columns have room for (grown by doubling, never shrunk). */
  get capacity(): number {
    return this.bits.length;
  }

  /**
   * The request the call `created` will make: what it is, persistent or not (a persistent one keeps the call as
   * the template each MPI_Start posts; a nonblocking one is active from creation), its operation or collective.
   */
  alloc(
    created: CallEnter,
    what: RequestWhat,
    persistent: boolean,
    op: SendOp | RecvOp | undefined,
    coll: RequestColl | undefined,
  ): ReqId {
    let r = this.freeHead;
    if (r >= 0) this.freeHead = this.next[r] as number;
    else {
      if (this.top === this.bits.length) this.grow();
      r = this.top++;
    }
    this.used++;
    this.handles[r] = 0;
    this.sites[r] = created.site;
    this.stamps[r] = 0;
    this.spanFrom[r] = 0;
    this.lows[r] = NaN;
    this.highs[r] = NaN;
    this.fns[r] = created.fn.id;
    this.bits[r] = WHATS.indexOf(what) | (persistent ? PERSISTENT : ACTIVE) | LIVE;
    this.indexed[r] = NOT_INDEXED;
    this.ops[r] = op;
    // The template outlives its call's batch (each MPI_Start reads its words).
    if (persistent) created.keepWords();
    this.templates[r] = persistent ? created : undefined;
    this.colls[r] = coll;
    return r;
  }

  /** The request has no holder left: its row is free for the next one. */
  release(r: ReqId): void {
    const bits = this.bits[r];
    if (bits === undefined || (bits & LIVE) === 0) throw new Error(`RequestPool: row ${r} released twice`);
    if (this.indexed[r] !== NOT_INDEXED)
      throw new Error(`RequestPool: row ${r} released while a pending-buffer index holds it`);
    this.bits[r] = 0;
    // The objects it pointed at are not kept alive by a free row.
    this.ops[r] = undefined;
    this.templates[r] = undefined;
    this.colls[r] = undefined;
    this.next[r] = this.freeHead;
    this.freeHead = r;
    this.used--;
  }

  isLive(r: ReqId): boolean {
    return ((this.bits[r] ?? 0) & LIVE) !== 0;
  }

  handle(r: ReqId): number {
    return this.handles[r] as number;
  }
  setHandle(r: ReqId, h: number): void {
    this.handles[r] = h;
  }
  what(r: ReqId): RequestWhat {
    return WHATS[(this.bits[r] as number) & WHAT_MASK] as RequestWhat;
  }
  isSend(r: ReqId): boolean {
    return ((this.bits[r] as number) & WHAT_MASK) === 0;
  }
  persistent(r: ReqId): boolean {
    return ((this.bits[r] as number) & PERSISTENT) !== 0;
  }
  fn(r: ReqId): FunctionSpec {
    return functions[this.fns[r] as number] as FunctionSpec;
  }
  site(r: ReqId): number {
    return this.sites[r] as number;
  }
  /** Persistent requests only: the creating call, the template each MPI_Start re-posts. */
  template(r: ReqId): CallEnter | undefined {
    return this.templates[r];
  }
  /** For persistent requests: between Start and completion. Nonblocking ones are active from creation. */
  active(r: ReqId): boolean {
    return ((this.bits[r] as number) & ACTIVE) !== 0;
  }
  setActive(r: ReqId, on: boolean): void {
    this.flag(r, on ? ACTIVE | STARTED : ACTIVE, on);
  }
  /** A persistent request MPI_Start has posted at least once (a nonblocking one: always). */
  everStarted(r: ReqId): boolean {
    return ((this.bits[r] as number) & (STARTED | ACTIVE)) !== 0;
  }
  op(r: ReqId): SendOp | RecvOp | undefined {
    return this.ops[r];
  }
  setOp(r: ReqId, op: SendOp | RecvOp | undefined): void {
    this.ops[r] = op;
  }
  /** Start of the bytes its operation's buffer spans; NaN when unknown (see `setSpan`). */
  spanLo(r: ReqId): number {
    return this.lows[r] as number;
  }
  spanHi(r: ReqId): number {
    return this.highs[r] as number;
  }
  /** The span of the operation it holds now (`setOp`), [lo, hi); NaN for none. */
  setSpan(r: ReqId, lo: number, hi: number): void {
    this.lows[r] = lo;
    this.highs[r] = hi;
  }
  coll(r: ReqId): RequestColl | undefined {
    return this.colls[r];
  }
  /** Already reported as misused: not reported again as leaked. */
  misused(r: ReqId): boolean {
    return ((this.bits[r] as number) & MISUSED) !== 0;
  }
  setMisused(r: ReqId): void {
    this.flag(r, MISUSED, true);
  }
  /** MPI_Request_get_status said it completed (the request itself is still to be freed or waited for). */
  statusSeen(r: ReqId): boolean {
    return ((this.bits[r] as number) & STATUS_SEEN) !== 0;
  }
  setStatusSeen(r: ReqId): void {
    this.flag(r, STATUS_SEEN, true);
  }
  stamp(r: ReqId): number {
    return this.stamps[r] as number;
  }
  setStamp(r: ReqId, s: number): void {
    this.stamps[r] = s;
  }
  /** Which pending-buffer index holds it (NOT_INDEXED, IN_READS, IN_WRITES), under the span starting at `indexedFrom`. */
  indexedIn(r: ReqId): number {
    return this.indexed[r] as number;
  }
  indexedFrom(r: ReqId): number {
    return this.spanFrom[r] as number;
  }
  indexedOrd(r: ReqId): number {
    return this.spanOrd[r] as number;
  }
  setIndexed(r: ReqId, where: number, from: number, ord: number): void {
    this.indexed[r] = where;
    this.spanFrom[r] = from;
    this.spanOrd[r] = ord;
  }

  private flag(r: ReqId, bit: number, on: boolean): void {
    const b = this.bits[r] as number;
    this.bits[r] = on ? b | bit : b & ~bit;
  }

  private grow(): void {
    const n = this.bits.length * 2;
    this.handles = grown(this.handles, n);
    this.sites = grown(this.sites, n);
    this.stamps = grown(this.stamps, n);
    this.spanFrom = grown(this.spanFrom, n);
    this.spanOrd = grown(this.spanOrd, n);
    this.lows = grown(this.lows, n);
    this.highs = grown(this.highs, n);
    this.fns = grown(this.fns, n);
    this.next = grown(this.next, n);
    this.bits = grown(this.bits, n);
    this.indexed = grown(this.indexed, n);
    this.ops.length = n;
    this.ops.fill(undefined, n / 2);
    this.templates.length = n;
    this.templates.fill(undefined, n / 2);
    this.colls.length = n;
    this.colls.fill(undefined, n / 2);
  }
}
