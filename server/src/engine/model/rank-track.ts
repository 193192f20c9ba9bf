/**
 * What the engine knows about one rank: its calls in flight and its live requests. A rank with threads
 * (MPI_THREAD_MULTIPLE) has several calls in flight at once; their records interleave in the rank's
 * stream, each carrying its call's seq, so EXIT and COMPLETE records find their call by seq.
 */
import type { CommInfo } from './comms';
import type { RecvOp, SendOp } from './ops';
import { RecentMap } from './recent-map';
import type { EndHow, CallEnter, Handle } from './types';

/** A request from creation (EXIT request_out) to completion or free. */
export interface RequestInfo {
  /** 0 until the EXIT of the call that creates it reports the handle (the call's `creates` is this object). */
  handle: Handle;
  readonly what: 'send' | 'recv' | 'coll' | 'mrecv' | 'other';
  readonly persistent: boolean;
  /** The call that created it (for persistent requests: the template Start re-posts). */
  readonly created: CallEnter;
  /** For persistent requests: between Start and completion. Nonblocking ones are active from creation. */
  active: boolean;
  op?: SendOp | RecvOp;
  coll?: { readonly comm: CommInfo; readonly index: number };
  /** Already reported as misused: not reported again as leaked. */
  misused?: boolean;
  /** MPI_Request_get_status said it completed (the request itself is still to be freed or waited for). */
  statusSeen?: boolean;
}

/** The call a rank entered last; kept after its exit until the next enter, for late COMPLETE records. */
export interface CallState {
  readonly enter: CallEnter;
  exited: boolean;
  send?: SendOp;
  recv?: RecvOp;
  coll?: { readonly comm: CommInfo; readonly index: number };
  /** Requests the call waits on (Wait*, Test*), in argument order. */
  waits?: readonly Handle[];
  /** The shim found an argument invalid (FINDING): whatever MPI did, it matched nothing. */
  rejected?: boolean;
  /** The request this call creates, waiting for its handle in the EXIT record. */
  creates?: RequestInfo;
}

/** Exited calls kept for late COMPLETE records (a thread's COMPLETE may follow its call's EXIT). */
const KEEP_EXITED = 64;

export class RankTrack {
  /** The latest call still in flight, else the call entered last (kept after its exit). */
  cur: CallState | undefined;
  /** Calls in flight and the last exited ones, by seq. */
  private readonly calls = new Map<number, CallState>();
  /**
   * The last KEEP_EXITED exited calls, a ring in exit order: the oldest leaves `calls` when another exits.
   * One at a time and by index, not by iterating the Map (whose entries are an array each).
   */
  private readonly exitedRing: (CallState | undefined)[] = new Array<CallState | undefined>(KEEP_EXITED).fill(
    undefined,
  );
  private exitedNext = 0;
  private inFlight = 0;
  /**
   * Several threads called MPI under MPI_THREAD_MULTIPLE (two calls in flight at once, or a call from
   * another thread than MPI_Init's): the order of the rank's calls is not one thread's program order.
   */
  concurrent = false;
  readonly requests = new Map<Handle, RequestInfo>();
  /** Active requests freed by MPI_Request_free: their operations still happen. */
  readonly orphans: RequestInfo[] = [];
  /**
   * Requests that were complete when made (MPICH's builtin requests, Open MPI's MPI_PROC_NULL request): the
   * shim passes them as DONE_REQUEST (not 0, MPI_REQUEST_NULL) to the Wait/Test/free that consumes them, so
   * those calls consume them in order.
   */
  readonly earlyDone: RequestInfo[] = [];
  /**
   * The call that made each send request (by the id the shim reports: the handle, or the made-up id of a request
   * MPI made already complete), kept after completion: the shim's send-buffer-modified finding comes from the
   * Wait that completed the send, after its COMPLETE, and points back at the send. Bounded (the last 4096).
   */
  readonly sendCreators = new RecentMap<CallEnter>(4096);
  /**
   * Handles of requests completed and freed (by a Wait/Test or MPI_Request_free) → the call that did it; the
   * last 65536 (MPI recycles handles, so this only bounds a pathological program).
   */
  readonly retired = new RecentMap<string>(65536);
  ended: EndHow | undefined;
  /**
   * Wildcard receives this rank posted so far, counted as the shim counts them for --replay-race (spec
   * replayClasses, source MPI_ANY_SOURCE), so that a race's receive is named by (rank, count) in both.
   */
  wildcards = 0;
  /** Records of this rank the shim dropped: its requests' states are no longer certain. */
  lost = 0;
  /** Seen any event from this rank (ranks not heard from yet are assumed able to act). */
  started = false;
  inFinalize = false;
  /** The thread level MPI_Init / MPI_Init_thread asked for (0 single … 3 multiple); undefined before. */
  threadLevel: number | undefined;
  /** A thread-level violation of this rank was reported (only the first is). */
  threadReported = false;
  /** Site of MPI_Finalize (or of the last call), where end-of-run findings point for this rank. */
  lastSite = 0;
  lastCall = '';

  constructor(readonly rank: number) {}

  /** A call enters: it becomes the current call. */
  enter(call: CallState): void {
    if (this.inCall || (call.enter.otherThread === true && this.threadLevel === 3)) this.concurrent = true;
    this.cur = call;
    this.calls.set(call.enter.seq, call);
    this.inFlight++;
  }

  /** The call with this seq, in flight or recently exited. */
  call(seq: number): CallState | undefined {
    return this.calls.get(seq);
  }

  /** A call exits; the current call becomes the latest other call still in flight, if any. */
  exit(call: CallState): void {
    call.exited = true;
    this.inFlight--;
    const oldest = this.exitedRing[this.exitedNext];
    this.exitedRing[this.exitedNext] = call;
    this.exitedNext = this.exitedNext + 1 === KEEP_EXITED ? 0 : this.exitedNext + 1;
    // Unless its seq was taken since by another call, or it is still the current one (the rank's last call).
    if (oldest !== undefined && oldest !== this.cur && this.calls.get(oldest.enter.seq) === oldest)
      this.calls.delete(oldest.enter.seq);
    if (this.cur !== call || this.inFlight <= 0) return;
    let latest: CallState | undefined;
    for (const c of this.calls.values()) if (!c.exited) latest = c;
    if (latest !== undefined) this.cur = latest;
  }

  /** Remember the call that made send request `id` (see sendCreators). */
  rememberSend(id: Handle, created: CallEnter): void {
    this.sendCreators.set(id, created);
  }

  /** Inside a call that has not returned. */
  get inCall(): boolean {
    return this.cur !== undefined && !this.cur.exited && this.ended === undefined;
  }
}
