/**
 * Point-to-point and request bookkeeping: what each ENTER, EXIT and COMPLETE means for messages and
 * requests. The hot path of the engine: numbers and maps only, no strings.
 */
import { checkOverlap, spanEnd, spanStart } from './point-to-point/buffer-overlap';
import { checkStale, checkUnknownFailed, inputRequests, retire } from './point-to-point/stale-requests';
import { checkThreadLevel, onInitEnter } from './lifecycle/thread-level';
import { enterCollective } from './collectives/collectives';
import { commRankOf, peerWorld, type TopoSpec } from './model/comms';
import type { EngineState } from './engine-state';
import type { DtypeInfo } from './model/datatypes';
import { list, num, RoleReader } from './model/fn-roles';
import {
  C,
  classOf,
  hasRequestOut,
  isTestClass,
  makesCommFromParent,
  requestOutWord,
} from './model/fn-class';
import type { ExitRow } from './call-rows';
import { nextOrder, type RecvOp, type SendOp } from './model/ops';
import type { Call, CallState, RankTrack } from './model/rank-track';
import type { RequestColl, RequestWhat, ReqId } from './model/request-pool';
import {
  ANY_SOURCE,
  ANY_TAG,
  DONE_REQUEST,
  PROC_NULL,
  type CompleteEvent,
  type CallEnter,
} from './model/types';
import api from '../../../native-shim/spec/mpi-api.json';

/** Classes whose wildcard receives the shim counts for --replay-race (the spec's replayClasses). */
const REPLAY_CLASSES: ReadonlySet<string> = new Set(api.replayClasses);

/** The roles every send and receive reads, resolved once per function (fn-roles.ts RoleReader). */
const DEST = new RoleReader('dest');
const SOURCE = new RoleReader('source');
const COMM = new RoleReader('comm');
const STAG = new RoleReader('stag', 'tag');
const RTAG = new RoleReader('rtag', 'tag');
const SCOUNT = new RoleReader('scount', 'count');
const RCOUNT = new RoleReader('rcount', 'count');
const STYPE = new RoleReader('stype', 'datatype');
const RTYPE = new RoleReader('rtype', 'datatype');
const SBUF = new RoleReader('sbuf', 'rwbuf');
const RBUF = new RoleReader('rbuf', 'rwbuf');
const COMM_OUT = new RoleReader('comm_out');
const REQUEST_OUT = new RoleReader('request_out');

/** Whether the call has the reader's argument (a scalar role, present in the words): argOf(e, role) !== undefined. */
function has(r: RoleReader, e: CallEnter): boolean {
  return !Number.isNaN(r.num(e, NaN));
}

/**
 * The bytes the buffer of the operation posted last (postSend, newRecv) spans, [postedLo, postedHi): NaN when
 * unknown or when it posted none. Read right after by the request that takes the operation (`creates`, `start`:
 * RequestPool.setSpan), so that no operation carries a span tuple.
 */
let postedLo = NaN;
let postedHi = NaN;

function postSend(st: EngineState, e: CallEnter, request: number): SendOp | undefined {
  postedLo = NaN;
  postedHi = NaN;
  // The words checked readable and the call's fields loaded once for the six roles (RoleReader.at).
  const id = e.fn.id;
  const w = e.wordArray();
  const b = e.wordBase;
  const n = e.wordCount;
  const dest = DEST.at(id, w, b, n, PROC_NULL);
  if (dest === PROC_NULL) return undefined;
  const comm = st.comms.lookup(e.rank, COMM.at(id, w, b, n, 0));
  const destWorld = peerWorld(comm, e.rank, dest);
  if (destWorld === undefined) return undefined; // invalid rank: the shim reports it as invalid-argument
  const datatype = STYPE.at(id, w, b, n, 0);
  const count = SCOUNT.at(id, w, b, n, 0);
  const dtype = st.dtypes.type(e.rank, datatype);
  const lo = spanStart(SBUF.at(id, w, b, n, 0), count, dtype);
  const op: SendOp = {
    kind: 'send',
    order: nextOrder(),
    rank: e.rank,
    comm,
    fn: e.fn,
    seq: e.seq,
    site: e.site,
    request,
    reported: false,
    dest: destWorld,
    destCommRank: dest,
    srcCommRank: commRankOf(comm, e.rank),
    tag: STAG.at(id, w, b, n, 0),
    count,
    dtype,
    matched: false,
    done: false,
    buf: lo,
    doneOrder: -1,
    // The causal runs' fields (model/ops.ts), set later: in the literal, so that every operation has one shape
    // from its creation (fields added afterwards gave each a chain of hidden classes, an out-of-object property
    // array, and made the reads of `peer` or `ran` polymorphic).
    peer: undefined,
    ran: 0,
    sentClock: -1,
    doneTime: undefined,
    doneIndex: undefined,
  };
  if (lo === lo) {
    const hi = spanEnd(lo, op.count, op.dtype as DtypeInfo);
    postedLo = lo;
    postedHi = hi;
    checkOverlap(st, st.track(e.rank), op, lo, hi, st.recvReads);
  }
  st.matcher.post(op);
  st.replay.post(op);
  // The call that puts it in the attached buffer: the send itself, or the MPI_Start of its persistent request.
  if (e.fn.mode === 'buffered') st.bsend.posted(op, st.track(e.rank).cur?.enter ?? e);
  return op;
}

/**
 * The sender's side of `op` completed for the program (its call returned, or its Wait/Test or free consumed the
 * request): when, in the order of its rank's stream (recv-overlap.ts reads it).
 */
function sendDone(op: SendOp): void {
  op.done = true;
  op.doneOrder = nextOrder();
}

function newRecv(st: EngineState, e: CallEnter, kind: RecvOp['kind'], request: number): RecvOp {
  postedLo = NaN;
  postedHi = NaN;
  // As in postSend: the words and the call's fields loaded once for the roles read below.
  const id = e.fn.id;
  const w = e.wordArray();
  const b = e.wordBase;
  const n = e.wordCount;
  const source = SOURCE.at(id, w, b, n, ANY_SOURCE);
  const datatype = RTYPE.at(id, w, b, n, 0);
  // Read before posting: nothing below reads the words again.
  const rbuf = RBUF.at(id, w, b, n, 0);
  const op: RecvOp = {
    kind,
    order: nextOrder(),
    rank: e.rank,
    comm: st.comms.lookup(e.rank, COMM.at(id, w, b, n, 0)),
    fn: e.fn,
    seq: e.seq,
    site: e.site,
    request,
    reported: false,
    source,
    tag: RTAG.at(id, w, b, n, ANY_TAG),
    count: RCOUNT.at(id, w, b, n, 0),
    dtype: st.dtypes.type(e.rank, datatype),
    // A receive from MPI_PROC_NULL completes at once, with no message.
    done: source === PROC_NULL,
    // The causal runs' fields, as in postSend.
    peer: undefined,
    ran: 0,
    sentClock: -1,
    doneTime: undefined,
    doneIndex: undefined,
    // Counted at the call's ENTER only (not at MPI_Start of a persistent receive), like the shim's wrappers.
    wildcard:
      source === ANY_SOURCE && REPLAY_CLASSES.has(e.fn.cls) ? ++st.track(e.rank).wildcards : undefined,
  };
  if (kind !== 'probe') st.replay.post(op);
  if (kind === 'recv' && source >= 0 && op.tag >= 0) {
    const src = peerWorld(op.comm, op.rank, source);
    if (src !== undefined) st.matcher.postRecv(op, src);
  }
  const lo = kind === 'recv' ? spanStart(rbuf, op.count, op.dtype) : NaN;
  if (lo === lo) {
    const hi = spanEnd(lo, op.count, op.dtype as DtypeInfo);
    postedLo = lo;
    postedHi = hi;
    checkOverlap(st, st.track(e.rank), op, lo, hi, undefined, st.recvOverlaps);
    st.freedSends.check(op, lo, hi);
  }
  return op;
}

/**
 * The request a call will create, a row of its rank's RequestPool taken once: its handle is filled in at the EXIT
 * (or the COMPLETE of a request MPI made already complete), and the same row becomes the rank's request.
 */
function creates(
  t: RankTrack,
  cur: CallState,
  what: RequestWhat,
  persistent: boolean,
  op?: SendOp | RecvOp,
  coll?: RequestColl,
): void {
  // A call makes one request; one made already (never the case for the classes above) would lose its row.
  if (cur.creates !== undefined) t.reqs.release(cur.creates);
  const req = t.reqs.alloc(cur.enter, what, persistent, op, coll);
  // The operation was posted just before (postSend, newRecv): its buffer's span.
  if (op !== undefined) t.reqs.setSpan(req, postedLo, postedHi);
  cur.creates = req;
}

/** Nothing consumed (consumeEarly's usual answer): one shared empty list, not an array per call. */
const NONE: ReqId[] = [];

export function onEnter(st: EngineState, e: Call): void {
  const t = st.track(e.rank);
  t.started = true;
  // MPI_Finalize first deletes MPI_COMM_SELF's attributes, whose delete functions may still call MPI (mpi4py
  // frees its keyvals there): such a call, nested in the rank's MPI_Finalize, is not one made after it.
  st.resources.onEnter(e, e.nested && t.inFinalize ? undefined : t.ended);
  // A call after MPI_Finalize is reported above; it takes part in nothing.
  if (t.ended !== undefined) return;
  const inputs = inputRequests(e);
  checkStale(st, t, e, inputs);
  checkThreadLevel(st, t, e);
  // The call's state is the call's object (model/rank-track.ts Call), made with its ENTER.
  const cur: CallState = e;
  t.enter(e);
  t.lastSite = e.site;
  t.lastCall = e.fn.name;
  const id = e.fn.id;
  const code = classOf[id] as number;
  switch (code) {
    case C.INIT:
      onInitEnter(t, e);
      break;
    case C.FINALIZE:
      t.inFinalize = true;
      break;
    case C.SEND: {
      const op = postSend(st, e, 0);
      if (op !== undefined) cur.send = op;
      break;
    }
    case C.ISEND: {
      const op = postSend(st, e, 0);
      creates(t, cur, 'send', false, op ?? undefined);
      break;
    }
    case C.SEND_INIT:
      creates(t, cur, 'send', true);
      break;
    case C.RECV_INIT:
      creates(t, cur, 'recv', true);
      break;
    case C.RECV:
      cur.recv = newRecv(st, e, 'recv', 0);
      break;
    case C.IRECV:
      creates(t, cur, 'recv', false, newRecv(st, e, 'recv', 0));
      break;
    case C.SENDRECV:
    case C.SENDRECV_REPLACE: {
      const op = postSend(st, e, 0);
      if (op !== undefined) cur.send = op;
      cur.recv = newRecv(st, e, 'recv', 0);
      break;
    }
    case C.PROBE:
      cur.recv = newRecv(st, e, 'probe', 0);
      break;
    case C.MPROBE:
    case C.IMPROBE:
      cur.recv = newRecv(st, e, 'mprobe', 0);
      break;
    case C.IMRECV:
      creates(t, cur, 'mrecv', false);
      break;
    case C.WAIT:
    case C.TEST:
    case C.WAITALL:
    case C.WAITANY:
    case C.WAITSOME:
    case C.TESTALL:
    case C.TESTANY:
    case C.TESTSOME:
      cur.waits = inputs;
      // A request MPI completed at once (an eager Isend) is still waited for here: without buffering this
      // Wait is where a standard send blocks until its receive is posted (the zero-buffering replay).
      // A Test of a send complete since its creation succeeds at its first try: never seen polling it.
      if (t.earlyDone.length !== 0)
        for (const req of consumeEarly(t, inputs, code === C.WAITANY || code === C.TESTANY)) {
          const op = t.reqs.op(req);
          if (op !== undefined && (op.kind !== 'send' || !isTestClass(code))) st.replay.wait(op);
          if (op?.kind === 'send') sendDone(op);
          t.forget(req);
        }
      break;
    case C.START:
      start(st, t, num(e, 0, 'request'));
      break;
    case C.STARTALL:
      for (const h of list(e, 'requests')) start(st, t, h);
      break;
    case C.CANCEL: {
      // Whether MPI_Cancel succeeds is known only from the status of the call that completes the request; freed
      // instead, the operation either happened or never will: not an unmatched message (unmatched.ts).
      const req = t.requests.get(num(e, 0, 'request'));
      const op = req === undefined ? undefined : t.reqs.op(req);
      if (op !== undefined) op.cancelCalled = true;
      break;
    }
    case C.REQUEST_FREE:
      // A send MPI completed at once, freed without the program ever seeing it complete: see freed-send-reuse.ts.
      for (const req of consumeEarly(t, [num(e, 0, 'request')], false)) {
        const op = t.reqs.op(req);
        if (op?.kind === 'send') {
          st.freedSends.freed(op, t.reqs.spanLo(req), t.reqs.spanHi(req));
          sendDone(op);
        }
        t.forget(req);
      }
      freeRequest(st, t, num(e, 0, 'request'));
      break;
    case C.COLLECTIVE: {
      const coll = enterCollective(st, e, st.comms.lookup(e.rank, num(e, 0, 'comm')));
      if (coll !== undefined) {
        cur.coll = coll;
        st.replay.collective(e.rank, coll.comm, coll.index, e.site, e.fn.name);
      }
      break;
    }
    case C.ICOLLECTIVE: {
      const coll = enterCollective(st, e, st.comms.lookup(e.rank, num(e, 0, 'comm')));
      creates(t, cur, 'coll', false, undefined, coll);
      if (coll !== undefined) st.replay.icollective(e.rank, coll.comm, coll.index, false);
      break;
    }
    case C.COLL_INIT: {
      // An MPI-4 persistent collective's initialization is the collective call that ranks match (MPI-4.0 §6.13:
      // every member initializes it in the same order as its other collectives): function, root, counts, types
      // and op are checked at once, as a nonblocking collective's are at its call. Its request is persistent (made
      // below); what a later MPI_Start moves is what the initialization said.
      const coll = enterCollective(st, e, st.comms.lookup(e.rank, num(e, 0, 'comm')));
      if (coll !== undefined) cur.coll = coll;
      // A collective's request (freeRequest: MPI_Request_free while it is active is request-misuse), persistent.
      creates(t, cur, 'coll', true);
      break;
    }
    case C.COMM_CREATE: {
      const parent = st.comms.lookup(e.rank, num(e, 0, 'comm'));
      // MPI_Comm_create_group is collective over the group only, not over the parent.
      if (e.fn.name !== 'MPI_Comm_create_group') {
        const coll = enterCollective(st, e, parent);
        if (coll !== undefined) cur.coll = coll;
      }
      st.comms.onCreateCall(e.rank, e.seq, parent, e.fn.name, topoOf(e));
      break;
    }
    case C.WIN_CREATE:
    case C.WIN_FREE:
    case C.WIN_SYNC:
    case C.RMA:
      st.rma.onEnter(st, cur, e);
      break;
    case C.GROUP_FREE:
      st.groups.onFree(e.rank, num(e, 0, 'group'));
      break;
    default:
      break;
  }
  // Other calls that make communicators from a parent (topologies…) count among its creating calls too.
  // Only functions with both roles (fn-class.ts) read them, by the role readers (a slot per function id).
  if (makesCommFromParent[id] === 1 && has(COMM_OUT, e) && has(COMM, e)) {
    st.comms.onCreateCall(e.rank, e.seq, st.comms.lookup(e.rank, COMM.num(e, 0)), e.fn.name);
  }
  // Any other call that hands out a request (generalised, nonblocking comm creation, I/O…): tracked so that
  // waiting on it is known to be waiting on something local.
  if (cur.creates === undefined && hasRequestOut[id] === 1 && has(REQUEST_OUT, e))
    creates(t, cur, 'other', e.fn.persistent === true);
}

/** The process topology a communicator-creating call gives its new communicator, where its arguments say it. */
function topoOf(e: CallEnter): TopoSpec | undefined {
  switch (e.fn.name) {
    case 'MPI_Cart_create':
      return { kind: 'cart', dims: list(e, 'topo_dims'), periods: list(e, 'topo_periods') };
    case 'MPI_Graph_create':
      return { kind: 'graph', index: list(e, 'topo_index'), edges: list(e, 'topo_edges') };
    case 'MPI_Dist_graph_create_adjacent':
      return { kind: 'adjacent', sources: list(e, 'topo_sources'), dests: list(e, 'topo_dests') };
    case 'MPI_Comm_dup':
    case 'MPI_Comm_dup_with_info':
    case 'MPI_Comm_idup':
      return { kind: 'dup' };
    default:
      return undefined;
  }
}

/**
 * A Wait/Test/free given DONE_REQUEST words: they stand for requests that were complete when made (see
 * earlyDone). Returns the requests consumed, for the caller to `forget` once it has read them.
 */
function consumeEarly(t: RankTrack, handles: readonly number[], one: boolean): ReqId[] {
  if (t.earlyDone.length === 0) return NONE;
  let done = 0;
  for (const h of handles) if (h === DONE_REQUEST) done++;
  return t.takeEarly(one ? Math.min(done, 1) : done);
}

function start(st: EngineState, t: RankTrack, handle: number): void {
  const req = t.requests.get(handle);
  if (req === undefined) return;
  const p = t.reqs;
  // Only persistent requests keep their creating call (RequestPool.template), the operation each Start posts.
  const template = p.template(req);
  if (!p.persistent(req) || template === undefined) return;
  if (p.active(req)) {
    p.setMisused(req);
    st.report({
      kind: 'request-misuse',
      severity: 'error',
      message: `Rank ${t.rank} starts a persistent request that is still active (started and not yet completed). Complete it with MPI_Wait/MPI_Test before starting it again.`,
      locations: [
        {
          rank: t.rank,
          site: t.cur?.enter.site ?? 0,
          call: t.cur?.enter.fn.name ?? 'MPI_Start',
          detail: `${t.cur?.enter.fn.name ?? 'MPI_Start'} on an active request`,
        },
      ],
    });
    return;
  }
  p.setActive(req, true);
  const what = p.what(req);
  if (what === 'send') p.setOp(req, postSend(st, template, handle));
  else if (what === 'recv') p.setOp(req, newRecv(st, template, 'recv', handle));
  // The span of what was just posted (NaN when nothing was, or with no known buffer).
  if (what === 'send' || what === 'recv') p.setSpan(req, postedLo, postedHi);
  t.pendingBuffer(req);
}

function freeRequest(st: EngineState, t: RankTrack, handle: number): void {
  st.rma.onRequestFreed(t.rank, handle);
  const req = t.deleteRequest(handle);
  if (req === undefined) return;
  retire(t, handle, 'MPI_Request_free');
  const p = t.reqs;
  const active = p.active(req);
  const op = p.op(req);
  const fnName = p.fn(req).name;
  // MPI-3.1 5.12 and MPI-4.1 5.13: freeing the request of a nonblocking collective is erroneous, and a persistent
  // collective's only while active (Open MPI fails both with MPI_ERR_REQUEST).
  if (p.what(req) === 'coll' && (active || !p.persistent(req))) {
    const e = t.cur?.enter;
    st.report({
      kind: 'request-misuse',
      severity: 'error',
      message: `Rank ${t.rank} frees the request of ${fnName} with MPI_Request_free: MPI forbids freeing the request of ${p.persistent(req) ? 'a persistent collective while it is active' : 'a nonblocking collective'}. Complete it with MPI_Wait or MPI_Test instead.`,
      locations: [
        {
          rank: t.rank,
          site: e?.site ?? 0,
          call: e?.fn.name ?? 'MPI_Request_free',
          detail: `MPI_Request_free of the request of ${fnName}`,
        },
      ],
    });
  } else if (active && op?.kind === 'recv' && !op.done) {
    const e = t.cur?.enter;
    st.report({
      kind: 'request-misuse',
      severity: 'warning',
      message: `Rank ${t.rank} frees the request of an ${fnName} that is still active: the program can never know when the receive buffer holds the message. Wait for it (MPI_Wait) instead of freeing it.`,
      locations: [
        {
          rank: t.rank,
          site: e?.site ?? 0,
          call: e?.fn.name ?? 'MPI_Request_free',
          detail: `MPI_Request_free of an active ${fnName}`,
        },
      ],
    });
  }
  // A send freed before the program saw it complete (MPI_Request_get_status did not say so).
  if (active && op?.kind === 'send' && !p.statusSeen(req))
    st.freedSends.freed(op, p.spanLo(req), p.spanHi(req));
  // A freed active request's operation still happens; keep it so that deadlock and end-of-run checks see it.
  if (active && op !== undefined && !op.done) t.orphans.push(req);
  else t.forget(req);
}

export function onExit(st: EngineState, e: ExitRow): void {
  const t = st.track(e.rank);
  const cur = t.call(e.seq);
  if (cur === undefined || cur.exited) return;
  t.exit(cur);
  // A call the shim found invalid creates nothing (MPICH makes communicators of a negative split color).
  if (!cur.rejected) st.resources.onExit(e, cur.enter);
  const code = classOf[e.fn.id] as number;
  if (code === C.WIN_CREATE || code === C.WIN_FREE || code === C.WIN_SYNC || code === C.RMA)
    st.rma.onExit(st, cur, e);
  else if (code === C.GROUP) st.groups.onExit(e, cur.enter);
  if (e.returnCode !== 0) {
    // The shim already said why when it found the call invalid itself.
    if (!cur.rejected) checkUnknownFailed(st, t, cur.enter);
    failed(st, t, cur);
    return;
  }
  switch (code) {
    case C.SEND:
      if (cur.send) {
        sendDone(cur.send);
        st.replay.wait(cur.send);
      }
      break;
    case C.SENDRECV:
    case C.SENDRECV_REPLACE:
      if (cur.send) sendDone(cur.send);
      if (cur.recv && !cur.recv.done) completeWithoutStatus(st, cur.recv);
      if (cur.send) st.replay.wait(cur.send);
      if (cur.recv) st.replay.wait(cur.recv);
      break;
    case C.RECV:
    case C.MPROBE:
      if (cur.recv && !cur.recv.done) completeWithoutStatus(st, cur.recv);
      // Mprobe takes the message off the queue: for happened-before it is received here.
      if (cur.recv) st.replay.wait(cur.recv);
      break;
    case C.PROBE:
    case C.IMPROBE:
      // A probe consumes nothing; an Improbe that found nothing completes no receive.
      if (cur.recv) cur.recv.done = true;
      if (cur.recv && code === C.IMPROBE && e.flag === 1) st.replay.wait(cur.recv);
      break;
    case C.COMM_FREE:
      st.comms.onFreed(e.rank, num(cur.enter, 0, 'comm'));
      break;
    case C.REQUEST_GET_STATUS: {
      // flag true: the program knows the operation completed, although the request is still to be freed.
      const req = t.requests.get(num(cur.enter, 0, 'request'));
      if (req !== undefined && e.flag === 1) t.reqs.setStatusSeen(req);
      break;
    }
    case C.BUFFER_ATTACH:
      st.bsend.attach(e.rank, num(cur.enter, 0, 'size'));
      break;
    case C.BUFFER_DETACH:
      st.bsend.detach(e.rank);
      break;
    default:
      break;
  }
  if (cur.creates !== undefined) {
    // The request_out word by function id (fn-class.ts), not the output's name looked up in a Map per EXIT.
    const at = requestOutWord[cur.enter.fn.id] as number;
    const handle = at >= 0 ? e.word(at) : undefined;
    if (handle !== undefined && handle !== 0) {
      const req = cur.creates;
      t.reqs.setHandle(req, handle);
      const op = t.reqs.op(req);
      if (op !== undefined) op.request = handle;
      t.setRequest(handle, req);
      if (t.reqs.isSend(req)) t.rememberSend(handle, cur.enter);
    } else t.reqs.release(cur.creates); // no request was made: nothing else holds the row
    // Handed over (or never made): the call no longer holds the request (the request keeps the call's function and
    // site, and a persistent one the call itself: RequestPool.template).
    cur.creates = undefined;
  }
}

/** A call that returned an error posted nothing: withdraw its message and forget its receive. */
function failed(st: EngineState, t: RankTrack, cur: CallState): void {
  if (cur.send !== undefined) {
    sendDone(cur.send);
    if (!cur.send.matched) st.matcher.cancel(cur.send);
    st.bsend.withdrawn(cur.send);
  }
  // A receive that failed with its arguments accepted (MPI_ERR_TRUNCATE) still consumed its message.
  if (cur.recv !== undefined && !cur.recv.done) {
    if (!cur.rejected && cur.recv.kind === 'recv') completeWithoutStatus(st, cur.recv);
    cur.recv.done = true;
  }
  if (cur.creates === undefined) return;
  const op = t.reqs.op(cur.creates);
  if (op?.kind === 'send') st.bsend.withdrawn(op);
  if (op?.kind === 'send' && !op.matched) st.matcher.cancel(op);
  if (op !== undefined) op.done = true;
  // No request was made: nothing else holds the row.
  t.reqs.release(cur.creates);
  cur.creates = undefined;
}

/** The shim gives a status for every completed receive; this covers records lost in transit. */
function completeWithoutStatus(st: EngineState, op: RecvOp): void {
  op.done = true;
  if (op.source === PROC_NULL) return;
  const src = op.source === ANY_SOURCE ? undefined : peerWorld(op.comm, op.rank, op.source);
  st.matcher.completeByEnvelope(op, src, op.tag);
}

export function onComplete(st: EngineState, e: CompleteEvent): void {
  const t = st.track(e.rank);
  const cur = t.call(e.seq);
  if (e.request !== 0) st.rma.onRequestDone(e.rank, e.request);
  if (e.request === 0) {
    const op = cur?.recv;
    if (op !== undefined && !op.done) completeRecv(st, op, e);
    return;
  }
  let req = t.requests.get(e.request);
  let orphan = false;
  if (req === undefined && cur?.creates !== undefined && !cur.exited) {
    // A request that was complete when it was made (the shim reports it so, under its own id: MPICH's
    // builtin requests, Open MPI's MPI_PROC_NULL request): nothing will wait on it.
    const req = cur.creates;
    const op = t.reqs.op(req);
    // Done for MPI, not yet for the program: its Wait/Test stamps doneOrder (consumeEarly's callers).
    if (op?.kind === 'send') op.done = true;
    else if (op !== undefined && !op.done) completeRecv(st, op, e);
    const coll = t.reqs.coll(req);
    if (coll !== undefined) st.replay.icollective(t.rank, coll.comm, coll.index, true);
    t.reqs.setHandle(req, e.request);
    t.reqs.setActive(req, false);
    t.pushEarly(req);
    if (t.reqs.isSend(req)) t.rememberSend(e.request, cur.enter);
    cur.creates = undefined;
    return;
  }
  if (req === undefined) {
    req = t.orphan(e.request);
    orphan = req !== undefined;
    if (req === undefined) return;
  }
  const p = t.reqs;
  const op = p.op(req);
  const coll = p.coll(req);
  if (coll !== undefined) st.replay.icollective(t.rank, coll.comm, coll.index, true);
  if (op !== undefined) {
    if (!e.cancelled && (op.kind !== 'send' || blocksWithoutBuffering(t, cur, e.request))) st.replay.wait(op);
    if (op.kind === 'send') {
      sendDone(op);
      if (e.cancelled && !op.matched) st.matcher.cancel(op);
    } else if (!op.done) {
      completeRecv(st, op, e);
    }
  }
  if (orphan) t.dropOrphan(req);
  else if (p.persistent(req)) {
    p.setActive(req, false);
    p.setOp(req, undefined);
    p.setSpan(req, NaN, NaN);
    t.pendingBuffer(req);
  } else {
    t.deleteRequest(e.request);
    t.forget(req);
    retire(t, e.request, e.fn.name);
  }
}

/**
 * Whether the call completing a send is where the rank would wait for it if MPI buffered nothing (the
 * zero-buffering replay). A Wait is; a Test only when the rank is seen polling: its previous call tested the
 * same request and did not complete it. A Test that succeeds at its first try may be `while (!done)
 * MPI_Test(...)`, which without buffering polls forever, or a program testing once and moving on (BLACS tests
 * its sends after each one, then receives, and waits for them only later): the trace cannot tell them apart,
 * and the second is correct, so such a Test is not a wait.
 */
function blocksWithoutBuffering(t: RankTrack, cur: CallState | undefined, handle: number): boolean {
  if (cur === undefined || !isTestClass(classOf[cur.enter.fn.id] as number)) return true;
  const prev = t.call(cur.enter.seq - 1);
  return (
    prev !== undefined &&
    isTestClass(classOf[prev.enter.fn.id] as number) &&
    prev.waits?.includes(handle) === true
  );
}

function completeRecv(st: EngineState, op: RecvOp, e: CompleteEvent): void {
  // An error without a status (truncation): the EXIT settles it by the receive's envelope.
  if (e.error !== 0 && e.source === ANY_SOURCE) return;
  op.done = true;
  if (e.cancelled || op.kind === 'probe' || e.source === PROC_NULL) return;
  const src = peerWorld(op.comm, op.rank, e.source);
  if (src === undefined) return;
  st.matcher.complete(op, src, e.tag);
}
