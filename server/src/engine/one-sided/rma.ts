/**
 * One-sided communication: windows' epochs and the accesses made in them, and rma-race when two accesses to
 * common bytes of a target's window memory are concurrent and at least one writes (rma-conflict.ts says which
 * pairs MPI allows).
 *
 * - Fence epochs: between a rank's k-th and (k+1)-th MPI_Win_fence on the window. Fences are collective, so the
 *   k-th epoch is one instance for every rank: accesses of different origins in it are concurrent. Checked when
 *   every member entered the next fence (or freed the window), then forgotten.
 * - Passive target: MPI_Win_lock/unlock (shared or exclusive) and MPI_Win_lock_all/unlock_all. An access is
 *   completed at its target by the origin's next flush or unlock of that target. Accesses of different origins are
 *   concurrent unless a lock is exclusive or one completed before the other was made in the run's happened-before
 *   (messages and collectives, happened-before.ts). Checked at the end of the run. In the memcheck mode the
 *   target's own loads and stores of its window memory outside fence and exposure epochs join them, placed
 *   between the target's MPI calls where they happened: they race with another rank's access unless ordered with
 *   it the same way, or both sides hold a lock of the target and one of them is exclusive (a target protects its
 *   own accesses by locking its own window; another rank's exclusive lock does not keep the target's loads and
 *   stores out).
 * - Generalized active target (MPI_Win_post/start/complete/wait): an origin's k-th start naming a target matches
 *   that target's k-th post naming the origin (rma-pscw.ts, groups from groups.ts); accesses of different origins
 *   matched to one post are concurrent. Checked at the end of the run; an unknown group leaves them unmatched.
 * - The same origin: two conflicting accesses in one epoch with no flush of that target between them race
 *   (accumulates of one origin on one basic type are ordered by MPI and never do: accumulatesOrdered).
 */
import { commRankOf, peerWorld } from '../model/comms';
import { enterCollective } from '../collectives/collectives';
import { opNames } from '../model/datatypes';
import type { Replay } from '../causal-order/replay';
import type { CheckContext } from '../model/check-context';
import { num, paramName } from '../model/fn-roles';
import type { CallState } from '../model/rank-track';
import { accumulatesOrdered, bytesOf, type Access } from './rma-conflict';
import { EpochRules } from './rma-epochs';
import { AccessBounds } from './rma-bounds';
import { OutsideEpochs } from './rma-outside';
import { PscwMatching } from './rma-pscw';
import { EpochAccesses, raceFinding, racingPairs } from './rma-races';
import { PassiveRaces, sortedPairs } from './rma-passive';
import { PROC_NULL, type EngineFinding, type CallEnter, type ExitView } from '../model/types';
import type { WindowRegistry, WinInfo } from './windows';
import type { LocalWindowAccess } from '../lifecycle/memory-access';
import type { FunctionSpec } from '../model/types';
import { LastFree } from '../model/last-free';

/** What one-sided checks read: the model, the windows, and the replay (happened-before for passive target). */
export interface RmaContext extends CheckContext {
  readonly windows: WindowRegistry;
  readonly replay: Replay;
}

/** Where race findings go: the engine's report while the run goes on, a list at its end. */
interface Sink {
  report(f: EngineFinding): void;
}

/**
 * Accesses kept per fence or PSCW epoch, and passive-target accesses kept for the end of the run: beyond, the check
 * looks at the first ones only (it may miss a race, never invent one).
 */
export const MAX_ACCESSES = 200_000;
/** Vector-clock snapshots (points × ranks) the passive-target check may take: beyond, different origins are not compared. */
export const MAX_CLOCK_CELLS = 20_000_000;
const LOCK_EXCLUSIVE = 1;
/** Accumulates that return the target's value: a program may synchronize through them (a flag it polls). */
const FETCHING = new Set(['get_accumulate', 'fetch_and_op', 'compare_and_swap']);

/** Do the two accesses' byte spans at their target certainly meet? Unknown bytes: no. */
function meets(a: Access, b: Access): boolean {
  const x = bytesOf(a);
  const y = bytesOf(b);
  return x !== undefined && y !== undefined && x.lo < y.hi && y.lo < x.hi;
}

/** One rank's synchronization state on one window. */
interface RankWin {
  fences: number;
  /** Lock epochs by target world rank. */
  readonly locks: Map<number, { readonly exclusive: boolean; readonly n: number }>;
  lockAll: number | undefined;
  start: number | undefined;
  epochs: number;
  readonly flushes: Map<number, number>;
  flushAll: number;
  /**
   * Passive accesses not yet completed at their target by a flush or unlock, by target: the first two of each class
   * (alike but for their order and point: one epoch, one flush count), the only ones the race search can take —
   * they share their completion, and a later one's point only adds what its origin heard (rma-passive.ts).
   */
  readonly open: Map<number, EpochAccesses>;
}

export class RmaTracker {
  private readonly state = new Map<string, RankWin>();
  /** Fence epochs by window id and epoch number (1 = after the first fence). */
  private readonly fenceEpochs = new Map<number, Map<number, EpochAccesses>>();
  private readonly fenceClosed = new Map<string, number>();
  /** MPI_Win_free calls so far, until every member made one. */
  private readonly frees = new LastFree();
  /** Passive-target accesses, compared as they settle and kept while they can race (rma-passive.ts). */
  private readonly passive: PassiveRaces;
  /** Origins of passive-target accesses (more than one: `passiveUnordered` may apply). */
  private readonly passiveOrigins = new Set<number>();
  /** The replay that gives the passive accesses' clocks, and the ranks' calls (set at the first access). */
  private replay: RmaContext['replay'] | undefined;
  private tracks: RmaContext['tracks'] = [];
  /**
   * Passive-target accesses of different origins could not be ordered (no replay, or more clock cells than
   * MAX_CLOCK_CELLS): their races were not checked.
   */
  passiveUnordered = false;
  constructor(
    /** Accesses kept per fence epoch, access epoch, and pending or kept of the passive target (MAX_ACCESSES). */
    readonly maxAccesses = MAX_ACCESSES,
  ) {
    this.matching = new PscwMatching(maxAccesses);
    this.passive = new PassiveRaces(
      {
        clockAt: (a) => this.replay?.clockAt(a.origin, a.pos),
        clockKnown: (a) =>
          this.replay?.clocks === undefined ||
          this.unwatched.has(a) ||
          this.replay.clockAt(a.origin, a.pos) !== undefined,
        clockNow: (r) => this.replay?.clockNow(r),
        concurrent: (a, b) => this.passiveConcurrent(a, b),
        epochOpen: (a) => this.epochOpen(a),
        release: (a) => this.unwatch(a),
        unstick: () => this.unstick(),
      },
      maxAccesses,
      this.cut,
    );
  }
  /** Accesses left out past MAX_ACCESSES, or pairs left uncompared past the race search's bound. */
  accessesCut = false;
  get partial(): boolean {
    return this.accessesCut || this.matching.dropped;
  }
  private readonly cut = (): void => {
    this.accessesCut = true;
  };
  /**
   * Points (steps × 1024 + origin: clocks are kept for 512 ranks at most) whose clock was asked for, with the
   * accesses pending or kept there; beyond MAX_CLOCK_CELLS cells no more are.
   */
  private readonly watched = new Map<number, number>();
  /** Accesses whose point was not watched (past MAX_CLOCK_CELLS): their clock never comes. */
  private readonly unwatched = new WeakSet<Access>();
  private pointsCapped = false;
  /** Fetching atomics of passive epochs by window and origin: the least order, and the first at each place. */
  private readonly fetches = new Map<string, { least: number; readonly places: Map<string, Access> }>();
  private readonly pscw = new Map<string, EpochAccesses>();
  private readonly matching: PscwMatching;
  /** Windows on which a rank fetched atomically in a passive epoch (it may poll a flag: see passiveRaces()). */
  private readonly fetchedOn = new Set<number>();
  private readonly reported = new Set<string>();
  private readonly orders = new Map<number, number>();
  /**
   * Request-based gets (MPI_Rget) of passive-target epochs whose request has not completed yet, by
   * `${origin}:${request handle}`: their completion (Wait/Test) means the data arrived, so the read is over.
   */
  private readonly pendingGets = new Map<string, Access>();
  private readonly outside = new OutsideEpochs();
  private readonly bounds = new AccessBounds();
  private readonly epochRules = new EpochRules();
  /** The last fence epoch checked on each window: a target's own accesses of it may still arrive (onLocalAccess). */
  private readonly lastFence = new Map<number, { readonly k: number; readonly list: readonly Access[] }>();

  private of(rank: number, win: WinInfo): RankWin {
    const k = `${rank}:${win.id}`;
    let s = this.state.get(k);
    if (s === undefined) {
      s = {
        fences: 0,
        locks: new Map(),
        lockAll: undefined,
        start: undefined,
        epochs: 0,
        flushes: new Map(),
        flushAll: 0,
        open: new Map(),
      };
      this.state.set(k, s);
    }
    return s;
  }

  onEnter(st: RmaContext, cur: CallState, e: CallEnter): void {
    const cls = e.fn.cls;
    if (cls === 'win_create') {
      const comm = st.comms.lookup(e.rank, num(e, 0, 'comm'));
      const unit = e.fn.name === 'MPI_Win_create_dynamic' ? 1 : num(e, 1, 'dispunit');
      const dynamic = e.fn.name === 'MPI_Win_create_dynamic';
      const win = st.windows.onCreate(
        e.rank,
        e.seq,
        comm,
        unit,
        e.fn.name.startsWith('MPI_Win_allocate_shared'),
        dynamic ? undefined : num(e, -1, 'winsize'),
      );
      this.bounds.memberKnown(win, e.rank);
      this.collective(st, cur, e, comm);
      return;
    }
    const win = st.windows.lookup(e.rank, num(e, 0, 'win'));
    if (win === undefined) return;
    if (cls === 'rma') {
      this.checkEpoch(e, win);
      this.checkBounds(st, e, win);
    }
    if (cls === 'win_free' || cls === 'win_sync')
      this.epochRules.enter(
        e,
        win,
        cls === 'win_free' ? 'free' : (e.fn.rma ?? ''),
        this.target(e, win),
        num(e, 0, 'value'),
      );
    if (cls === 'win_free' || e.fn.rma === 'fence') {
      this.collective(st, cur, e, win.group);
      this.closeFence(st, e.rank, win);
    }
  }

  /** The world rank a call's target rank names on the window; undefined for MPI_PROC_NULL or none. */
  private target(e: CallEnter, win: WinInfo): number | undefined {
    const trank = num(e, PROC_NULL, 'trank');
    return trank < 0 ? undefined : peerWorld(win.comm, e.rank, trank);
  }

  /** An access with no epoch open for its target (rma-outside.ts). */
  private checkEpoch(e: CallEnter, win: WinInfo): void {
    const trank = num(e, PROC_NULL, 'trank');
    const target = trank < 0 ? undefined : peerWorld(win.comm, e.rank, trank);
    if (target === undefined) return;
    const s = this.of(e.rank, win);
    if (s.fences > 0 || s.locks.has(target) || s.lockAll !== undefined || s.start !== undefined) return;
    this.outside.note(e, win, target);
  }

  /**
   * An access that reaches outside its target's part of the window, or whose data does not fit (rma-bounds.ts):
   * judged at ENTER, since MPI fails the call and its default handler ends the job in it.
   */
  private checkBounds(st: RmaContext, e: CallEnter, win: WinInfo): void {
    const target = this.target(e, win);
    if (target === undefined) return;
    const rma = e.fn.rma ?? '';
    const sized = rma === 'put' || rma === 'get' || rma === 'accumulate';
    this.bounds.check(e, win, target, {
      disp: num(e, 0, 'tdisp'),
      count: num(e, 1, 'tcount'),
      dtype: st.dtypes.type(e.rank, num(e, 0, 'ttype', 'datatype')),
      origin: sized
        ? { count: num(e, 0, 'count'), dtype: st.dtypes.type(e.rank, num(e, 0, 'datatype')) }
        : undefined,
      reads: rma === 'get',
    });
  }

  private collective(st: RmaContext, cur: CallState, e: CallEnter, comm: WinInfo['comm']): void {
    if (commRankOf(comm, e.rank) < 0) return;
    const coll = enterCollective(st, e, comm);
    if (coll === undefined) return;
    cur.coll = coll;
    st.replay.collective(e.rank, coll.comm, coll.index, e.site, e.fn.name);
  }

  /** The rank leaves its current fence epoch (it enters a fence or frees the window). */
  private closeFence(st: RmaContext, rank: number, win: WinInfo): void {
    const s = this.of(rank, win);
    const k = s.fences;
    s.fences++;
    if (k === 0) return;
    const key = `${win.id}:${k}`;
    const closed = (this.fenceClosed.get(key) ?? 0) + 1;
    if (closed < win.comm.size) {
      this.fenceClosed.set(key, closed);
      return;
    }
    this.fenceClosed.delete(key);
    const list = this.fenceEpochs.get(win.id)?.get(k)?.list;
    this.fenceEpochs.get(win.id)?.delete(k);
    if (list !== undefined) this.reportFirst(st, list, (a, b) => this.sameEpoch(a, b));
    this.lastFence.set(win.id, { k, list: list ?? [] });
  }

  onExit(st: RmaContext, cur: CallState, e: ExitView): void {
    if (e.returnCode !== 0 || cur.rejected === true) return;
    const enter = cur.enter;
    if (e.fn.cls === 'win_create') {
      const name = paramName(e.fn, 'win_out');
      const h = name === undefined ? undefined : e.out(name);
      st.windows.onCreated(e.rank, enter.seq, typeof h === 'number' ? h : 0);
      return;
    }
    const handle = num(enter, 0, 'win');
    const win = st.windows.lookup(e.rank, handle);
    if (win === undefined) return;
    if (e.fn.cls === 'win_free') {
      this.matching.onFree(e.rank, win);
      this.exposuresClosed(st);
      st.windows.onFree(e.rank, handle);
      this.freed(st, win);
    } else if (e.fn.cls === 'rma') {
      this.epochRules.access(e.rank, win, this.target(enter, win));
      this.access(st, enter, win, e);
    } else if (e.fn.cls === 'win_sync') {
      this.epochRules.exit(enter, win, enter.fn.rma ?? '', this.target(enter, win), e.flag);
      this.sync(st, enter, win);
    }
  }

  /**
   * A member freed the window; once every member did, what was kept of it for its epochs is dropped (a job that
   * creates and frees a window per step keeps the live ones only). Kept: what the end of the run still judges —
   * fence epochs some member never closed, and the passive-target and PSCW accesses with their matching.
   */
  private freed(st: RmaContext, win: WinInfo): void {
    if (!this.frees.freed(win.id, win.comm.size)) return;
    for (const r of win.comm.members) this.state.delete(`${r}:${win.id}`);
    if (this.fenceEpochs.get(win.id)?.size === 0) this.fenceEpochs.delete(win.id);
    for (const k of [...this.fenceClosed.keys()]) if (k.startsWith(`${win.id}:`)) this.fenceClosed.delete(k);
    this.lastFence.delete(win.id);
    this.passive.freed(win);
    this.matching.forget(win);
    st.windows.forget(win);
    st.comms.forget(win.group);
  }

  private sync(st: RmaContext, e: CallEnter, win: WinInfo): void {
    const s = this.of(e.rank, win);
    const trank = num(e, PROC_NULL, 'trank');
    const target = trank < 0 ? undefined : peerWorld(win.comm, e.rank, trank);
    const pos = st.replay.position(e.rank);
    const complete = (all: boolean) => {
      for (const [t, group] of s.open) {
        if (!all && t !== target) continue;
        for (const a of group.list) a.done = pos;
        s.open.delete(t);
      }
    };
    switch (e.fn.rma) {
      case 'lock':
        if (target !== undefined)
          s.locks.set(target, { exclusive: num(e, 0, 'locktype') === LOCK_EXCLUSIVE, n: ++s.epochs });
        break;
      case 'unlock':
        if (target === undefined) break;
        complete(false);
        s.locks.delete(target);
        s.flushes.delete(target);
        break;
      case 'lock_all':
        s.lockAll = ++s.epochs;
        break;
      case 'unlock_all':
        complete(true);
        s.lockAll = undefined;
        s.flushes.clear();
        s.flushAll = 0;
        break;
      case 'flush':
        if (target === undefined) break;
        complete(false);
        s.flushes.set(target, (s.flushes.get(target) ?? 0) + 1);
        break;
      case 'flush_all':
        complete(true);
        s.flushAll++;
        break;
      case 'start':
        s.start = ++s.epochs;
        this.matching.onStart(e.rank, win, st.groups.members(e.rank, num(e, 0, 'group')));
        break;
      case 'post':
        this.matching.onPost(e.rank, win, st.groups.members(e.rank, num(e, 0, 'group')));
        this.exposuresClosed(st);
        break;
      case 'complete': {
        const key = `${e.rank}:${win.id}:${s.start ?? 0}`;
        const list = this.pscw.get(key)?.list;
        this.pscw.delete(key);
        this.matching.onComplete(e.rank, win);
        s.start = undefined;
        if (list !== undefined) this.reportFirst(st, list, (a, b) => this.sameEpoch(a, b));
        this.exposuresClosed(st);
        break;
      }
      default:
        // post/wait (exposure epochs), flush_local*, sync, attach/detach: no effect on access epochs here.
        break;
    }
    this.passive.settle(false);
  }

  private access(st: RmaContext, e: CallEnter, win: WinInfo, exit: ExitView): void {
    const trank = num(e, PROC_NULL, 'trank');
    const target = trank < 0 ? undefined : peerWorld(win.comm, e.rank, trank);
    if (target === undefined) return; // MPI_PROC_NULL: no access; out of range: the shim reports it
    const s = this.of(e.rank, win);
    const lock = s.locks.get(target);
    let epoch: string;
    let passive = false;
    if (lock !== undefined) {
      epoch = `lock:${e.rank}:${lock.n}`;
      passive = true;
    } else if (s.lockAll !== undefined) {
      epoch = `lock:${e.rank}:${s.lockAll}`;
      passive = true;
    } else if (s.start !== undefined) epoch = `pscw:${e.rank}:${s.start}`;
    else if (s.fences > 0) epoch = `fence:${s.fences}`;
    else return; // outside any epoch: call-order (checkEpoch), nothing to compare
    const rma = e.fn.rma ?? '';
    const order = (this.orders.get(e.rank) ?? 0) + 1;
    this.orders.set(e.rank, order);
    let op: string | undefined;
    if (rma === 'compare_and_swap') op = 'compare-and-swap';
    else if (rma !== 'put' && rma !== 'get') {
      const id = st.dtypes.op(e.rank, num(e, 0, 'op'));
      op = id === undefined || id < 0 ? undefined : opNames[id];
    }
    const a: Access = {
      origin: e.rank,
      target,
      win,
      fn: e.fn,
      site: e.site,
      order,
      kind: rma === 'put' ? 'put' : rma === 'get' ? 'get' : 'acc',
      op,
      disp: num(e, 0, 'tdisp'),
      count: num(e, 1, 'tcount'),
      dtype: st.dtypes.type(e.rank, num(e, 0, 'ttype', 'datatype')),
      epoch,
      passive,
      exclusive: lock?.exclusive === true,
      flushes: (s.flushes.get(target) ?? 0) + s.flushAll,
      pos: st.replay.position(e.rank),
    };
    if (passive) {
      if (a.kind === 'get') {
        const name = paramName(e.fn, 'request_out');
        const h = name === undefined ? undefined : exit.out(name);
        if (typeof h === 'number' && h !== 0) this.pendingGets.set(`${a.origin}:${h}`, a);
      }
      const fetchedBefore = this.fetchedOn.has(win.id);
      if (FETCHING.has(rma)) {
        this.fetchedOn.add(win.id);
        this.noteFetch(a);
      }
      let group = s.open.get(target);
      if (group === undefined) s.open.set(target, (group = new EpochAccesses(Infinity)));
      if (group.keep(a) === 'alike') return;
      this.addPassive(st, a, fetchedBefore);
    } else if (epoch.startsWith('pscw')) {
      const key = `${e.rank}:${win.id}:${s.start ?? 0}`;
      let list = this.pscw.get(key);
      if (list === undefined) this.pscw.set(key, (list = new EpochAccesses(this.maxAccesses)));
      if (!list.add(a)) this.accessesCut = true;
      this.matching.onAccess(a);
    } else this.fenceAccess(win, s.fences, a);
  }

  /**
   * MPI_Win_complete, or an MPI_Win_start that blocks: the targets of the access epoch that have not posted the
   * matching exposure epoch (rma-pscw.ts).
   */
  postsMissing(st: Pick<RmaContext, 'windows' | 'groups'>, e: CallEnter): number[] | undefined {
    const win = st.windows.lookup(e.rank, num(e, 0, 'win'));
    if (win === undefined) return undefined;
    if (e.fn.rma !== 'start') return this.matching.postsMissing(e.rank, win);
    const group = st.groups.members(e.rank, num(e, 0, 'group'));
    return group === undefined ? undefined : this.matching.postsMissing(e.rank, win, group);
  }

  /** MPI_Win_wait: the origins of the latest post that have not completed (rma-pscw.ts), undefined when unknown. */
  waitingOn(st: Pick<RmaContext, 'windows'>, e: CallEnter): number[] | undefined {
    const win = st.windows.lookup(e.rank, num(e, 0, 'win'));
    return win === undefined ? undefined : this.matching.waitingOn(e.rank, win);
  }

  /**
   * The memcheck mode: a target's own loads and stores of its window memory in a fence epoch, sent by its shim
   * when it enters the fence that closes the epoch (after that fence's ENTER). They join the epoch's accesses;
   * when the epoch was already checked (this rank was the last to enter the fence), they are compared with its
   * accesses at once. In an exposure epoch (MPI_Win_post … MPI_Win_wait, epoch -k for the k-th post) they join the
   * accesses the origins made in the epoch matched to that post, compared at the end of the run.
   */
  onLocalAccess(st: RmaContext, la: LocalWindowAccess, fn: FunctionSpec): void {
    const win = st.windows.lookup(la.rank, la.win);
    if (win === undefined || la.length <= 0) return;
    // A rank that loads window memory atomically may poll a flag through it (see passiveRaces()).
    if (la.atomic) this.fetchedOn.add(win.id);
    // Another rank's segment of a shared window, loaded or stored directly.
    const target = la.segment === undefined ? la.rank : peerWorld(win.comm, la.rank, la.segment);
    if (target === undefined) return;
    // A shared window's accesses come before each MPI call whatever the epoch: besides the epoch's one-sided
    // accesses, they are compared with the other ranks' direct loads and stores by happened-before.
    if (la.epoch === 0 || win.shared) this.passiveLocal(st, la, win, fn, target);
    // An exposure epoch is the owner's (its posts): another rank's direct access is judged by happened-before only.
    if (la.epoch === 0 || (la.epoch < 0 && target !== la.rank)) return;
    const a = this.localAccess(
      la,
      win,
      fn,
      la.epoch > 0 ? `fence:${la.epoch}` : `pscw-exposure:${la.rank}:${-la.epoch}`,
      st.replay.position(la.rank),
      target,
    );
    if (la.epoch < 0) {
      this.matching.onLocal(a, -la.epoch - 1);
      return;
    }
    const done = this.lastFence.get(win.id);
    if (done !== undefined && done.k === la.epoch) {
      for (const pair of racingPairs(
        [...done.list, a],
        (x, y) => (x === a || y === a) && this.sameEpoch(x, y),
        this.cut,
        (x) => (x === a ? 'new' : ''), // never one class with an access of the list
      ))
        if (this.report(st, pair)) return;
      return;
    }
    this.fenceAccess(win, la.epoch, a);
  }

  /** PSCW, different origins: the accesses matched to one post of a target are concurrent (epochs that ended). */
  private exposuresClosed(sink: Sink): void {
    for (const list of this.matching.takeClosed())
      this.reportFirst(sink, list, (a, b) => a.origin !== b.origin);
  }

  /** An access of fence epoch k of the window, kept for the epoch's race search. */
  private fenceAccess(win: WinInfo, k: number, a: Access): void {
    let m = this.fenceEpochs.get(win.id);
    if (m === undefined) this.fenceEpochs.set(win.id, (m = new Map<number, EpochAccesses>()));
    let list = m.get(k);
    if (list === undefined) m.set(k, (list = new EpochAccesses(this.maxAccesses)));
    if (!list.add(a)) this.accessesCut = true;
  }

  /**
   * A rank's own load or store of window memory (the memcheck mode), as an access in `epoch`: its own memory, or
   * `target`'s segment of a shared window.
   */
  private localAccess(
    la: LocalWindowAccess,
    win: WinInfo,
    fn: FunctionSpec,
    epoch: string,
    pos: number,
    target: number,
    passive?: Pick<Access, 'passive' | 'exclusive' | 'done'>,
  ): Access {
    const order = (this.orders.get(la.rank) ?? 0) + 1;
    this.orders.set(la.rank, order);
    return {
      origin: la.rank,
      target,
      win,
      fn,
      site: la.site,
      order,
      // Atomic loads and stores are accumulates of a kind: they never race with each other (conflicting()).
      kind: la.atomic ? 'acc' : la.store ? 'put' : 'get',
      op: la.atomic ? (la.store ? 'MPI_REPLACE' : 'MPI_NO_OP') : undefined,
      disp: la.offset,
      count: la.length,
      dtype: undefined,
      epoch,
      passive: false,
      exclusive: false,
      flushes: 0,
      pos,
      local: { lo: la.offset, hi: la.offset + la.length, store: la.store, atomic: la.atomic },
      ...passive,
    };
  }

  /**
   * The memcheck mode: a target's own loads and stores of its window memory outside fence and exposure epochs,
   * sent by its shim before its next MPI call entered, so the rank's position now is the point of its history
   * where they happened (after every step so far, before any later one). They join the passive-target accesses,
   * complete at once; under the rank's own lock of itself (MPI_Win_lock of its rank, or lock_all) they belong to
   * that epoch and share its exclusivity.
   */
  private passiveLocal(
    st: RmaContext,
    la: LocalWindowAccess,
    win: WinInfo,
    fn: FunctionSpec,
    target: number,
  ): void {
    const s = this.of(la.rank, win);
    // The rank's lock of the memory's owner (itself, or the owner of the shared segment it touched).
    const self = s.locks.get(target);
    const n = self?.n ?? s.lockAll;
    const pos = st.replay.position(la.rank);
    const a = this.localAccess(
      la,
      win,
      fn,
      n === undefined ? `local:${la.rank}` : `lock:${la.rank}:${n}`,
      pos,
      target,
      {
        passive: true,
        exclusive: self?.exclusive === true,
        done: pos,
      },
    );
    const fetchedBefore = this.fetchedOn.has(win.id);
    if (la.atomic) this.noteFetch(a);
    this.addPassive(st, a, fetchedBefore);
    this.passive.settle(false);
  }

  /** A passive-target access joins the race check (unless past its bound), its origin's clock there asked for. */
  private addPassive(st: RmaContext, a: Access, fetchedBefore: boolean): void {
    this.replay = st.replay;
    this.tracks = st.tracks;
    if (!this.passive.add(a, fetchedBefore)) return;
    // The clock at the access's point comes once the origin's last step ran (held back for its next step).
    if (st.tracks[a.origin]?.concurrent === false) st.replay.releaseStaged(a.origin);
    this.passiveOrigins.add(a.origin);
    const k = a.pos * 1024 + a.origin;
    const n = this.watched.get(k);
    if (n !== undefined) {
      this.watched.set(k, n + 1);
      return;
    }
    if ((this.watched.size + 1) * Math.max(st.worldSize, a.origin + 1) > MAX_CLOCK_CELLS) {
      this.pointsCapped = true;
      this.unwatched.add(a);
      return;
    }
    this.watched.set(k, 1);
    st.replay.watch(a.origin, a.pos);
  }

  /**
   * Each rank between two calls, in one thread's order, runs the step it holds back for its next one (its call
   * exited: nothing more is learned of it), so that collectives it took part in run in the clock run.
   */
  private unstick(): void {
    for (let r = 0; r < this.tracks.length; r++) {
      const t = this.tracks[r];
      if (t !== undefined && !t.concurrent && !t.inCall) this.replay?.releaseStaged(r);
    }
  }

  /** The access left the race check: its point is let go when no other access needs it. */
  private unwatch(a: Access): void {
    if (this.unwatched.has(a)) return;
    const k = a.pos * 1024 + a.origin;
    const n = this.watched.get(k) ?? 1;
    if (n > 1) {
      this.watched.set(k, n - 1);
      return;
    }
    this.watched.delete(k);
    this.replay?.unwatch(a.origin, a.pos);
  }

  /** A fetching atomic (or atomic load) in a passive epoch: pollMayOrder's facts. */
  private noteFetch(a: Access): void {
    const k = `${a.win.id}:${a.origin}`;
    let f = this.fetches.get(k);
    if (f === undefined) this.fetches.set(k, (f = { least: a.order, places: new Map() }));
    const t = a.dtype;
    const l = a.local;
    const place =
      l !== undefined
        ? `${a.target}|l${l.lo}|${l.hi}`
        : `${a.target}|${a.disp}|${a.count}|${t === undefined ? 'u' : `${t.trueLb}|${t.extent}|${t.trueExtent}`}`;
    if (!f.places.has(place)) f.places.set(place, a);
  }

  /** Is the passive access's epoch still open at its origin (more of its accesses may join it)? */
  private epochOpen(a: Access): boolean {
    if (!a.epoch.startsWith('lock:')) return false;
    const s = this.state.get(`${a.origin}:${a.win.id}`);
    if (s === undefined) return false;
    const n = Number(a.epoch.slice(a.epoch.lastIndexOf(':') + 1));
    if (s.lockAll === n) return true;
    for (const l of s.locks.values()) if (l.n === n) return true;
    return false;
  }

  /** Fence and PSCW epochs: the same epoch instance (and, for one origin, no ordering of its accumulates). */
  private sameEpoch(a: Access, b: Access): boolean {
    if (a.epoch !== b.epoch) return false;
    // A rank's own loads and stores are ordered by its program: they race only with one-sided accesses.
    if (a.local !== undefined && b.local !== undefined) return false;
    return a.origin !== b.origin || !accumulatesOrdered(a, b);
  }

  /**
   * A rank inside MPI_Win_free or a window synchronization call (fence, wait, complete) of a window on which an
   * epoch rule was broken (an epoch left open at the free, a fence inside an exposure epoch…): what it waits for
   * may never come, and when every live rank is inside such a call, nothing else can act (rankStates).
   */
  stuckOnBrokenEpoch(st: Pick<RmaContext, 'windows'>, e: CallEnter): string | undefined {
    const cls = e.fn.cls;
    const rma = e.fn.rma ?? '';
    if (
      cls !== 'win_free' &&
      !(cls === 'win_sync' && (rma === 'fence' || rma === 'wait' || rma === 'complete'))
    )
      return undefined;
    const win = st.windows.lookup(e.rank, num(e, 0, 'win'));
    if (win === undefined || !this.epochRules.brokenOn(win)) return undefined;
    return `${e.fn.name} of ${win.name}, on which an epoch rule was broken`;
  }

  /** The job ends on a deadlock: the epoch rules broken so far (rma-epochs.ts), which may be why it hangs. */
  releasedOnDeadlock(): EngineFinding[] {
    return this.epochRules.released();
  }

  /** End of the run: fence and PSCW epochs never closed, and the passive-target accesses. */
  finish(st: RmaContext): EngineFinding[] {
    const found: EngineFinding[] = [];
    const sink: Sink = { report: (f) => found.push(f) };
    for (const m of this.fenceEpochs.values())
      for (const { list } of m.values()) this.reportFirst(sink, list, (a, b) => this.sameEpoch(a, b));
    this.fenceEpochs.clear();
    for (const { list } of this.pscw.values()) this.reportFirst(sink, list, (a, b) => this.sameEpoch(a, b));
    this.pscw.clear();
    // PSCW, different origins: the accesses matched to one post of a target are concurrent.
    for (const list of this.matching.exposureEpochs())
      this.reportFirst(sink, list, (a, b) => a.origin !== b.origin);
    this.passiveRaces(sink);
    return [
      ...found,
      ...this.outside.findings(),
      ...this.bounds.findings(),
      ...this.epochRules.findings((r) => st.tracks[r]?.ended === 'finalized'),
    ];
  }

  /**
   * The passive-target races: what is still pending is compared now (the clock run ended), then the first pair of
   * each pair of call sites, window by window. A pair found before a fetching atomic came on its window is left
   * out when neither side is a target's own load or store, as the end of the run judged it (see passiveConcurrent).
   */
  private passiveRaces(sink: Sink): void {
    this.passive.finish();
    // Without clocks (the replay given up, or too many points to keep), accesses of different origins are
    // never judged concurrent: say so in the report.
    if ((this.pointsCapped || this.replay?.enabled === false) && this.passiveOrigins.size > 1)
      this.passiveUnordered = true;
    for (const first of this.passive.first.values())
      for (const [a, b] of sortedPairs(first)) {
        if (
          a.origin !== b.origin &&
          a.local === undefined &&
          b.local === undefined &&
          (a.kind !== 'acc' || b.kind !== 'acc') &&
          this.fetchedOn.has(a.win.id)
        )
          continue;
        this.report(sink, [a, b]);
      }
  }

  /**
   * A target's own access `local` and another rank's access `other` may be ordered through a polled value when the
   * other rank fetched atomically before its access, at bytes other than the local access's (a flag the target
   * raised after its store; a fetch of the very bytes the target stores into races with that store), or when the
   * target fetched atomically before its own access (it waited for a flag the other rank raised). Fetches are in
   * their origin's order: those before an access were all recorded when it was.
   */
  private pollMayOrder(local: Access, other: Access): boolean {
    const o = this.fetches.get(`${other.win.id}:${other.origin}`);
    if (o !== undefined && o.least < other.order)
      for (const f of o.places.values())
        if (f.order < other.order && !(f.target === local.target && meets(f, local))) return true;
    const l = this.fetches.get(`${local.win.id}:${local.origin}`);
    return l !== undefined && l.least < local.order;
  }

  /**
   * A request of the rank completed (a Wait/Test's COMPLETE): if it was an MPI_Rget's, its data arrived, and the
   * rank's accesses made from now on come after that read (MPI-4.1 12.3.5: the completion of a request-based get
   * means the origin buffer holds the data; unlike an MPI_Rput's, which only frees the origin buffer).
   */
  onRequestDone(rank: number, request: number): void {
    if (this.pendingGets.size === 0) return;
    const key = `${rank}:${request}`;
    const a = this.pendingGets.get(key);
    if (a === undefined) return;
    this.pendingGets.delete(key);
    a.readDone = this.orders.get(rank) ?? 0;
  }

  /**
   * A request of the rank was freed (MPI_Request_free): an MPI_Rget's then never completes for the program, and its
   * handle may be MPI's again for another request, whose completion must not stamp the get.
   */
  onRequestFreed(rank: number, request: number): void {
    if (this.pendingGets.size !== 0) this.pendingGets.delete(`${rank}:${request}`);
  }

  /** Two passive-target accesses (both settled) may race: rma.ts's rules for locks, flushes and happened-before. */
  private passiveConcurrent(a: Access, b: Access): boolean {
    // A rank's own loads and stores are ordered by its program (two ranks' direct accesses to a shared
    // window's memory are judged like any pair: locks, then happened-before).
    if (a.local !== undefined && b.local !== undefined && a.origin === b.origin) return false;
    if (a.origin === b.origin) {
      // A request-based get whose request the origin completed before making the other access: that read is over.
      if (
        (a.readDone !== undefined && b.order > a.readDone) ||
        (b.readDone !== undefined && a.order > b.readDone)
      )
        return false;
      return a.epoch === b.epoch && a.flushes === b.flushes && !accumulatesOrdered(a, b);
    }
    // A lock excludes the other side only when both sides hold one: a target's own loads and stores made without
    // locking its window are not kept out by another rank's exclusive lock.
    const locked = (x: Access) => x.local === undefined || x.epoch.startsWith('lock:');
    if ((a.exclusive || b.exclusive) && locked(a) && locked(b)) return false;
    // A rank that polls the window with atomic reads may be ordered by what it read: not judged (README.md).
    // A target's own load or store is judged against another rank's access unless one of the two sides
    // fetched atomically before it (pollMayOrder): a fetching atomic itself is then compared like a Put.
    if ((a.kind !== 'acc' || b.kind !== 'acc') && this.fetchedOn.has(a.win.id)) {
      const local = a.local !== undefined ? a : b.local !== undefined ? b : undefined;
      if (local === undefined || this.pollMayOrder(local, local === a ? b : a)) return false;
      // Two ranks' direct accesses (a shared window): either may have waited for a flag the other raised.
      if (a.local !== undefined && b.local !== undefined && this.pollMayOrder(b, a)) return false;
    }
    return this.before(a, b) === false && this.before(b, a) === false;
  }

  /** `a` completed before `b` was made (b's origin had heard of a later step of a's); undefined without b's clock. */
  private before(a: Access, b: Access): boolean | undefined {
    const c = this.replay?.clockAt(b.origin, b.pos);
    if (c === undefined) return undefined;
    return a.done !== undefined && (c[a.origin] ?? 0) > a.done;
  }

  /** Reports the first race of one epoch, unless the same two call sites were reported on this window. */
  private reportFirst(sink: Sink, list: readonly Access[], concurrent: (a: Access, b: Access) => boolean) {
    for (const pair of racingPairs(list, concurrent, this.cut)) if (this.report(sink, pair)) return;
  }

  /** One finding per window and pair of call sites; false when that pair was reported already. */
  private report(sink: Sink, [a, b]: readonly [Access, Access]): boolean {
    const sites = [`${a.origin}@${a.site}`, `${b.origin}@${b.site}`].sort().join('|');
    const k = `${a.win.id}|${sites}`;
    if (this.reported.has(k)) return false;
    this.reported.add(k);
    sink.report(raceFinding(a, b));
    return true;
  }
}
