/**
 * Passive-target races (MPI_Win_lock/unlock, lock_all, flush, and in the memcheck mode a target's own loads and
 * stores outside fence and exposure epochs), judged as the run goes rather than at its end, with what is kept
 * bounded by what can still race.
 *
 * An access is *settled* once the analyzer knows all that the race rules read of it: its completion (the origin's
 * flush or unlock of the target; a target's own load or store is complete at once), the origin's vector clock at
 * the point it was made (the clock run gets there after the records), and its target's displacement unit. Each
 * origin's accesses settle in its program order (a queue per origin). A settled access is compared at once with
 * the settled accesses kept on its window, by the rules of `concurrent` (rma.ts's, unchanged): every pair of
 * accesses is compared when the later of the two settles, as the end of the run compared every pair before.
 *
 * What is kept of a settled access `a` of origin `o`, completed at `o`'s step `d`:
 * - nothing, once no access the analyzer has not settled yet can race with it (*retired*): every other member `r`
 *   of the window heard of `o`'s step `d + 1` (through messages and collectives) at the first point where `r` may
 *   still make an access the analyzer has not settled — its oldest unsettled access, or where its clock run is —
 *   so every later access of `r` is ordered after `a` (a clock only grows along a rank's history); and `o`'s own
 *   later accesses are in another epoch or after a flush of the target (a completed access never races with them).
 * - while some member has not heard of it, its *class*: the accesses of one origin alike in everything the rules
 *   read but their epoch, flush count, order, point and completion (a lock/put/unlock loop into one place is one
 *   class) keep two — the first (the smallest order, so the first racing pair of its call sites where it races)
 *   and the one completed last. For an access `b` settled later, of another origin, `concurrent(a, b)` depends on a
 *   member `a` only through `before(a, b)` (b's origin heard of a's completion: false for the member completed last
 *   whenever it is false for any member) and `before(b, a)`, which is false for every member once the ranks'
 *   unsettled accesses all start after what the members heard of them (the fold waits for that: `foldable`); and
 *   through fetching atomics (pollMayOrder), which never order a member made before the first fetch on its window
 *   (a member is folded only then). So `b` races with some member if and only if it races with one of the two kept:
 *   the verdict for each pair of call sites is the same; the pair reported is the first member's when that races,
 *   else the last one's (the same call sites, displacement and types: only the order findings are listed in may
 *   differ from the end-of-run search).
 * - accesses of one origin in one epoch before one flush (a lock_all loop of puts before its flush) are alike but
 *   for their point: the first two are kept (the later ones race with nothing the first does not; rma.ts `open`).
 * Once every member freed the window and none of its accesses is pending, what it kept is dropped.
 *
 * Bound: pending plus kept accesses at most `max` (MAX_ACCESSES): beyond, an access is not recorded and rma-race
 * is named partial — a bound on what is pending, not on how long the job ran.
 */
import { bytesOf, conflicting, overlaps, type Access } from './rma-conflict';
import type { Pair } from './rma-races';
import type { WinInfo } from './windows';

/** What the passive-target check asks of its surroundings. */
export interface PassiveHost {
  /** The origin's clock at the point it made the access (watched), once the clock run got there. */
  clockAt(a: Access): Int32Array | undefined;
  /**
   * The access's clock is there, or will never be (no clocks, or its point was not watched past the bound): it
   * can be settled, and `concurrent` then says what the end of the run said without it.
   */
  clockKnown(a: Access): boolean;
  /** The rank's clock as far as the clock run got; undefined without clocks. */
  clockNow(rank: number): Int32Array | undefined;
  /** The two accesses may race (rma.ts's rules), both settled. */
  concurrent(a: Access, b: Access): boolean;
  /** The access's epoch is still open at its origin (more accesses of the same origin may join it). */
  epochOpen(a: Access): boolean;
  /** The access's point is no longer needed. */
  release(a: Access): void;
  /**
   * The clock at an access's point waits: let the ranks between two calls run the step each holds back for its
   * next one (a collective of every member, the window's creation, runs only then).
   */
  unstick(): void;
}

/** A settled access kept, with its class key once folded into its class. */
interface Kept {
  readonly a: Access;
  cls: string | undefined;
}

interface WinRaces {
  readonly win: WinInfo;
  /** Settled accesses kept: fresh ones, and the two kept of each class. */
  kept: Kept[];
  /** Accesses of the window pending (not settled yet). */
  pending: number;
  /**
   * Kept accesses by target, origin and BUCKET-byte bucket (spans over MAX_BUCKETS buckets: `wide`): an access is
   * compared with the other origins' whose bytes may meet.
   */
  readonly index: Map<number, Map<number, Map<number, Access[]>>>;
  readonly wide: Access[];
  /**
   * Kept accesses not folded, by origin and epoch: its own origin's accesses an access is compared with (one
   * origin's accesses of different epochs never race, and folded ones are of epochs closed and settled).
   */
  readonly fresh: Map<string, Access[]>;
  /** The two kept of each class (first, last completed), by class key. */
  readonly classes: Map<string, { first: Access; last: Access }>;
  /** Kept count after the last sweep: the next sweep comes when it doubled. */
  swept: number;
  freed: boolean;
}

const BUCKET = 64;
const MAX_BUCKETS = 16;

export class PassiveRaces {
  private readonly queues = new Map<number, { list: Access[]; head: number }>();
  /**
   * Unsettled accesses per origin, by epoch, target and flush count (`sameOriginKey`: what one origin's accesses
   * must share to race): an access is folded once those that may race with it settled.
   */
  private readonly pendingEpochs = new Map<number, Map<string, number>>();
  private readonly wins = new Map<number, WinRaces>();
  /** The first racing pair of each pair of call sites, by window (in the order windows first had an access). */
  readonly first = new Map<number, Map<string, Pair>>();
  /** Accesses made while their window had a fetching atomic already: never folded into a class. */
  private readonly afterFetch = new WeakSet<Access>();
  /** Pending and kept accesses. */
  private held = 0;
  /** Most pending and kept at once (for the README's numbers). */
  peakHeld = 0;
  private readonly dtypeIds = new WeakMap<object, number>();
  private nextDtype = 1;
  /** Accesses added since the last `unstick` (asked at most once per 64, or per a sixteenth of the bound). */
  private sinceUnstick = 64;

  constructor(
    private readonly host: PassiveHost,
    private readonly max: number,
    private readonly cut: () => void,
  ) {}

  /** A passive-target access was made (its completion may come later). False when past the bound. */
  add(a: Access, fetchedBefore: boolean): boolean {
    if (this.held >= this.max) {
      this.cut();
      return false;
    }
    if (fetchedBefore) this.afterFetch.add(a);
    let q = this.queues.get(a.origin);
    if (q === undefined) this.queues.set(a.origin, (q = { list: [], head: 0 }));
    q.list.push(a);
    let pe = this.pendingEpochs.get(a.origin);
    if (pe === undefined) this.pendingEpochs.set(a.origin, (pe = new Map<string, number>()));
    const ek = sameOriginKey(a);
    pe.set(ek, (pe.get(ek) ?? 0) + 1);
    this.winOf(a.win).pending++;
    if (!this.first.has(a.win.id)) this.first.set(a.win.id, new Map());
    this.held++;
    this.sinceUnstick++;
    if (this.held > this.peakHeld) this.peakHeld = this.held;
    return true;
  }

  private winOf(win: WinInfo): WinRaces {
    let w = this.wins.get(win.id);
    if (w === undefined)
      this.wins.set(
        win.id,
        (w = {
          win,
          kept: [],
          pending: 0,
          index: new Map(),
          wide: [],
          fresh: new Map(),
          classes: new Map(),
          swept: 0,
          freed: false,
        }),
      );
    return w;
  }

  /** Every member freed the window: once nothing of it is pending, what it kept is dropped. */
  freed(win: WinInfo): void {
    const w = this.wins.get(win.id);
    if (w === undefined) return;
    w.freed = true;
    this.settle(false);
    if (w.pending === 0) this.drop(w);
  }

  /** Settles what can be (each origin's accesses in order), comparing each with what is kept. `all`: the run ended. */
  settle(all: boolean): void {
    for (const [origin, q] of this.queues) {
      while (q.head < q.list.length) {
        const a = q.list[q.head] as Access;
        if (!all && !this.ready(a)) {
          if (a.done === undefined || this.sinceUnstick < Math.min(64, this.max >> 4)) break;
          this.sinceUnstick = 0;
          this.host.unstick();
          if (!this.ready(a)) break;
        }
        q.list[q.head] = undefined as unknown as Access;
        q.head++;
        this.settled(a);
      }
      if (q.head === q.list.length) this.queues.delete(origin);
      else if (q.head > 1024 && q.head * 2 > q.list.length) {
        q.list = q.list.slice(q.head);
        q.head = 0;
      }
    }
  }

  private ready(a: Access): boolean {
    return a.done !== undefined && this.host.clockKnown(a) && bytesOf(a) !== undefined;
  }

  private settled(a: Access): void {
    const pe = this.pendingEpochs.get(a.origin);
    const ek = sameOriginKey(a);
    const n = (pe?.get(ek) ?? 1) - 1;
    if (n > 0) pe?.set(ek, n);
    else if (pe !== undefined) {
      pe.delete(ek);
      if (pe.size === 0) this.pendingEpochs.delete(a.origin);
    }
    const w = this.winOf(a.win);
    w.pending--;
    const x = bytesOf(a);
    if (x === undefined) {
      // Never compared (unknown bytes): not kept.
      this.gone(a);
      if (w.freed && w.pending === 0) this.drop(w);
      return;
    }
    const first = this.first.get(a.win.id) as Map<string, Pair>;
    // An access spanning several buckets is in each: compared once.
    let seen: Set<Access> | undefined;
    const compare = (list: readonly Access[] | undefined, many: boolean) => {
      if (list === undefined) return;
      for (const k of list) {
        if (many) {
          seen ??= new Set();
          if (seen.has(k)) continue;
          seen.add(k);
        }
        if (k.target !== a.target) continue;
        const y = bytesOf(k);
        if (y === undefined || !overlaps(k, y, a, x) || !conflicting(k, a) || !this.host.concurrent(k, a))
          continue;
        keepFirst(first, key(k, a) < 0 ? [k, a] : [a, k]);
      }
    };
    const lo = Math.floor(x.lo / BUCKET);
    const hi = Math.floor((x.hi - 1) / BUCKET);
    const byOrigin = w.index.get(a.target);
    if (byOrigin !== undefined)
      for (const [o, buckets] of byOrigin) {
        if (o === a.origin) continue;
        if (hi - lo < MAX_BUCKETS) for (let b = lo; b <= hi; b++) compare(buckets.get(b), true);
        else for (const l of buckets.values()) compare(l, true);
      }
    seen = undefined;
    if (w.wide.length !== 0)
      compare(
        w.wide.filter((k) => k.origin !== a.origin && k.target === a.target),
        false,
      );
    compare(w.fresh.get(`${a.origin}|${a.epoch}`), false);
    this.keep(w, a);
    if (w.freed && w.pending === 0) {
      this.drop(w);
      return;
    }
    // When what was kept after the last sweep doubled, or went halfway from there to the bound.
    if (w.kept.length > Math.min(2 * w.swept + 64, w.swept + (this.max - w.swept) / 2)) this.sweep(w);
  }

  private keep(w: WinRaces, a: Access): void {
    w.kept.push({ a, cls: undefined });
    this.indexAdd(w, a);
    const f = `${a.origin}|${a.epoch}`;
    const l = w.fresh.get(f);
    if (l === undefined) w.fresh.set(f, [a]);
    else l.push(a);
  }

  private indexAdd(w: WinRaces, a: Access): void {
    const x = bytesOf(a);
    if (x === undefined) return;
    const lo = Math.floor(x.lo / BUCKET);
    const hi = Math.floor((x.hi - 1) / BUCKET);
    if (hi - lo >= MAX_BUCKETS) {
      w.wide.push(a);
      return;
    }
    let t = w.index.get(a.target);
    if (t === undefined) w.index.set(a.target, (t = new Map<number, Map<number, Access[]>>()));
    let m = t.get(a.origin);
    if (m === undefined) t.set(a.origin, (m = new Map<number, Access[]>()));
    for (let b = lo; b <= hi; b++) {
      const l = m.get(b);
      if (l === undefined) m.set(b, [a]);
      else l.push(a);
    }
  }

  /** Drops what is retired and folds the rest into its class; the index is rebuilt. */
  private sweep(w: WinRaces): void {
    const heard = new Map<number, number>();
    const heardOf = (o: number): number => {
      let h = heard.get(o);
      if (h === undefined) heard.set(o, (h = this.heardOf(w.win, o)));
      return h;
    };
    const kept: Kept[] = [];
    for (const k of w.kept) {
      const a = k.a;
      if (a.done !== undefined && heardOf(a.origin) > a.done) {
        // Retired; a class goes with its last member (completed last: retired in the same sweep as its first).
        if (k.cls !== undefined && w.classes.get(k.cls)?.last === a) w.classes.delete(k.cls);
        this.gone(a);
        continue;
      }
      if (k.cls !== undefined || !this.foldable(a)) {
        kept.push(k);
        continue;
      }
      const cls = this.classKey(a);
      const c = w.classes.get(cls);
      if (c === undefined) {
        w.classes.set(cls, { first: a, last: a });
        k.cls = cls;
        kept.push(k);
      } else if ((a.done ?? Infinity) >= (c.last.done ?? Infinity)) {
        if (c.last !== c.first) this.gone(c.last);
        c.last = a;
        k.cls = cls;
        kept.push(k);
      } else this.gone(a);
    }
    // A last member replaced in its class may have been pushed before its successor: kept are the class's two.
    w.kept = kept.filter((k) => {
      if (k.cls === undefined) return true;
      const c = w.classes.get(k.cls);
      return c !== undefined && (c.first === k.a || c.last === k.a);
    });
    w.index.clear();
    w.wide.length = 0;
    w.fresh.clear();
    for (const k of w.kept) {
      this.indexAdd(w, k.a);
      if (k.cls !== undefined) continue;
      const f = `${k.a.origin}|${k.a.epoch}`;
      const l = w.fresh.get(f);
      if (l === undefined) w.fresh.set(f, [k.a]);
      else l.push(k.a);
    }
    w.swept = w.kept.length;
  }

  private gone(a: Access): void {
    this.held--;
    this.host.release(a);
  }

  private drop(w: WinRaces): void {
    for (const k of w.kept) this.gone(k.a);
    w.kept = [];
    this.wins.delete(w.win.id);
    if (this.first.get(w.win.id)?.size === 0) this.first.delete(w.win.id);
  }

  /**
   * The least of origin `o`'s steps that every other member of the window heard of (its component) at the first
   * point where that member may still make an access not settled yet: its oldest pending access (its clock), or
   * where the clock run is. 0 without clocks.
   */
  private heardOf(win: WinInfo, o: number): number {
    let least = Infinity;
    for (const r of win.comm.members) {
      if (r === o) continue;
      const c = this.oldestPendingClock(r) ?? this.host.clockNow(r);
      if (c === undefined) return 0;
      const h = c[o] ?? 0;
      if (h < least) least = h;
    }
    return least;
  }

  private oldestPendingClock(r: number): Int32Array | undefined {
    const q = this.queues.get(r);
    const a = q?.list[q.head];
    return a === undefined ? undefined : this.host.clockAt(a);
  }

  /**
   * May the settled access be folded into its class? Its origin's accesses that may race with it all made and
   * settled (its origin's pairs compared): those of its epoch, target and flush count, of which none can come once
   * the access completed (a flush of the target counts one more for the later ones; an unlock ends the epoch) —
   * but a rank's own loads and stores, counted with no flush, while its epoch of a lock of itself (or of a shared
   * window's segment) is open. No fetching atomic on its window before it, and every other rank's pending
   * accesses starting no earlier than what the access's origin had heard of that rank (none of them can be ordered
   * before it while racing with another member).
   */
  private foldable(a: Access): boolean {
    if (a.done === undefined || this.afterFetch.has(a)) return false;
    if (this.pendingEpochs.get(a.origin)?.has(sameOriginKey(a)) === true) return false;
    if ((a.local !== undefined || a.target === a.origin || a.win.shared) && this.host.epochOpen(a))
      return false;
    const c = this.host.clockAt(a);
    if (c === undefined) return false;
    for (const [r, q] of this.queues) {
      if (r === a.origin) continue;
      const b = q.list[q.head];
      if (b !== undefined && b.pos < (c[r] ?? 0)) return false;
    }
    return true;
  }

  /** What the rules read of an access but its epoch instance, flush count, order, point and completion. */
  private classKey(a: Access): string {
    const l = a.local;
    let t = 0;
    if (a.dtype !== undefined) {
      t = this.dtypeIds.get(a.dtype) ?? 0;
      if (t === 0) this.dtypeIds.set(a.dtype, (t = this.nextDtype++));
    }
    const kind = a.epoch.slice(0, a.epoch.indexOf(':'));
    return `${a.origin}|${a.target}|${a.disp}|${a.site}|${a.fn.name}|${a.kind}|${a.op ?? ''}|${a.count}|${t}|${kind}|${a.passive ? 1 : 0}|${a.exclusive ? 1 : 0}|${l === undefined ? '' : `${l.lo}:${l.hi}:${l.store ? 1 : 0}:${l.atomic ? 1 : 0}`}`;
  }

  /** The run ended (the clock run too): every access left is compared, as the end of the run did. */
  finish(): void {
    this.settle(true);
  }
}

const key = (a: Access, b: Access) => a.origin - b.origin || a.order - b.order;

/** What two accesses of one origin share when they may race: the epoch, the target and the flushes before them. */
const sameOriginKey = (a: Access) => `${a.epoch}|${a.target}|${a.flushes}`;

/** Keeps the first pair (by (origin, order) of each side) of each pair of call sites. */
function keepFirst(first: Map<string, Pair>, pair: Pair): void {
  const [p, q] = pair;
  const u = `${p.origin}@${p.site}`;
  const v = `${q.origin}@${q.site}`;
  const s = u < v ? `${u}|${v}` : `${v}|${u}`;
  const had = first.get(s);
  if (had === undefined || key(p, had[0]) < 0 || (p === had[0] && key(q, had[1]) < 0)) first.set(s, pair);
}

/** The pairs kept, as (earlier, later), sorted the way the end-of-run search listed them. */
export function sortedPairs(m: ReadonlyMap<string, Pair>): Pair[] {
  return [...m.values()].sort((u, v) => key(u[0], v[0]) || key(u[1], v[1]));
}
