/**
 * Finding the racing pairs among one epoch's (or one window's) accesses, and the rma-race finding for a pair.
 *
 * Only the first racing pair of each pair of call sites matters (a finding is one pair of call sites on a window,
 * reported once), so the search is over classes of accesses, not over accesses: accesses equal in everything the
 * rules read but their order (the same origin, call site, target bytes, type, op, epoch…: a loop's iterations into
 * one place) are one class, represented by its first two. Classes are grouped by target and swept in byte order,
 * so only classes whose spans meet are compared, and a class is compared only with the active classes of the
 * other groups of compatibleGroup(): however many accumulates of one op go into one place, or reads of it, they are
 * not compared with each other. The cost follows the distinct accesses and how many of them meet, not the square
 * of the accesses.
 */
import {
  bytesOf,
  compatibleGroup,
  conflicting,
  overlaps,
  verb,
  type Access,
  type Bytes,
} from './rma-conflict';
import type { EngineFinding } from '../model/types';

/** Pairs of classes compared in one search: beyond, silence rather than a stalled analyzer. */
export const MAX_PAIRS = 2_000_000;

export type Pair = readonly [Access, Access];

/** One class of equal accesses: the first two by (origin, order) — the only ones a first pair can take. */
interface Class {
  a: Access;
  b: Access | undefined;
  readonly x: Bytes;
  readonly group: string | undefined;
  /** What `classOf` said of its accesses. */
  readonly k: string;
}

const key = (a: Access, b: Access) => a.origin - b.origin || a.order - b.order;

/**
 * Equal in everything the race rules read of an access made in a fence or access epoch but its order and replay
 * position: two alike accesses race with the same others.
 */
function alike(a: Access, b: Access): boolean {
  const l = a.local;
  const m = b.local;
  return (
    a.origin === b.origin &&
    a.target === b.target &&
    a.disp === b.disp &&
    a.site === b.site &&
    a.win === b.win &&
    a.fn.name === b.fn.name &&
    a.kind === b.kind &&
    a.op === b.op &&
    a.count === b.count &&
    a.dtype === b.dtype &&
    a.epoch === b.epoch &&
    a.passive === b.passive &&
    a.exclusive === b.exclusive &&
    a.flushes === b.flushes &&
    (l === undefined
      ? m === undefined
      : m !== undefined && l.lo === m.lo && l.hi === m.hi && l.store === m.store && l.atomic === m.atomic)
  );
}

/**
 * Values by a hash of an access's target, displacement, origin, call site and epoch (alike accesses share all five;
 * a collision only lengthens a list): one value, or several, per key. No string per access (an epoch of puts to
 * distinct places holds a map entry each), and no walk over the other origins' or sites' classes at a place (a
 * thousand ranks accumulating into one place).
 */
class ByPlace<T extends object> {
  private readonly m = new Map<number, T | T[]>();

  private static hash(a: Access): number {
    let h = Math.imul(a.target | 0, 0x01000193);
    h = Math.imul(h ^ ((a.disp % 0x7fffffff) | 0), 0x01000193);
    h = Math.imul(h ^ (a.origin | 0), 0x01000193);
    h = Math.imul(h ^ ((a.site % 0x7fffffff) | 0), 0x01000193);
    // The epoch: passive-target accesses of one origin into one place over a run are each in their own epoch.
    for (let i = 0; i < a.epoch.length; i++) h = Math.imul(h ^ a.epoch.charCodeAt(i), 0x01000193);
    return h;
  }

  /** The values at the access's key (none: an empty list). */
  at(a: Access): readonly T[] {
    const here = this.m.get(ByPlace.hash(a));
    return here === undefined ? [] : Array.isArray(here) ? here : [here];
  }

  add(a: Access, v: T): void {
    const h = ByPlace.hash(a);
    const here = this.m.get(h);
    if (here === undefined) this.m.set(h, v);
    else if (Array.isArray(here)) here.push(v);
    else this.m.set(h, [here, v]);
  }
}

/**
 * The accesses of one fence or access epoch, kept for its race search: the first two of each class (alike but for
 * their order), which are all the search can take, so a loop into one place keeps two accesses, not one per
 * iteration. At most `max` are kept; beyond, `add` says false (the check is then partial).
 */
export class EpochAccesses {
  /** By place once the epoch holds a few (a lock epoch of one or two accesses makes no map). */
  private places: ByPlace<Access> | undefined;
  readonly list: Access[] = [];
  constructor(private readonly max: number) {}

  /** False when the access was not kept for want of room. */
  add(a: Access): boolean {
    return this.keep(a) !== 'full';
  }

  /** Kept; or 'alike', a third of its class (a race it takes part in, the first two take part in); or 'full'. */
  keep(a: Access): 'kept' | 'alike' | 'full' {
    let n = 0;
    for (const x of this.places === undefined ? this.list : this.places.at(a)) if (alike(x, a)) n++;
    if (n >= 2) return 'alike';
    if (this.list.length >= this.max) return 'full';
    if (this.places !== undefined) this.places.add(a, a);
    else if (this.list.length >= 8) {
      this.places = new ByPlace<Access>();
      for (const x of this.list) this.places.add(x, x);
      this.places.add(a, a);
    }
    this.list.push(a);
    return 'kept';
  }
}

/** The call sites of a pair as report() keys them. */
function sitesOf(a: Access, b: Access): string {
  const u = `${a.origin}@${a.site}`;
  const v = `${b.origin}@${b.site}`;
  return `${a.win.id}|${u < v ? u : v}|${u < v ? v : u}`;
}

/**
 * For each pair of call sites, the first of its racing pairs, each as (earlier, later) by (origin, order), sorted the
 * same way: independent of interleaving. The callers report the first pair of call sites not reported yet, or each
 * once: what they would report from every racing pair. `classOf` names what `concurrent` reads of an access beyond
 * its fields other than order and its completion (the replay position and completion of passive-target accesses;
 * the order itself when it matters): accesses that differ there are never one class.
 */
export function racingPairs(
  list: readonly Access[],
  concurrent: (a: Access, b: Access) => boolean,
  cut?: () => void,
  classOf?: (a: Access) => string,
): Pair[] {
  // Classes by target (the sweep's unit), found by place.
  const places = new ByPlace<Class>();
  const byTarget = new Map<number, Class[]>();
  for (const a of list) {
    const x = bytesOf(a);
    if (x === undefined) continue;
    const k = classOf?.(a) ?? '';
    let c: Class | undefined;
    for (const y of places.at(a))
      if (y.k === k && alike(y.a, a)) {
        c = y;
        break;
      }
    if (c === undefined) {
      c = { a, b: undefined, x, group: compatibleGroup(a, x), k };
      places.add(a, c);
      const l = byTarget.get(a.target);
      if (l === undefined) byTarget.set(a.target, [c]);
      else l.push(c);
    } else if (key(a, c.a) < 0) {
      c.b = c.a;
      c.a = a;
    } else if (c.b === undefined || key(a, c.b) < 0) c.b = a;
  }
  const first = new Map<string, Pair>();
  const consider = (p: Access, q: Access) => {
    const pair: Pair = key(p, q) < 0 ? [p, q] : [q, p];
    const s = sitesOf(p, q);
    const had = first.get(s);
    if (had === undefined || key(pair[0], had[0]) < 0 || (pair[0] === had[0] && key(pair[1], had[1]) < 0))
      first.set(s, pair);
  };
  const done = () => [...first.values()].sort((u, v) => key(u[0], v[0]) || key(u[1], v[1]));
  let budget = MAX_PAIRS;
  for (const classes of byTarget.values()) {
    classes.sort((p, q) => p.x.lo - q.x.lo || key(p.a, q.a));
    // The classes whose span the sweep is in, by group ('' for those compared with every other).
    const active = new Map<string, { list: Class[]; kept: number }>();
    for (const q of classes) {
      if (q.b !== undefined) {
        // Two accesses of one class: the same origin, at the same bytes.
        if (--budget < 0) {
          cut?.(); // the report names the check as partial (Engine.skippedChecks)
          return done();
        }
        if (overlaps(q.a, q.x, q.b, q.x) && conflicting(q.a, q.b) && concurrent(q.a, q.b)) consider(q.a, q.b);
      }
      for (const [g, bucket] of active) {
        if (g !== '' && g === q.group) continue; // never conflicting with each other
        const live = bucket.list.filter((p) => p.x.hi > q.x.lo);
        if (live.length === 0) {
          active.delete(g);
          continue;
        }
        bucket.list = live;
        bucket.kept = live.length;
        for (const p of live) {
          if (--budget < 0) {
            cut?.();
            return done();
          }
          if (!overlaps(p.a, p.x, q.a, q.x) || !conflicting(p.a, q.a) || !concurrent(p.a, q.a)) continue;
          consider(p.a, q.a);
        }
      }
      const g = q.group ?? '';
      let bucket = active.get(g);
      if (bucket === undefined) active.set(g, (bucket = { list: [], kept: 0 }));
      bucket.list.push(q);
      // A group nothing else touched keeps the spans the sweep left: dropped once the list doubled.
      if (bucket.list.length > 2 * bucket.kept + 16) {
        bucket.list = bucket.list.filter((p) => p.x.hi > q.x.lo);
        bucket.kept = bucket.list.length;
      }
    }
  }
  return done();
}

function where(a: Access, b: Access): string {
  if (a.origin === b.origin) {
    if (a.passive) return 'in one passive-target epoch with no MPI_Win_flush of that target between them';
    if (a.epoch.startsWith('pscw')) return 'in one access epoch (MPI_Win_start … MPI_Win_complete)';
    return 'in one fence epoch (between two MPI_Win_fence calls)';
  }
  if (a.local !== undefined && b.local !== undefined)
    return 'with nothing ordering them (no MPI_Win_sync and barrier or message between them, no exclusive lock of the target around either)';
  const local = passiveLocal(a, b);
  if (local !== undefined) {
    const other = local === a ? b : a;
    const unlocked =
      local.origin === local.target
        ? 'the target does not lock its own window'
        : `rank ${local.origin} does not lock rank ${local.target} around its direct access`;
    return `while rank ${other.origin}'s passive-target epoch on it (MPI_Win_lock or MPI_Win_lock_all … unlock) is not ordered with them: ${local.epoch.startsWith('lock:') ? 'both ranks hold shared locks of the target' : unlocked}, and no message or barrier orders them after the unlock or flush`;
  }
  if (a.passive) return 'in passive-target epochs (shared locks) that nothing orders';
  if (a.epoch.startsWith('pscw'))
    return 'in the same exposure epoch of the target (its MPI_Win_post … MPI_Win_wait)';
  return 'in the same fence epoch (between two MPI_Win_fence calls)';
}

/** The target's own load or store of a pair in passive-target epochs (memcheck mode), if one is. */
function passiveLocal(a: Access, b: Access): Access | undefined {
  if (!a.passive || !b.passive) return undefined;
  return a.local !== undefined ? a : b.local !== undefined ? b : undefined;
}

export function raceFinding(a: Access, b: Access): EngineFinding {
  const at = (x: Access) => `rank ${x.target}, displacement ${x.disp}`;
  const detail = (x: Access) =>
    x.local !== undefined
      ? x.origin === x.target
        ? `a ${x.local.store ? 'store' : 'load'} of its own window memory (bytes ${x.local.lo}-${x.local.hi - 1} of ${x.win.name})`
        : `a direct ${x.local.store ? 'store into' : 'load of'} rank ${x.target}'s segment of shared ${x.win.name} (bytes ${x.local.lo}-${x.local.hi - 1})`
      : `${x.fn.name} ${verb(x)} ${x.win.name} at ${at(x)} (${x.count} × ${x.dtype?.name ?? `${x.dtype?.size ?? '?'}-byte type`})`;
  // A target's own access is in bytes from the window's start, a one-sided call's in displacement units.
  const place = (x: Access) =>
    x.local !== undefined ? `bytes ${x.local.lo}-${x.local.hi - 1}` : `displacement ${x.disp}`;
  const disp =
    a.local === undefined && b.local === undefined
      ? a.disp === b.disp
        ? `displacement ${a.disp}`
        : `displacements ${a.disp} and ${b.disp}`
      : `${place(a)} and ${place(b)}`;
  const who = (x: Access, own: string) =>
    x.local !== undefined
      ? `rank ${x.origin}'s ${x.origin === x.target ? 'own' : 'direct'} ${x.local.store ? 'store' : 'load'}`
      : own === 'its later'
        ? `its later ${x.fn.name}`
        : `rank ${x.origin}'s ${x.fn.name}`;
  // One origin's accumulates of different basic types (accumulatesOrdered): MPI orders them only per datatype, so
  // the result is undefined by the standard, but Open MPI and MPICH apply one origin's accumulates to a target in
  // order, and codes rely on it (NWChem's ARMCI-MPI: MPI_REPLACE then MPI_SUM on its own window's first bytes).
  // A portability defect, not a race these MPIs show: a warning.
  const typesOnly = a.origin === b.origin && a.kind === 'acc' && b.kind === 'acc';
  return {
    kind: 'rma-race',
    severity: typesOnly ? 'warning' : 'error',
    message:
      `RMA race on ${a.win.name}: ${who(a, a.origin === b.origin ? 'its' : '')} (${verb(a)}) and ${who(b, a.origin === b.origin ? 'its later' : '')} (${verb(b)}) ` +
      `touch the same bytes of target rank ${a.target}'s window (${disp}) ${where(a, b)}: ` +
      (typesOnly
        ? `their datatypes differ (${a.dtype?.name ?? '?'}, ${b.dtype?.name ?? '?'}), and MPI orders one origin's accumulates only per datatype, so the result is undefined by the standard (Open MPI and MPICH apply them in order). `
        : 'the result is undefined. ') +
      (a.local !== undefined && b.local !== undefined
        ? `Order them: MPI_Win_sync, then MPI_Barrier (or a message), then MPI_Win_sync on the other rank; or lock rank ${a.target} exclusively around each (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, ${a.target}, …)); or touch disjoint bytes.`
        : passiveLocal(a, b) !== undefined
          ? `Lock the window of rank ${a.target} exclusively around its own loads and stores (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, ${a.target}, …) … MPI_Win_unlock), or order them with a message or barrier after the other rank's MPI_Win_unlock, or touch disjoint bytes.`
          : 'Separate the two accesses with a synchronization (MPI_Win_fence, MPI_Win_flush, MPI_Win_unlock), make them target disjoint locations, ' +
            'or use MPI_Accumulate with one op when concurrent updates are meant.'),
    locations: [a, b].map((x) => ({
      rank: x.origin,
      site: x.site,
      call: x.local !== undefined ? (x.local.store ? 'store' : 'load') : x.fn.name,
      detail: detail(x),
    })),
  };
}
