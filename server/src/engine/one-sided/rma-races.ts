/**
 * Finding the racing pairs among one epoch's (or one window's) accesses, and the rma-race finding for a pair.
 * Accesses are grouped by target and swept in byte order, so only accesses whose spans meet are compared.
 */
import { bytesOf, conflicting, overlaps, verb, type Access, type Bytes } from './rma-conflict';
import type { EngineFinding } from '../model/types';

/** Pairs of accesses compared in one search: beyond, silence rather than a stalled analyzer. */
export const MAX_PAIRS = 2_000_000;

export type Pair = readonly [Access, Access];

/** Racing pairs, each as (earlier, later) by (origin, order), sorted the same way: independent of interleaving. */
export function racingPairs(
  list: readonly Access[],
  concurrent: (a: Access, b: Access) => boolean,
  cut?: () => void,
): Pair[] {
  const key = (a: Access, b: Access) => a.origin - b.origin || a.order - b.order;
  const out: Pair[] = [];
  const byTarget = new Map<number, { a: Access; x: Bytes }[]>();
  for (const a of list) {
    const x = bytesOf(a);
    if (x === undefined) continue;
    const l = byTarget.get(a.target) ?? [];
    l.push({ a, x });
    byTarget.set(a.target, l);
  }
  let budget = MAX_PAIRS;
  for (const l of byTarget.values()) {
    l.sort((p, q) => p.x.lo - q.x.lo || key(p.a, q.a));
    let active: { a: Access; x: Bytes }[] = [];
    for (const q of l) {
      active = active.filter((p) => p.x.hi > q.x.lo);
      for (const p of active) {
        if (--budget < 0) {
          cut?.(); // the report names the check as partial (Engine.skippedChecks)
          return out.sort((u, v) => key(u[0], v[0]) || key(u[1], v[1]));
        }
        if (!overlaps(p.a, p.x, q.a, q.x) || !conflicting(p.a, q.a) || !concurrent(p.a, q.a)) continue;
        out.push(key(p.a, q.a) < 0 ? [p.a, q.a] : [q.a, p.a]);
      }
      active.push(q);
    }
  }
  return out.sort((u, v) => key(u[0], v[0]) || key(u[1], v[1]));
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
  return {
    kind: 'rma-race',
    severity: 'error',
    message:
      `RMA race on ${a.win.name}: ${who(a, a.origin === b.origin ? 'its' : '')} (${verb(a)}) and ${who(b, a.origin === b.origin ? 'its later' : '')} (${verb(b)}) ` +
      `touch the same bytes of target rank ${a.target}'s window (${disp}) ${where(a, b)}: the result is undefined. ` +
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
