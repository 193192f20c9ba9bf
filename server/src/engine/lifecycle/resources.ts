/**
 * Handles a rank creates and must free before MPI_Finalize (communicators, datatypes, groups, ops, windows, attached
 * buffers; requests are in RankTrack), and the order of MPI_Init / MPI_Finalize. Reported at the end of the run.
 */
import type { CheckContext } from '../model/check-context';
import { objectArray } from '../model/elements';
import { num, paramName } from '../model/fn-roles';
import { functions } from '../../protocol/spec';
import type { EndHow, EngineFinding, CallEnter, ExitView, FunctionSpec, RawLocation } from '../model/types';
import { addTo } from '../model/group-by';

interface Created {
  readonly what: string;
  readonly fn: string;
  readonly site: number;
}

const OUT_ROLES: readonly (readonly [string, string])[] = [
  ['comm_out', 'communicator'],
  ['datatype_out', 'datatype'],
  ['group_out', 'group'],
  ['op_out', 'op'],
  ['win_out', 'window'],
  ['file_out', 'file'],
];

/**
 * (parameter name, resource) of the handles a function creates, by function id (not a Map keyed by the spec
 * object, nor a keyed lookup by class per call: each cost ~40 bytes of garbage per call in
 * bench/engine-throughput's sampling heap profile, 10% of the engine's bytes). Filled for every function when the
 * module loads, not at a function's first call: a function first called after the JIT had compiled the EXIT path
 * (a job's first collective, its MPI_Finalize) took the cache's fill path the compiled code had never seen, and
 * the code was thrown away and compiled again (`--trace-deopt`: onExit, "insufficient type feedback for call").
 * `findOutHandles` is a function of its own: a function whose closure captures a parameter (`fn` in the
 * flatMap's callback) allocates its context at every call, even when it returns before making the closure.
 */
function outHandles(fn: FunctionSpec): readonly (readonly [string, string])[] {
  return (fn.id >= 0 ? outCache[fn.id] : undefined) ?? findOutHandles(fn);
}

function findOutHandles(fn: FunctionSpec): readonly (readonly [string, string])[] {
  return OUT_ROLES.flatMap(([role, what]) => {
    const name = paramName(fn, role);
    return name === undefined ? [] : [[name, what] as const];
  });
}

const outCache: readonly (readonly (readonly [string, string])[])[] = functions.map(findOutHandles);

const FREES: Readonly<Record<string, string>> = {
  comm_free: 'comm',
  type_free: 'datatype',
  group_free: 'group',
  op_free: 'op',
  win_free: 'win',
};

/** Collective calls that free a handle (MPI_File_close is a collective over the file). */
const FREES_COLL: Readonly<Record<string, string>> = {
  file_close: 'file',
};

/** The parameter whose handle each function frees (FREES, FREES_COLL), null for none: by function id, filled once. */
const freedCache: readonly (string | null)[] = functions.map(findFreed);

function findFreed(fn: FunctionSpec): string | null {
  return FREES[fn.cls] ?? (fn.coll !== undefined ? FREES_COLL[fn.coll] : undefined) ?? null;
}

function freedParam(fn: FunctionSpec): string | undefined {
  return (fn.id >= 0 ? freedCache[fn.id] : findFreed(fn)) ?? undefined;
}

/** The call that frees each kind of handle, for the advice. */
const FREE_CALL: Readonly<Record<string, string>> = {
  communicator: 'MPI_Comm_free',
  datatype: 'MPI_Type_free',
  group: 'MPI_Group_free',
  op: 'MPI_Op_free',
  window: 'MPI_Win_free',
  file: 'MPI_File_close',
};

/** Calls that MPI allows before MPI_Init and after MPI_Finalize. */
const ANYTIME = new Set(['MPI_Initialized', 'MPI_Finalized', 'MPI_Get_version', 'MPI_Get_library_version']);

export class Resources {
  private readonly live = new Map<number, Map<number, Created>>();
  private readonly initSite = new Map<number, number>();
  /** initSite's ranks by rank (asked at every call: an array index, not a Map lookup). */
  private readonly inited: boolean[] = objectArray();

  private of(rank: number): Map<number, Created> {
    let m = this.live.get(rank);
    if (m === undefined) this.live.set(rank, (m = new Map<number, Created>()));
    return m;
  }

  /** Calls outside MPI_Init..MPI_Finalize, per function: one finding per function, with every rank, at the end. */
  private readonly outside = new Map<string, RawLocation[]>();

  onEnter(e: CallEnter, ended: EndHow | undefined): void {
    const cls = e.fn.cls;
    if (cls === 'init') {
      this.initSite.set(e.rank, e.site);
      while (this.inited.length <= e.rank) this.inited.push(false);
      this.inited[e.rank] = true;
    } else if ((ended === 'finalized' || this.inited[e.rank] !== true) && !ANYTIME.has(e.fn.name)) {
      // (The rank's state first: the name's Set lookup ran for every call while it was tested first.)
      const when = ended === 'finalized' ? 'after MPI_Finalize' : 'before MPI_Init';
      const key = `${e.fn.name} ${when}`;
      const locs = this.outside.get(key) ?? [];
      // The first such call of each rank is enough: MPI usually aborts on it.
      if (!locs.some((l) => l.rank === e.rank))
        locs.push({ rank: e.rank, site: e.site, call: e.fn.name, detail: key });
      this.outside.set(key, locs);
    }
    const free = freedParam(e.fn);
    if (free !== undefined) this.of(e.rank).delete(num(e, 0, free));
    if (cls === 'buffer_detach') this.of(e.rank).delete(-1);
  }

  onExit(e: ExitView, enter: CallEnter): void {
    if (e.returnCode !== 0) return;
    // By index: destructuring each entry in a for-of allocated an iterator per EXIT.
    const outs = outHandles(e.fn);
    for (let i = 0; i < outs.length; i++) {
      const [name, what] = outs[i] as readonly [string, string];
      const h = e.out(name);
      // MPI_Comm_split with MPI_UNDEFINED and the like give the null handle: nothing to free.
      if (typeof h === 'number' && h !== 0) this.of(e.rank).set(h, { what, fn: e.fn.name, site: enter.site });
    }
    // One attached buffer at a time (MPI allows no more): keyed -1.
    if (e.fn.cls === 'buffer_attach')
      this.of(e.rank).set(-1, { what: 'attached buffer', fn: e.fn.name, site: enter.site });
  }

  /** Null handles of predefined objects may be announced with values that look like created ones; drop frees of unknown handles. */
  leaks(st: CheckContext): EngineFinding[] {
    const groups = new Map<string, RawLocation[]>();
    const add = (key: string, loc: RawLocation) => addTo(groups, key, loc);
    for (const t of st.tracks) {
      if (t.ended !== 'finalized') continue; // a crashed or deadlocked rank had no chance to free
      for (const c of this.live.get(t.rank)?.values() ?? []) {
        add(`${c.what}|${c.fn}`, {
          rank: t.rank,
          site: c.site,
          call: c.fn,
          detail: `${c.what} created by ${c.fn}, never freed`,
        });
      }
      const p = t.reqs;
      for (const req of [...t.requests.values(), ...t.earlyDone]) {
        if (!p.misused(req)) {
          const fn = p.fn(req).name;
          add(`request|${fn}`, {
            rank: t.rank,
            site: p.site(req),
            call: fn,
            detail: `request of ${fn} ${requestState(p.persistent(req), p.active(req))}`,
          });
        }
      }
    }
    const out: EngineFinding[] = [];
    for (const [key, locations] of groups) {
      const [what, fn] = key.split('|') as [string, string];
      const ranks = [...new Set(locations.map((l) => l.rank))];
      const it = locations.length === 1 ? 'it' : 'them';
      const free =
        what === 'request'
          ? `Complete ${it} with MPI_Wait/MPI_Test, or free ${it} with MPI_Request_free`
          : what === 'attached buffer'
            ? `Detach ${it} with MPI_Buffer_detach`
            : `Free ${it} with ${FREE_CALL[what] ?? 'the matching free call'}`;
      out.push({
        kind: 'resource-leak',
        severity: 'warning',
        message: `${locations.length === 1 ? `A ${what}` : `${locations.length} ${what}s`} created by ${fn} on rank${ranks.length > 1 ? 's' : ''} ${ranks.join(',')} ${locations.length === 1 ? 'was' : 'were'} not freed before MPI_Finalize. ${free} before MPI_Finalize.`,
        locations: onePerSite(locations, what),
      });
    }
    return out;
  }

  /** Calls outside MPI_Init..MPI_Finalize, and ranks that returned from main without MPI_Finalize (at their MPI_Init). */
  callOrder(st: CheckContext): EngineFinding[] {
    const out: EngineFinding[] = [];
    for (const [key, unsorted] of this.outside) {
      const locations = [...unsorted].sort((a, b) => a.rank - b.rank);
      const ranks = locations.map((l) => l.rank);
      const after = key.endsWith('after MPI_Finalize');
      out.push({
        kind: 'call-order',
        severity: 'error',
        message: `Rank${ranks.length > 1 ? 's' : ''} ${ranks.join(',')} call${ranks.length > 1 ? '' : 's'} ${key}. ${after ? 'Make every MPI call before MPI_Finalize.' : 'Call MPI_Init (or MPI_Init_thread) first.'}`,
        locations,
      });
    }
    // A rank that never got into MPI_Init (it failed before) is the call-order finding above, not this one.
    // Nor is a rank that ended inside an MPI call that never returned: the library ended the process there (MPICH
    // aborts from inside a call it finds erroneous), the program did not forget MPI_Finalize.
    const gone = st.tracks.filter(
      (t) =>
        t.ended === 'exit-without-finalize' &&
        this.initSite.has(t.rank) &&
        (t.cur === undefined || t.cur.exited),
    );
    if (gone.length === 0) return out;
    const ranks = gone.map((t) => t.rank);
    return [
      ...out,
      {
        kind: 'call-order',
        severity: 'error',
        message: `Rank${ranks.length > 1 ? 's' : ''} ${ranks.join(',')} exited without calling MPI_Finalize. Call MPI_Finalize on every rank before returning from main.`,
        locations: gone.map((t) => ({
          rank: t.rank,
          site: this.initSite.get(t.rank) ?? 0,
          call: 'MPI_Init',
          detail: 'MPI_Init never paired with MPI_Finalize',
        })),
      },
    ];
  }
}

/** One location per rank and call site: "3 requests of MPI_Isend …" rather than three equal lines. */
function onePerSite(locations: readonly RawLocation[], what: string): RawLocation[] {
  const bySite = new Map<string, { loc: RawLocation; n: number }>();
  for (const l of locations) {
    const key = `${l.rank}|${l.site}`;
    const seen = bySite.get(key);
    if (seen === undefined) bySite.set(key, { loc: l, n: 1 });
    else seen.n++;
  }
  return [...bySite.values()].map(({ loc, n }) =>
    n === 1 || !loc.detail.startsWith(`${what} `)
      ? loc
      : { ...loc, detail: `${n} ${what}s${loc.detail.slice(what.length)}` },
  );
}

/**
 * What became of a request left at MPI_Finalize, for its location: a persistent one still active was started
 * and never completed (its operation may still be under way), an inactive one only never freed.
 */
function requestState(persistent: boolean, active: boolean): string {
  if (persistent)
    return active
      ? 'started (MPI_Start) and never completed with MPI_Wait/MPI_Test, nor freed'
      : 'never freed';
  return 'never completed (MPI_Wait/MPI_Test) or freed';
}
