/**
 * The access epochs of one rank on one window, and the rules MPI sets on them (MPI-3.1 §11.5): a rank opens an
 * access epoch on a window only where none is open that it would overlap, and closes every epoch it opened
 * before it frees the window or finalizes.
 *
 * - A lock of a target already locked by the rank (lock twice), a lock while a lock_all or a start epoch is open
 *   (or the other way round), lock_all twice, start while a start is open: both Open MPI and MPICH fail them with
 *   MPI_ERR_RMA_SYNC or hang. Checked at ENTER (the default error handler ends the job in that very call).
 * - A fence while a lock, lock_all or start epoch is open, or while the rank's exposure epoch (MPI_Win_post not
 *   yet waited for) is: a fence opens and closes exposure epochs as well as access epochs (MPI-3.1 §11.5.1), so
 *   they overlap; Open MPI 4.1 and MPICH 4.0 then hang (in the fence, MPI_Win_free or MPI_Finalize).
 * - A fence with MPI_MODE_NOPRECEDE after one-sided accesses of the rank since the fence before it: the assertion
 *   says the fence completes none (MPI-3.1 §11.5.5), so they may never complete (bits as for NOSUCCEED).
 * - A lock, lock_all, start or post between two fences with
 *   one-sided accesses of the fence epoch between them: the first fence opened an access epoch (MPI-3.1 §11.5.1: a
 *   fence starts one when another fence and RMA calls follow), which the passive or PSCW epoch overlaps. A fence
 *   with MPI_MODE_NOSUCCEED opens none: its bit is 16 in Open MPI and 16384 in MPICH, and either bit counts (the
 *   engine does not know the library; a wrong reading only errs towards silence). An error when an access
 *   outside every lock of its target, lock_all and start epoch was made between the fences. When every access is
 *   inside such an epoch, a warning: the standard's text still makes the first fence open an access epoch (RMA
 *   calls follow it before the next fence), so MPI-CorrBench counts fence; lock; put; unlock; fence erroneous, but
 *   MPICH and Open MPI accept it, MPICH's own test suite does it (rma/mixedsync.c) and so does PETSc's PetscSF of
 *   the window type with lock synchronization.
 * - An epoch still open at MPI_Win_free or MPI_Finalize: its accesses may never complete, and MPI_Win_free is
 *   erroneous then. Reported at the call that opened it; a fence epoch with one-sided accesses since its fence and
 *   none after them, at the MPI_Win_free (the fence that is missing belongs before it).
 *
 * - Exposure epochs (MPI_Win_post … MPI_Win_wait, or an MPI_Win_test that returned true): a post while the rank's
 *   previous exposure epoch is still open, a wait or test with no post open, a complete with no start open (MPI-3.1
 *   §11.5.2: each is erroneous; Open MPI and MPICH fail them with MPI_ERR_RMA_SYNC). Checked at ENTER.
 * - An exposure epoch still open at MPI_Win_free or MPI_Finalize: the origins that access it may never complete.
 *
 * The state follows the calls that succeeded (EXIT with MPI_SUCCESS); the checks read it at the ENTER of the next
 * synchronization call, which is the rank's program order (calls of one rank on one window do not overlap).
 */
import type { CallEnter, EngineFinding, RawLocation } from '../model/types';
import type { WinInfo } from './windows';

/** MPI_MODE_NOSUCCEED in Open MPI (16) and in MPICH (16384). */
const NOSUCCEED_BITS = 16 | 16384;
/** MPI_MODE_NOPRECEDE in Open MPI (2) and in MPICH (8192); neither bit is another mode in the other library. */
const NOPRECEDE_BITS = 2 | 8192;

interface Where {
  readonly site: number;
  readonly call: string;
}

interface EpochState {
  readonly win: WinInfo;
  readonly locks: Map<number, Where>;
  lockAll: Where | undefined;
  start: Where | undefined;
  /** The open exposure epoch (MPI_Win_post not yet waited for, or tested true). */
  post: Where | undefined;
  /** The rank called a fence that opened an access epoch (not MPI_MODE_NOSUCCEED). */
  fenceOpen: boolean;
  /** The first lock, lock_all or start since that fence. */
  inFence: (Where & { readonly rank: number }) | undefined;
  /** An access of the fence epoch was made since that fence (one outside every lock, lock_all and start epoch). */
  accessed: boolean;
  /** An access inside a lock, lock_all or start epoch was made since that fence. */
  heldAccessed: boolean;
}

type Rule =
  | 'overlap'
  | 'inside-fence'
  | 'inside-fence-held'
  | 'fence-in-exposure'
  | 'open-at-free'
  | 'fence-open-at-free'
  | 'noprecede'
  | 'open-at-finalize'
  | 'post-twice'
  | 'no-post'
  | 'no-start';

export class EpochRules {
  private readonly state = new Map<string, EpochState>();
  /** One finding per window, rule and function: call sites are return addresses, which differ between processes. */
  private readonly found = new Map<
    string,
    { readonly what: string; readonly win: string; readonly locations: RawLocation[] }
  >();

  private of(rank: number, win: WinInfo): EpochState {
    const k = `${rank}:${win.id}`;
    let s = this.state.get(k);
    if (s === undefined) {
      s = {
        win,
        locks: new Map(),
        lockAll: undefined,
        start: undefined,
        post: undefined,
        fenceOpen: false,
        inFence: undefined,
        accessed: false,
        heldAccessed: false,
      };
      this.state.set(k, s);
    }
    return s;
  }

  private note(rule: Rule, win: WinInfo, rank: number, at: Where, what: string, detail: string): void {
    const key = `${win.id}|${rule}|${at.call}|${what}`;
    let f = this.found.get(key);
    if (f === undefined) this.found.set(key, (f = { what, win: win.name, locations: [] }));
    // The first of each rank is enough: MPI usually ends the job on it.
    if (!f.locations.some((l) => l.rank === rank))
      f.locations.push({ rank, site: at.site, call: at.call, detail });
  }

  /** Has a rule been broken on this window so far (a finding made, or to be made at the end)? */
  brokenOn(win: WinInfo): boolean {
    const prefix = `${win.id}|`;
    for (const key of this.found.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  /** The epochs open at this rank on the window, described ("a lock of rank 1"), for the messages. */
  private openOnes(s: EpochState): string[] {
    return [
      ...[...s.locks.keys()].map((t) => `MPI_Win_lock of rank ${t}`),
      ...(s.lockAll !== undefined ? ['MPI_Win_lock_all'] : []),
      ...(s.start !== undefined ? ['MPI_Win_start'] : []),
    ];
  }

  /**
   * ENTER of a window synchronization call or MPI_Win_free. `kind`: the spec's `rma` of the call ('free' for
   * MPI_Win_free); `target`: the world rank a lock names; `assert`: its assert argument.
   */
  enter(e: CallEnter, win: WinInfo, kind: string, target: number | undefined, assert: number): void {
    const s = this.of(e.rank, win);
    const at = { site: e.site, call: e.fn.name };
    const open = this.openOnes(s);
    const overlap = (what: string) =>
      this.note('overlap', win, e.rank, at, what, `${e.fn.name} on ${win.name} while ${what} is open`);
    switch (kind) {
      case 'lock':
        if (target !== undefined && s.locks.has(target)) overlap(`MPI_Win_lock of rank ${target}`);
        else if (s.lockAll !== undefined) overlap('MPI_Win_lock_all');
        else if (s.start !== undefined) overlap('MPI_Win_start');
        this.openedInFence(s, e.rank, at);
        break;
      case 'lock_all':
      case 'start':
        if (open.length > 0) overlap(open[0] as string);
        this.openedInFence(s, e.rank, at);
        break;
      case 'post':
        this.openedInFence(s, e.rank, at);
        if (s.post !== undefined)
          this.note(
            'post-twice',
            win,
            e.rank,
            at,
            'MPI_Win_post',
            `${e.fn.name} on ${win.name} while the exposure epoch of an earlier MPI_Win_post is open`,
          );
        break;
      case 'wait':
      case 'test':
        if (s.post === undefined)
          this.note(
            'no-post',
            win,
            e.rank,
            at,
            'MPI_Win_post',
            `${e.fn.name} on ${win.name} with no exposure epoch open (no MPI_Win_post before it)`,
          );
        break;
      case 'complete':
        if (s.start === undefined)
          this.note(
            'no-start',
            win,
            e.rank,
            at,
            'MPI_Win_start',
            `${e.fn.name} on ${win.name} with no access epoch open (no MPI_Win_start before it)`,
          );
        break;
      case 'fence':
        if (open.length > 0) overlap(open[0] as string);
        else if (s.post !== undefined)
          this.note(
            'fence-in-exposure',
            win,
            e.rank,
            at,
            'MPI_Win_post',
            `${e.fn.name} on ${win.name} while the exposure epoch of an MPI_Win_post is open`,
          );
        else if (s.fenceOpen && s.accessed && s.inFence === undefined && (assert & NOPRECEDE_BITS) !== 0)
          this.note(
            'noprecede',
            win,
            e.rank,
            at,
            'MPI_MODE_NOPRECEDE',
            `${e.fn.name}(MPI_MODE_NOPRECEDE) on ${win.name} after one-sided accesses since the last fence`,
          );
        else if (s.inFence !== undefined && s.accessed)
          this.note(
            'inside-fence',
            win,
            s.inFence.rank,
            s.inFence,
            s.inFence.call,
            `${s.inFence.call} on ${win.name} between two MPI_Win_fence calls with one-sided accesses between them`,
          );
        else if (s.inFence !== undefined && s.heldAccessed)
          this.note(
            'inside-fence-held',
            win,
            s.inFence.rank,
            s.inFence,
            s.inFence.call,
            `${s.inFence.call} on ${win.name} between two MPI_Win_fence calls whose one-sided accesses are all inside it`,
          );
        break;
      case 'free':
        // One-sided accesses since the last fence, which opened an access epoch, and no fence after them: they may
        // never complete (MPICH fails the free with MPI_ERR_RMA_SYNC). A lock or start epoch opened inside the fence
        // epoch is the inside-fence rule's, found at the next fence.
        if (s.fenceOpen && s.accessed && s.inFence === undefined && this.opened(s).length === 0)
          this.note(
            'fence-open-at-free',
            win,
            e.rank,
            at,
            'MPI_Win_fence',
            `${e.fn.name} on ${win.name} with one-sided accesses since the last MPI_Win_fence and no fence after them`,
          );
        for (const [, w] of this.opened(s))
          this.note(
            'open-at-free',
            win,
            e.rank,
            w,
            w.call,
            `${w.call} on ${win.name}, never closed before MPI_Win_free`,
          );
        this.state.delete(`${e.rank}:${win.id}`);
        break;
      default:
        break;
    }
    if (kind === 'fence') {
      s.fenceOpen = (assert & NOSUCCEED_BITS) === 0;
      s.inFence = undefined;
      s.accessed = false;
      s.heldAccessed = false;
    }
  }

  private openedInFence(s: EpochState, rank: number, at: Where): void {
    if (s.fenceOpen && s.inFence === undefined) s.inFence = { ...at, rank };
  }

  private opened(s: EpochState): [string, Where][] {
    return [
      ...[...s.locks].map(([t, w]): [string, Where] => [`lock:${t}`, w]),
      ...(s.lockAll !== undefined ? [['lock_all', s.lockAll] as [string, Where]] : []),
      ...(s.start !== undefined ? [['start', s.start] as [string, Where]] : []),
      ...(s.post !== undefined ? [['post', s.post] as [string, Where]] : []),
    ];
  }

  /**
   * A window synchronization call returned MPI_SUCCESS: the epoch it opened or closed. `flag`: MPI_Win_test's
   * result (1: the exposure epoch is closed).
   */
  exit(e: CallEnter, win: WinInfo, kind: string, target: number | undefined, flag: number): void {
    const s = this.state.get(`${e.rank}:${win.id}`);
    if (s === undefined) return;
    const at = { site: e.site, call: e.fn.name };
    if (kind === 'lock' && target !== undefined && !s.locks.has(target)) s.locks.set(target, at);
    else if (kind === 'unlock' && target !== undefined) s.locks.delete(target);
    else if (kind === 'lock_all') s.lockAll ??= at;
    else if (kind === 'unlock_all') s.lockAll = undefined;
    else if (kind === 'start') s.start ??= at;
    else if (kind === 'complete') s.start = undefined;
    else if (kind === 'post') s.post ??= at;
    else if (kind === 'wait' || (kind === 'test' && flag === 1)) s.post = undefined;
  }

  /**
   * A one-sided access (Put, Get, accumulates) returned. `target`: the world rank it names. It belongs to the
   * fence epoch unless a lock of its target, a lock_all or a start epoch of the rank holds it.
   */
  access(rank: number, win: WinInfo, target: number | undefined): void {
    const s = this.state.get(`${rank}:${win.id}`);
    if (s === undefined) return;
    const held =
      (target !== undefined && s.locks.has(target)) || s.lockAll !== undefined || s.start !== undefined;
    if (!held) s.accessed = true;
    else s.heldAccessed = true;
  }

  /**
   * The job ends on a deadlock (no end of the run): what was found so far, without the epochs open at
   * MPI_Finalize (no rank finalized). A window freed with an epoch open may be what hangs (MPICH's MPI_Win_free
   * fails on the rank with the open epoch and the others wait in theirs forever).
   */
  released(): EngineFinding[] {
    const state = [...this.state];
    this.state.clear();
    const out = this.findings(() => false);
    for (const [k, s] of state) this.state.set(k, s);
    return out;
  }

  /** End of the run: epochs still open on the windows of the ranks that finalized, then every finding. */
  findings(finalized: (rank: number) => boolean): EngineFinding[] {
    for (const [key, s] of this.state) {
      const rank = Number(key.slice(0, key.indexOf(':')));
      if (!finalized(rank)) continue;
      for (const [, w] of this.opened(s))
        this.note(
          'open-at-finalize',
          s.win,
          rank,
          w,
          w.call,
          `${w.call} on ${s.win.name}, never closed before MPI_Finalize`,
        );
    }
    this.state.clear();
    const out: EngineFinding[] = [];
    for (const [key, f] of this.found) {
      const [, rule, call] = key.split('|') as [string, Rule, string];
      const locations = [...f.locations].sort((a, b) => a.rank - b.rank);
      const ranks = locations.map((l) => l.rank);
      const who = `Rank${ranks.length > 1 ? 's' : ''} ${ranks.join(',')}`;
      const s = ranks.length > 1 ? '' : 's';
      const win = f.win;
      let message: string;
      if (rule === 'overlap')
        message = `${who} call${s} ${call} on ${win} while ${f.what} is still open on that window: MPI forbids overlapping access epochs of one rank on a window (MPI_ERR_RMA_SYNC, or a hang). Close the first epoch (MPI_Win_unlock, MPI_Win_unlock_all, MPI_Win_complete, or a fence) before opening another.`;
      else if (rule === 'inside-fence-held')
        message = `${who} call${s} ${call} on ${win} between two MPI_Win_fence calls, and every one-sided access between those fences is inside the passive or PSCW epoch. By the standard's text the first fence still opened an access epoch (MPI-3.1 §11.5.1: a fence starts one when another fence and RMA calls follow), which this epoch overlaps; MPICH and Open MPI accept it, other implementations need not. End the fence epoch with MPI_Win_fence(MPI_MODE_NOSUCCEED, …) before the lock, or use fences only.`;
      else if (rule === 'inside-fence')
        message = `${who} call${s} ${call} on ${win} inside an access epoch opened by MPI_Win_fence (another fence and one-sided accesses follow): the epochs overlap, which MPI forbids. End the fence epoch with MPI_Win_fence(MPI_MODE_NOSUCCEED, …) before the passive or PSCW epoch, or use fences only.`;
      else if (rule === 'fence-in-exposure')
        message = `${who} call${s} MPI_Win_fence on ${win} while the exposure epoch of its MPI_Win_post is still open: a fence opens and closes exposure epochs too, so the two overlap, which MPI forbids (Open MPI and MPICH 4.0 hang or fail in the fence, MPI_Win_free or MPI_Finalize). End the exposure epoch with MPI_Win_wait (or MPI_Win_test until it returns true) before the fence.`;
      else if (rule === 'post-twice')
        message = `${who} call${s} MPI_Win_post on ${win} while the exposure epoch of an earlier MPI_Win_post is still open: one rank exposes a window in at most one epoch at a time (MPI_ERR_RMA_SYNC, or a hang). Close the first with MPI_Win_wait (or an MPI_Win_test that returns true) before posting again.`;
      else if (rule === 'no-post')
        message = `${who} wait${s} for the end of an exposure epoch on ${win} that no MPI_Win_post opened (MPI_Win_wait or MPI_Win_test without a post, or after the epoch was already closed): MPI_ERR_RMA_SYNC, or a hang. Call MPI_Win_post with the group of origins first, or remove the extra wait.`;
      else if (rule === 'fence-open-at-free')
        message = `${who} free${s} ${win} with MPI_Win_free while the access epoch of the last MPI_Win_fence still holds one-sided accesses (Put, Get, accumulates) that no fence completed: MPI_Win_free needs every access complete and no epoch open (MPICH fails it with MPI_ERR_RMA_SYNC). Call MPI_Win_fence on every rank before MPI_Win_free.`;
      else if (rule === 'noprecede')
        message = `${who} call${s} MPI_Win_fence with MPI_MODE_NOPRECEDE on ${win} although one-sided accesses (Put, Get, accumulates) were made since the last fence: the assertion says the fence completes none, so they may never complete. Drop MPI_MODE_NOPRECEDE from the fence that closes the epoch (it fits only the first fence of a sequence).`;
      else if (rule === 'no-start')
        message = `${who} call${s} MPI_Win_complete on ${win} with no access epoch open (no MPI_Win_start before it, or it was already completed): MPI_ERR_RMA_SYNC. Call MPI_Win_start with the group of targets first, or remove the extra complete.`;
      else if (call === 'MPI_Win_post')
        message = `${who} open${s} an exposure epoch with MPI_Win_post on ${win} and never close${s} it before ${rule === 'open-at-free' ? 'MPI_Win_free' : 'MPI_Finalize'}: the origins' accesses to it may never complete, and freeing a window with an epoch open is erroneous. Close it with MPI_Win_wait (or MPI_Win_test until it returns true) first.`;
      else
        message = `${who} open${s} an access epoch with ${call} on ${win} and never close${s} it before ${rule === 'open-at-free' ? 'MPI_Win_free' : 'MPI_Finalize'}: its accesses may never complete, and freeing a window with an epoch open is erroneous. Close it with ${call === 'MPI_Win_lock' ? 'MPI_Win_unlock' : call === 'MPI_Win_lock_all' ? 'MPI_Win_unlock_all' : 'MPI_Win_complete'} first.`;
      out.push({
        kind: 'call-order',
        severity: rule === 'inside-fence-held' ? 'warning' : 'error',
        message,
        locations,
      });
    }
    this.found.clear();
    return out;
  }
}
