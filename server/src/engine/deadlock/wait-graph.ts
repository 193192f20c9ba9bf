/**
 * The wait-for graph of the ranks blocked in MPI, and which of them nothing can release.
 *
 * A blocked rank waits on items; each item is released by what is already posted (a matching send or
 * receive the library will pair) or by peers that can still act: AND over the peers of a collective,
 * OR over the possible senders of an MPI_ANY_SOURCE receive. Waitany/Waitsome need one item, the rest all.
 * Ranks that run can act; finalized or ended ranks never can. Releasing is propagated to a fixpoint (the
 * AND-OR model): whoever is left blocked is deadlocked.
 */
import { sameCall, type CollRef } from '../collectives/collectives';
import { peersOf, peerWorld } from '../model/comms';
import type { CheckContext } from '../model/check-context';
import type { RmaTracker } from '../one-sided/rma';
import type { WindowRegistry } from '../one-sided/windows';
import type { Matcher } from '../point-to-point/matching';
import { simulateMatching } from '../point-to-point/simulate-matching';
import { sendMode, type RecvOp, type SendOp } from '../model/ops';
import type { RankTrack } from '../model/rank-track';
import { ANY_SOURCE } from '../model/types';

/**
 * What the deadlock analysis reads: the model, the unmatched sends (matcher), and which origins an
 * MPI_Win_wait still waits for (the RMA tracker, over the windows).
 */
export interface DeadlockContext extends CheckContext {
  readonly matcher: Matcher;
  readonly rma: RmaTracker;
  readonly windows: WindowRegistry;
}

export type ItemWhat =
  | { readonly kind: 'send'; readonly op: SendOp }
  | { readonly kind: 'recv'; readonly op: RecvOp }
  | {
      readonly kind: 'coll';
      readonly coll: CollRef;
      readonly missing: readonly number[];
      readonly mismatch: readonly number[];
    }
  | { readonly kind: 'finalize'; readonly missing: readonly number[] }
  /** MPI_Win_wait: the origins of the target's post that have not called MPI_Win_complete. */
  | { readonly kind: 'win-wait'; readonly missing: readonly number[] }
  /** MPI_Win_complete, or a blocking MPI_Win_start: the targets that have not posted the matching exposure epoch. */
  | { readonly kind: 'win-complete'; readonly missing: readonly number[] };

export interface WaitItem {
  readonly what: ItemWhat;
  /** Position of the request in the Wait call's array, -1 when not waited through a request. */
  readonly requestPos: number;
  readonly peers: readonly number[];
  /** Any one peer releases it (wildcard receive); otherwise every peer must act. */
  readonly any: boolean;
  /** Already releasable by what is posted, whatever the peers do. */
  readonly satisfied: boolean;
  /** Can never be released (collective called differently by some member). */
  readonly impossible: boolean;
}

export interface Blocked {
  readonly track: RankTrack;
  readonly items: readonly WaitItem[];
  /** Waitany/Waitsome: one released item releases the rank. */
  readonly any: boolean;
}

export interface WaitGraph {
  readonly blocked: readonly Blocked[];
  /** Per world rank: can it still act (send, enter a collective)? */
  readonly canAct: readonly boolean[];
  /** Blocked ranks nothing can release. */
  readonly deadlocked: readonly Blocked[];
  /** Sends and receives the library will pair without anyone acting. */
  readonly inFlight: ReadonlySet<SendOp | RecvOp>;
}

/** A wait outside any request (MPI_Finalize, MPI_Win_wait) for every one of `peers` to act. */
function waitForAll(what: ItemWhat, peers: readonly number[]): WaitItem {
  return { what, requestPos: -1, peers, any: false, satisfied: false, impossible: false };
}

/** Classes whose call blocks until others act; the rest return by themselves. */
const BLOCKING = new Set([
  'send',
  'recv',
  'sendrecv',
  'sendrecv_replace',
  'probe',
  'mprobe',
  'wait',
  'waitall',
  'waitany',
  'waitsome',
  'collective',
  'comm_create',
  'finalize',
  // Window creation and free, and MPI_Win_fence, are collective over the window's group (rma.ts); the other
  // window synchronizations have no collective and count as running (no deadlock is claimed through them).
  'win_create',
  'win_free',
  'win_sync',
  // MPI_Buffer_detach returns only once every message in the attached buffer has been transmitted.
  'buffer_detach',
]);

export function isBlockingClass(cls: string): boolean {
  return BLOCKING.has(cls);
}

function itemsOf(
  st: DeadlockContext,
  t: RankTrack,
  will: Set<SendOp | RecvOp>,
): { items: WaitItem[]; any: boolean } | undefined {
  const cur = t.cur;
  if (cur === undefined) return undefined;
  const cls = cur.enter.fn.cls;
  const items: WaitItem[] = [];
  const sendItem = (op: SendOp, pos: number): WaitItem => ({
    what: { kind: 'send', op },
    requestPos: pos,
    peers: [op.dest],
    any: false,
    // Buffered sends complete locally; a matched or pairable send completes without its receiver acting.
    satisfied: op.done || op.matched || sendMode(op) === 'buffered' || will.has(op),
    impossible: false,
  });
  const recvItem = (op: RecvOp, pos: number): WaitItem => ({
    what: { kind: 'recv', op },
    requestPos: pos,
    peers:
      op.source === ANY_SOURCE
        ? peersOf(op.comm, t.rank).filter((m) => m !== t.rank)
        : [peerWorld(op.comm, t.rank, op.source) ?? -1],
    any: op.source === ANY_SOURCE,
    satisfied: op.done || will.has(op),
    impossible: false,
  });
  const collItem = (coll: CollRef, pos: number): WaitItem | undefined => {
    const inst = coll.comm.open.get(coll.index);
    if (inst === undefined) return undefined;
    const me = inst.calls.find((c) => c?.rank === t.rank);
    const missing: number[] = [];
    const mismatch: number[] = [];
    // A plain loop: calls is sparse, and forEach skips holes (the members still missing).
    for (let i = 0; i < coll.comm.size; i++) {
      const c = inst.calls[i];
      if (c === undefined) missing.push(coll.comm.members[i] ?? -1);
      else if (me !== undefined && !sameCall(coll.comm, c, me)) mismatch.push(c.rank);
    }
    return {
      what: { kind: 'coll', coll, missing, mismatch },
      requestPos: pos,
      peers: missing,
      any: false,
      satisfied: false,
      impossible: inst.mismatched,
    };
  };
  switch (cls) {
    case 'send':
      if (cur.send) items.push(sendItem(cur.send, -1));
      break;
    case 'recv':
    case 'probe':
    case 'mprobe':
      if (cur.recv) items.push(recvItem(cur.recv, -1));
      break;
    case 'sendrecv':
    case 'sendrecv_replace':
      if (cur.send) items.push(sendItem(cur.send, -1));
      if (cur.recv) items.push(recvItem(cur.recv, -1));
      break;
    case 'win_sync':
      if (cur.enter.fn.rma === 'wait') {
        const missing = st.rma.waitingOn(st, cur.enter);
        if (missing === undefined) return undefined;
        if (missing.length > 0) items.push(waitForAll({ kind: 'win-wait', missing }, missing));
        break;
      }
      if (cur.enter.fn.rma === 'complete' || cur.enter.fn.rma === 'start') {
        const missing = st.rma.postsMissing(st, cur.enter);
        if (missing === undefined) return undefined;
        if (missing.length > 0) items.push(waitForAll({ kind: 'win-complete', missing }, missing));
        break;
      }
      // MPI_Win_fence is a collective of the window's group; the other synchronizations count as running.
      if (cur.coll === undefined) return undefined;
      {
        const item = collItem(cur.coll, -1);
        if (item) items.push(item);
      }
      break;
    case 'win_create':
    case 'win_free':
    case 'collective':
    case 'comm_create': {
      // A window created on or freed from a communicator the engine cannot place: the rank counts as running.
      if (cur.coll === undefined && cls.startsWith('win_')) return undefined;
      const item = cur.coll ? collItem(cur.coll, -1) : undefined;
      if (item) items.push(item);
      break;
    }
    case 'buffer_detach':
      // AND over the receivers of this rank's buffered messages not yet received (none: it returns).
      for (const s of st.matcher.unmatched()) {
        if (s.rank === t.rank && sendMode(s) === 'buffered' && !s.matched) {
          items.push({ ...sendItem(s, -1), satisfied: will.has(s) });
        }
      }
      break;
    case 'finalize': {
      const missing = st.tracks
        .filter((o) => o !== t && !o.inFinalize && o.ended === undefined)
        .map((o) => o.rank);
      items.push(waitForAll({ kind: 'finalize', missing }, missing));
      break;
    }
    case 'wait':
    case 'waitall':
    case 'waitany':
    case 'waitsome':
      (cur.waits ?? []).forEach((h, pos) => {
        const req = t.requests.get(h);
        if (req === undefined || !t.reqs.active(req)) return;
        const op = t.reqs.op(req);
        const coll = t.reqs.coll(req);
        if (op?.kind === 'send') items.push(sendItem(op, pos));
        else if (op !== undefined) items.push(recvItem(op, pos));
        else if (coll !== undefined) {
          const item = collItem(coll, pos);
          if (item) items.push(item);
        }
        // Requests of other kinds (mrecv, generalised, I/O) complete locally: no item.
      });
      if ((cls === 'waitany' || cls === 'waitsome') && items.length < (cur.waits ?? []).length) {
        // Some request needs nobody else: Waitany returns by itself.
        const active = (cur.waits ?? []).filter((h) => {
          const req = t.requests.get(h);
          return req !== undefined && t.reqs.active(req);
        }).length;
        if (active > items.length) return undefined;
      }
      return { items, any: cls === 'waitany' || cls === 'waitsome' };
    default:
      return undefined;
  }
  return { items, any: false };
}

export function buildWaitGraph(st: DeadlockContext): WaitGraph {
  const will = simulateMatching(st);
  const n = st.tracks.length;
  const canAct: boolean[] = new Array<boolean>(n).fill(false);
  const blocked: Blocked[] = [];
  for (const t of st.tracks) {
    if (t.ended !== undefined) continue;
    if (!t.inCall || t.cur === undefined || !isBlockingClass(t.cur.enter.fn.cls)) {
      canAct[t.rank] = !t.inFinalize || !t.started;
      continue;
    }
    const w = itemsOf(st, t, will);
    if (w === undefined) canAct[t.rank] = !t.inFinalize;
    else blocked.push({ track: t, ...w });
  }
  const released = new Set<Blocked>();
  const itemFree = (it: WaitItem): boolean =>
    it.satisfied ||
    (!it.impossible &&
      (it.any ? it.peers.some((p) => canAct[p] === true) : it.peers.every((p) => canAct[p] === true)));
  for (let changed = true; changed;) {
    changed = false;
    for (const b of blocked) {
      if (released.has(b)) continue;
      const free = b.items.length === 0 || (b.any ? b.items.some(itemFree) : b.items.every(itemFree));
      if (free) {
        released.add(b);
        // A rank leaving MPI_Finalize can only end: it releases nobody.
        if (!b.track.inFinalize) {
          canAct[b.track.rank] = true;
          changed = true;
        }
      }
    }
  }
  return { blocked, canAct, deadlocked: blocked.filter((b) => !released.has(b)), inFlight: will };
}

/** Items of a deadlocked rank that hold it (not released), given the final canAct. */
export function holdingItems(b: Blocked, canAct: readonly boolean[]): WaitItem[] {
  return b.items.filter(
    (it) =>
      !(
        it.satisfied ||
        (!it.impossible &&
          (it.any ? it.peers.some((p) => canAct[p] === true) : it.peers.every((p) => canAct[p] === true)))
      ),
  );
}
