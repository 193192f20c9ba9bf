/**
 * Generalized active target synchronization (MPI_Win_post/start/complete/wait) across ranks. MPI matches an
 * origin's k-th MPI_Win_start naming a target with that target's k-th MPI_Win_post naming the origin; the groups
 * come from groups.ts. Once a rank used a group the engine does not know, its counts are lost and what depends on
 * them is not judged.
 */
import type { Access } from './rma-conflict';
import { EpochAccesses } from './rma-races';
import type { WinInfo } from './windows';

/** Accesses kept per exposure epoch, and waiting for the post they match; beyond, the first ones only. */
const MAX_ACCESSES = 200_000;

/**
 * One exposure epoch (a post of a target) while it may still gain accesses: the origins it names, each with the
 * how-manieth post of the target naming it this is, and the accesses matched to it (two per class, as a fence
 * epoch keeps them). Checked and dropped once the target posted again or freed the window (its own loads and
 * stores of the epoch were sent at its wait) and every origin it names completed the matching access epoch.
 */
interface Exposure {
  readonly origins: ReadonlyMap<number, number>;
  readonly list: EpochAccesses;
}

/** A target's posts on one window. */
interface TargetPosts {
  /** Posts so far (the next one's index). */
  count: number;
  /** Posts naming each origin, up to the first post with an unknown group (after it none can be counted). */
  readonly naming: Map<number, number>;
  broken: boolean;
  /** Exposure epochs not checked yet, by post index. */
  readonly open: Map<number, Exposure>;
  /** Post index of each open epoch by `${origin}:${k}` (the origin's k-th start naming the target). */
  readonly byStart: Map<string, number>;
  /** The target freed the window: every post of it ended. */
  freed: boolean;
}

interface RankPscw {
  /** For each target of the current access epoch, the how-manieth start of this rank naming it. */
  startTargets: Map<number, number> | undefined;
  /** Starts naming each target so far; undefined once a start's group was unknown. */
  startCounts: Map<number, number> | undefined;
  /** The latest post: each origin with how many posts of this rank have named it. */
  posted: Map<number, number> | undefined;
  /** Posts naming each origin so far; undefined once a post's group was unknown. */
  postCounts: Map<number, number> | undefined;
}

/** Adds one to each member's count; the members with their new counts (undefined when counts are lost). */
function count(counts: Map<number, number>, members: readonly number[]): Map<number, number> {
  const now = new Map<number, number>();
  for (const m of members) {
    const n = (counts.get(m) ?? 0) + 1;
    counts.set(m, n);
    now.set(m, n);
  }
  return now;
}

export class PscwMatching {
  private readonly ranks = new Map<string, RankPscw>();
  constructor(
    /** Accesses kept per exposure epoch, and waiting for their post (MAX_ACCESSES). */
    private readonly max = MAX_ACCESSES,
  ) {}
  /** Each target's posts, by window id and target. */
  private readonly posts = new Map<string, TargetPosts>();
  /** MPI_Win_complete calls of each origin naming each target, by window id, origin and target. */
  private readonly completed = new Map<string, number>();
  /** Accesses whose matching post has not come yet, by `${win}:${target}:${origin}:${k}`. */
  private readonly parked = new Map<string, Access[]>();
  private parkedCount = 0;
  /** Exposure epochs checked as the run goes: the caller compares their accesses (a.origin !== b.origin). */
  private readonly done: Access[][] = [];

  private postsOf(win: WinInfo, target: number): TargetPosts {
    const k = `${win.id}:${target}`;
    let t = this.posts.get(k);
    if (t === undefined)
      this.posts.set(
        k,
        (t = {
          count: 0,
          naming: new Map(),
          broken: false,
          open: new Map(),
          byStart: new Map(),
          freed: false,
        }),
      );
    return t;
  }

  /** The exposure epochs checked since the last call (their accesses to compare), taken. */
  takeClosed(): Access[][] {
    return this.done.splice(0);
  }

  /**
   * Closes the target's epoch of post `p` if it ended (the target moved past it, every origin completed); every
   * epoch of the target when `p` is undefined. Asked for the one epoch an event may end (a post ends the one
   * before, an origin's complete the one it matched): a target whose records run ahead of its origins' holds many
   * open epochs, and none is walked for another's event.
   */
  private close(win: WinInfo, target: number, t: TargetPosts, p?: number): void {
    if (p === undefined) {
      for (const q of [...t.open.keys()]) this.close(win, target, t, q);
      return;
    }
    const ex = t.open.get(p);
    // The latest post may still gain the target's own accesses (sent at its wait).
    if (ex === undefined || (p >= t.count - 1 && !t.freed)) return;
    for (const [o, k] of ex.origins) if ((this.completed.get(`${win.id}:${o}:${target}`) ?? 0) < k) return;
    t.open.delete(p);
    for (const [o, k] of ex.origins) t.byStart.delete(`${o}:${k}`);
    if (ex.list.list.length > 1) this.done.push(ex.list.list);
  }

  /**
   * Every member freed the window: what was counted of it is dropped, unless an exposure epoch of it still waits
   * for an origin's complete (checked at the end of the run then).
   */
  forget(win: WinInfo): void {
    const posts = `${win.id}:`;
    for (const [k, t] of this.posts) if (k.startsWith(posts) && t.open.size > 0) return;
    for (const k of [...this.posts.keys()]) if (k.startsWith(posts)) this.posts.delete(k);
    for (const k of [...this.completed.keys()]) if (k.startsWith(posts)) this.completed.delete(k);
    for (const r of win.comm.members) this.ranks.delete(`${r}:${win.id}`);
  }

  /** The rank freed the window: each of its posts ended. */
  onFree(rank: number, win: WinInfo): void {
    const t = this.posts.get(`${win.id}:${rank}`);
    if (t === undefined) return;
    t.freed = true;
    this.close(win, rank, t);
  }

  private of(rank: number, win: WinInfo): RankPscw {
    const key = `${rank}:${win.id}`;
    let s = this.ranks.get(key);
    if (s === undefined) {
      s = { startTargets: undefined, startCounts: new Map(), posted: undefined, postCounts: new Map() };
      this.ranks.set(key, s);
    }
    return s;
  }

  onStart(rank: number, win: WinInfo, targets: readonly number[] | undefined): void {
    const s = this.of(rank, win);
    if (targets === undefined) s.startCounts = undefined;
    s.startTargets = s.startCounts === undefined ? undefined : count(s.startCounts, targets ?? []);
  }

  onPost(rank: number, win: WinInfo, origins: readonly number[] | undefined): void {
    const t = this.postsOf(win, rank);
    const p = t.count++;
    if (origins === undefined) t.broken = true;
    if (!t.broken && origins !== undefined) {
      const named = new Map<number, number>();
      for (const o of new Set(origins)) {
        const k = (t.naming.get(o) ?? 0) + 1;
        t.naming.set(o, k);
        named.set(o, k);
        t.byStart.set(`${o}:${k}`, p);
      }
      const ex: Exposure = { origins: named, list: new EpochAccesses(this.max) };
      t.open.set(p, ex);
      for (const [o, k] of named) {
        const key = `${win.id}:${rank}:${o}:${k}`;
        const waiting = this.parked.get(key);
        if (waiting === undefined) continue;
        this.parked.delete(key);
        this.parkedCount -= waiting.length;
        for (const a of waiting) if (!ex.list.add(a)) this.dropped = true;
      }
    } else if (origins === undefined) {
      // Accesses waiting for a post after this one can never be matched (the posts after it cannot be counted).
      for (const [key, waiting] of this.parked)
        if (key.startsWith(`${win.id}:${rank}:`)) {
          this.parked.delete(key);
          this.parkedCount -= waiting.length;
        }
    }
    this.close(win, rank, t, p - 1);
    const s = this.of(rank, win);
    if (origins === undefined) s.postCounts = undefined;
    s.posted = s.postCounts === undefined ? undefined : count(s.postCounts, origins ?? []);
  }

  onComplete(rank: number, win: WinInfo): void {
    const s = this.of(rank, win);
    for (const t of s.startTargets?.keys() ?? []) {
      const k = `${win.id}:${rank}:${t}`;
      const n = (this.completed.get(k) ?? 0) + 1;
      this.completed.set(k, n);
      const posts = this.posts.get(`${win.id}:${t}`);
      const p = posts?.byStart.get(`${rank}:${n}`);
      if (posts !== undefined && p !== undefined) this.close(win, t, posts, p);
    }
    s.startTargets = undefined;
  }

  /**
   * An access made in the origin's current access epoch: joins the exposure epoch its start matches, or waits for
   * that post (none can come after a post with an unknown group: then it is never judged).
   */
  onAccess(a: Access): void {
    const k = this.of(a.origin, a.win).startTargets?.get(a.target);
    if (k === undefined) return;
    const t = this.postsOf(a.win, a.target);
    const p = t.byStart.get(`${a.origin}:${k}`);
    if (p !== undefined) {
      if (!(t.open.get(p)?.list.add(a) ?? true)) this.dropped = true;
      return;
    }
    if (t.broken || (t.naming.get(a.origin) ?? 0) >= k) return;
    if (this.parkedCount >= this.max) {
      this.dropped = true;
      return;
    }
    const key = `${a.win.id}:${a.target}:${a.origin}:${k}`;
    const waiting = this.parked.get(key);
    if (waiting === undefined) this.parked.set(key, [a]);
    else waiting.push(a);
    this.parkedCount++;
  }

  /** Accesses were left out past MAX_ACCESSES (Engine.skippedChecks says so). */
  dropped = false;

  /**
   * The memcheck mode: a target's own load or store of its window memory in its exposure epoch of the post-th
   * MPI_Win_post on the window (0 = the first), sent by its shim when the epoch ended (MPI_Win_wait, or a test).
   */
  onLocal(a: Access, post: number): void {
    const ex = this.posts.get(`${a.win.id}:${a.target}`)?.open.get(post);
    if (ex !== undefined && !ex.list.add(a)) this.dropped = true;
  }

  /** The end of the run: the exposure epochs not checked yet, with their accesses (parked ones never matched). */
  exposureEpochs(): Access[][] {
    const out = this.takeClosed();
    for (const t of this.posts.values()) {
      for (const ex of t.open.values()) if (ex.list.list.length > 1) out.push(ex.list.list);
      t.open.clear();
      t.byStart.clear();
    }
    this.parked.clear();
    this.parkedCount = 0;
    return out;
  }

  /**
   * An origin in MPI_Win_complete waits until each target of its access epoch has posted the exposure epoch that
   * matches it (MPI_Win_start may return early; the accesses and the complete cannot finish before the post), and
   * one blocked in MPI_Win_start (Open MPI's shared-memory windows wait there) waits for the same posts of the
   * epoch it opens (`starting`: the start's group, not yet counted): the targets that have not posted to it that
   * often yet, or undefined when that cannot be known (a group the engine does not know, on either side).
   */
  postsMissing(rank: number, win: WinInfo, starting?: readonly number[]): number[] | undefined {
    const s = this.of(rank, win);
    let targets: Map<number, number> | undefined;
    if (starting === undefined) targets = s.startTargets;
    else if (s.startCounts !== undefined)
      targets = new Map(starting.map((t) => [t, (s.startCounts?.get(t) ?? 0) + 1]));
    if (targets === undefined) return undefined;
    const out: number[] = [];
    for (const [t, k] of targets) {
      const counts = this.ranks.has(`${t}:${win.id}`)
        ? this.of(t, win).postCounts
        : new Map<number, number>();
      if (counts === undefined) return undefined;
      if ((counts.get(rank) ?? 0) < k) out.push(t);
    }
    return out;
  }

  /**
   * A target in MPI_Win_wait waits until every origin of its latest post has called the matching MPI_Win_complete:
   * the origins that have not yet, or undefined when that cannot be known (a group the engine does not know).
   */
  waitingOn(rank: number, win: WinInfo): number[] | undefined {
    const posted = this.of(rank, win).posted;
    if (posted === undefined) return undefined;
    const out: number[] = [];
    for (const [o, n] of posted) {
      // An origin whose start named an unknown group has completes the engine could not count.
      if (this.ranks.has(`${o}:${win.id}`) && this.of(o, win).startCounts === undefined) return undefined;
      if ((this.completed.get(`${win.id}:${o}:${rank}`) ?? 0) < n) out.push(o);
    }
    return out;
  }
}
