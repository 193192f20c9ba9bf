/**
 * Generalized active target synchronization (MPI_Win_post/start/complete/wait) across ranks. MPI matches an
 * origin's k-th MPI_Win_start naming a target with that target's k-th MPI_Win_post naming the origin; the groups
 * come from groups.ts. Once a rank used a group the engine does not know, its counts are lost and what depends on
 * them is not judged.
 */
import type { Access } from './rma-conflict';
import type { WinInfo } from './windows';

/** Accesses kept for matching at the end of the run; beyond, the first ones only. */
const MAX_ACCESSES = 200_000;

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
  /** Each target's posts, by window id and target: the origins each one names (undefined: group unknown). */
  private readonly posts = new Map<string, (readonly number[] | undefined)[]>();
  /** MPI_Win_complete calls of each origin naming each target, by window id, origin and target. */
  private readonly completed = new Map<string, number>();
  /** Accesses with the how-manieth start of their origin naming their target. */
  private readonly accesses: { readonly a: Access; readonly k: number }[] = [];
  /** The targets' own loads and stores of their window memory, with the index of the post whose epoch they were in. */
  private readonly locals: { readonly a: Access; readonly post: number }[] = [];

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
    const key = `${win.id}:${rank}`;
    const list = this.posts.get(key) ?? [];
    list.push(origins);
    this.posts.set(key, list);
    const s = this.of(rank, win);
    if (origins === undefined) s.postCounts = undefined;
    s.posted = s.postCounts === undefined ? undefined : count(s.postCounts, origins ?? []);
  }

  onComplete(rank: number, win: WinInfo): void {
    const s = this.of(rank, win);
    for (const t of s.startTargets?.keys() ?? []) {
      const k = `${win.id}:${rank}:${t}`;
      this.completed.set(k, (this.completed.get(k) ?? 0) + 1);
    }
    s.startTargets = undefined;
  }

  /** An access made in the origin's current access epoch. */
  onAccess(a: Access): void {
    const k = this.of(a.origin, a.win).startTargets?.get(a.target);
    if (k === undefined) return;
    if (this.accesses.length < MAX_ACCESSES) this.accesses.push({ a, k });
    else this.dropped = true;
  }

  /** Accesses were left out past MAX_ACCESSES (Engine.skippedChecks says so). */
  dropped = false;

  /**
   * The memcheck mode: a target's own load or store of its window memory in its exposure epoch of the post-th
   * MPI_Win_post on the window (0 = the first), sent by its shim when the epoch ended (MPI_Win_wait, or a test).
   */
  onLocal(a: Access, post: number): void {
    if (this.locals.length < MAX_ACCESSES) this.locals.push({ a, post });
    else this.dropped = true;
  }

  /**
   * The accesses of each exposure epoch (one post of a target), with the target's own loads and stores in it, for
   * the end of the run; a post with an unknown group before the match leaves an access out.
   */
  exposureEpochs(): Access[][] {
    const epochs = new Map<string, Access[]>();
    for (const { a, post } of this.locals) {
      const key = `${a.win.id}:${a.target}:${post}`;
      const list = epochs.get(key) ?? [];
      list.push(a);
      epochs.set(key, list);
    }
    this.locals.length = 0;
    // Each target's posts naming each origin, in order, up to its first post with an unknown group (the posts after
    // it cannot be counted): the k-th start of an origin naming the target matches the k-th of them.
    const naming = new Map<string, Map<number, number[]>>();
    const postsNaming = (win: number, target: number): Map<number, number[]> => {
      const k = `${win}:${target}`;
      let m = naming.get(k);
      if (m !== undefined) return m;
      naming.set(k, (m = new Map<number, number[]>()));
      for (const [p, origins] of (this.posts.get(k) ?? []).entries()) {
        if (origins === undefined) break;
        for (const o of new Set(origins)) {
          const l = m.get(o) ?? [];
          l.push(p);
          m.set(o, l);
        }
      }
      return m;
    };
    for (const { a, k } of this.accesses) {
      const at = postsNaming(a.win.id, a.target).get(a.origin)?.[k - 1] ?? -1;
      if (at < 0) continue;
      const key = `${a.win.id}:${a.target}:${at}`;
      const list = epochs.get(key) ?? [];
      list.push(a);
      epochs.set(key, list);
    }
    this.accesses.length = 0;
    return [...epochs.values()];
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
