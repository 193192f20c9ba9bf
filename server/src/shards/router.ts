/**
 * Which shards a decoded call must reach, decided at the coordinator once per call (at its ENTER) and
 * followed by its EXIT and COMPLETE rows. A shard needs a call when it touches what the shard owns
 * (ownership-map.ts): a send the home shard of its destination (the owner of the pair i → j), a receive or
 * probe the home shard of its own rank — whatever its source, MPI_ANY_SOURCE included, since every channel
 * into a rank lives on its home —, a collective the owner of its communicator, a Wait/Test/Start/free the
 * owners of the requests it names. What defines handles every shard must resolve alike (communicator, group,
 * datatype, op and window creation, and the COMM, DTYPE, OP and SITE descriptions), what changes a rank's
 * life (MPI_Init, MPI_Finalize, END, LOST) goes to every shard, once per definition, never per use. What no
 * shard checks (one-sided accesses, probes that consume nothing, the ~300 calls of class "other" that make
 * no request nor communicator) goes to no owner: the global shard alone takes it (withGlobal, which adds
 * shard 0 to every route); clock records go to no shard at all.
 *
 * Whenever the owner is not certain, the call goes to every shard: a send on an unknown communicator handle
 * or to an invalid rank, an unknown request. A send to MPI_PROC_NULL has no owner. Sending a call to a shard that does not own it changes none of its
 * owned checks — it only reports inside them — so "every shard" is always correct; it only costs.
 */
import type { EngineRouting } from '../engine/engine-api';
import type { RecordColumns } from '../protocol/columns';
import { KIND, layouts, type FunctionLayout } from '../protocol/spec';
import { homeOf, shardOfComm, shardOfPair } from './ownership-map';

/** A set of shards, as sorted indices. */
export type Route = readonly number[];

/** MPI_PROC_NULL as the shim records it (engine model/types.ts). */
const PROC_NULL = -2;
const DONE_REQUEST = 1;
const NO_REQUEST = 0;

/** Classes no shard takes: nothing a shard owns depends on them (engine/calls.ts). */
const LOCAL_ONLY = new Set(['rma', 'iprobe', 'buffer_attach', 'buffer_detach']);
/** Classes that name existing requests (engine point-to-point/stale-requests.ts inputRequests). */
const ONE_REQUEST = new Set(['wait', 'test', 'start', 'request_free', 'cancel', 'request_get_status']);
const REQUESTS = new Set(['waitall', 'waitany', 'waitsome', 'testall', 'testany', 'testsome', 'startall']);
/** Classes whose COMPLETE rows each name a request the call was given (not one it made). */
const COMPLETES = new Set([
  'wait',
  'test',
  'waitall',
  'waitany',
  'waitsome',
  'testall',
  'testany',
  'testsome',
]);
const SENDS = new Set(['send', 'isend', 'send_init']);
const RECEIVES = new Set(['recv', 'irecv', 'recv_init', 'probe', 'mprobe', 'improbe']);

/** How many rows went to how many shards (bench/shard-sim prints it). */
export interface RouteCounts {
  none: number;
  one: number;
  some: number;
  every: number;
}

export class Router {
  readonly every: Route;
  readonly none: Route = [];
  private readonly single: Route[];
  private readonly global: Route = [0];
  /** [0, i] per shard i: the owner's route with the global shard. */
  private readonly withZero: Route[] = [];
  /** Per rank, the route of each call in flight by seq (its ENTER decided it; its EXIT forgets it). */
  private readonly calls: Map<number, Route>[] = [];
  /** The owner of each communicator, by its key. */
  private readonly byComm = new Map<string, Route>();
  /** Per rank, the seqs of the calls in flight that complete requests of several owners (COMPLETES). */
  private readonly completing: Set<number>[] = [];
  /** Per rank, the route of each request handle, from the EXIT of the call that made it. */
  private readonly requests: Map<number, Route>[] = [];
  readonly counts: RouteCounts = { none: 0, one: 0, some: 0, every: 0 };

  constructor(
    private readonly shards: number,
    private readonly model: EngineRouting,
  ) {
    this.single = Array.from({ length: shards }, (_, i) => [i]);
    this.every = Array.from({ length: shards }, (_, i) => i);
  }

  /**
   * `route` with the global shard (shard 0) added: it is sent every call, since it keeps the whole model for
   * the global questions (sharded-engine.ts). Clock records alone it is not sent (no engine reads them).
   */
  withGlobal(route: Route, cols: RecordColumns, row: number): Route {
    if (route.length === 0) return cols.kind[row] === KIND.CLOCK ? this.none : this.global;
    if (route[0] === 0) return route;
    if (route.length === 1) return (this.withZero[route[0] as number] ??= [0, route[0] as number]);
    return this.union(this.global, route);
  }

  /** The owners row `row` of `cols` goes to. Call before the routing model takes the row. */
  route(cols: RecordColumns, row: number): Route {
    const r = this.decide(cols, row);
    const c = this.counts;
    if (r.length === 0) c.none++;
    else if (r.length === 1 && this.shards > 1) c.one++;
    else if (r.length === this.shards) c.every++;
    else c.some++;
    return r;
  }

  private decide(cols: RecordColumns, row: number): Route {
    const kind = cols.kind[row];
    if (kind === KIND.CLOCK) return this.none;
    if (kind !== KIND.ENTER && kind !== KIND.EXIT && kind !== KIND.COMPLETE) return this.every;
    const rank = cols.rank[row] as number;
    const seq = cols.seq[row] as number;
    const calls = (this.calls[rank] ??= new Map());
    if (kind === KIND.ENTER) {
      const r = this.enter(cols, row, rank);
      if (r.length > 1 && COMPLETES.has(layouts[cols.func[row] as number]?.spec.cls ?? ''))
        (this.completing[rank] ??= new Set()).add(seq);
      calls.set(seq, r);
      return r;
    }
    // A COMPLETE after its call's EXIT (or of a call entered before the router started) goes everywhere: a
    // shard that knows neither the call nor the request ignores it.
    const r = calls.get(seq) ?? this.every;
    if (kind === KIND.COMPLETE && r.length > 1 && this.completing[rank]?.has(seq) === true) {
      // One request's completion inside a Wait/Test call that names requests of several owners (the Waitall
      // of a halo exchange: its receive's home and its send's owner): only the shards that know the request
      // take it (the route of the call that made it, which the call's ENTER read from the same map); the
      // others would find no such request and ignore it (engine calls.ts onComplete).
      const known = this.requests[rank]?.get(cols.word(row, 0));
      if (known !== undefined) return known;
    }
    if (kind === KIND.EXIT) {
      calls.delete(seq);
      this.completing[rank]?.delete(seq);
      const layout = layouts[cols.func[row] as number];
      const out = layout === undefined ? undefined : requestOut(layout);
      if (out !== undefined) {
        const handle = cols.word(row, out);
        if (handle !== NO_REQUEST) (this.requests[rank] ??= new Map()).set(handle, r);
      }
    }
    return r;
  }

  private enter(cols: RecordColumns, row: number, rank: number): Route {
    const layout = layouts[cols.func[row] as number];
    if (layout === undefined) return this.every;
    const cls = layout.spec.cls;
    const arg = (role: string) => scalar(cols, row, layout, role);
    if (SENDS.has(cls)) return this.pair(rank, arg('comm'), arg('dest'));
    if (RECEIVES.has(cls)) return this.receive(rank, arg('comm'));
    if (cls === 'sendrecv' || cls === 'sendrecv_replace')
      return this.union(this.pair(rank, arg('comm'), arg('dest')), this.receive(rank, arg('comm')));
    if (cls === 'collective' || cls === 'icollective') {
      const comm = arg('comm');
      const key = comm === undefined ? undefined : this.model.commKey(rank, comm);
      if (key === undefined) return this.every;
      // A key names its members (thousands of characters on a large job): hashed once per communicator, not
      // per collective call (the key is the registry's own string, so the map finds it by its cached hash).
      let r = this.byComm.get(key);
      if (r === undefined) this.byComm.set(key, (r = this.single[shardOfComm(key, this.shards)] as Route));
      return r;
    }
    if (ONE_REQUEST.has(cls)) return this.ofRequests(rank, [arg('request') ?? DONE_REQUEST]);
    if (REQUESTS.has(cls)) return this.ofRequests(rank, requestList(cols, row, layout));
    if (LOCAL_ONLY.has(cls)) return this.none;
    if (cls === 'other') {
      // A call that makes a request or a communicator: every shard must know its handle.
      if (layout.roleSlot.has('request_out') || layout.roleSlot.has('comm_out')) return this.every;
      if (layout.roleSlot.has('request')) return this.ofRequests(rank, [arg('request') ?? DONE_REQUEST]);
      return this.none;
    }
    return this.every;
  }

  /**
   * The owner of the pair (rank → dest) of a send; every shard when unsure. A send to MPI_PROC_NULL has no
   * pair and no owner (the engine takes it without even resolving its communicator): the global shard alone
   * takes it, and what waits for its request — the boundary ranks of a stencil send there at every step.
   */
  private pair(rank: number, comm: number | undefined, dest: number | undefined): Route {
    if (dest === PROC_NULL) return this.none;
    if (comm === undefined || dest === undefined || dest < 0) return this.every;
    const world = this.model.peerWorld(rank, comm, dest);
    if (world === undefined) return this.every;
    return this.single[shardOfPair(rank, world, this.shards)] as Route;
  }

  /**
   * The owner of every pair (· → rank), for a receive whatever its source: MPI_ANY_SOURCE, and MPI_PROC_NULL
   * (which matches nothing, so its owner checks nothing). Every shard when the communicator is unknown: each
   * engine numbers the handles no COMM record announced in the order it meets them, so every shard must meet
   * every call that names one (CommRegistry.lookup).
   */
  private receive(rank: number, comm: number | undefined): Route {
    if (comm === undefined || this.model.commKey(rank, comm) === undefined) return this.every;
    return this.single[homeOf(rank, this.shards)] as Route;
  }

  private ofRequests(rank: number, handles: readonly number[]): Route {
    const known = this.requests[rank];
    let r: Route = this.none;
    for (const h of handles) {
      if (h === NO_REQUEST) continue;
      // DONE_REQUEST stands for "a request complete when made", taken from a per-rank queue in order: every
      // shard must see each one taken.
      const to = h === DONE_REQUEST ? undefined : known?.get(h);
      if (to === undefined) return this.every;
      r = this.union(r, to);
    }
    return r;
  }

  private union(a: Route, b: Route): Route {
    if (a.length === 0 || a === b) return b;
    if (b.length === 0) return a;
    if (a.length === this.shards) return a;
    if (b.length === this.shards) return b;
    if (a.length === 1 && b.length === 1) {
      const x = a[0] as number;
      const y = b[0] as number;
      if (x === y) return a;
      return x < y ? [x, y] : [y, x];
    }
    const all = [...new Set([...a, ...b])].sort((x, y) => x - y);
    return all.length === this.shards ? this.every : all;
  }
}

/** A scalar argument of an ENTER row by role, or undefined (no such parameter, or a NaN word: left out). */
function scalar(cols: RecordColumns, row: number, layout: FunctionLayout, role: string): number | undefined {
  const slot = layout.roleSlot.get(role);
  if (slot === undefined || slot < 0) return undefined;
  const v = cols.word(row, slot);
  return v === v ? v : undefined;
}

const requestOutWord = new Map<number, number | undefined>();

/** The EXIT word holding the request a call made, if it makes one. */
function requestOut(layout: FunctionLayout): number | undefined {
  const id = layout.spec.id;
  if (requestOutWord.has(id)) return requestOutWord.get(id);
  const p = layout.spec.params.find((q) => q.role === 'request_out');
  const at = p === undefined ? undefined : layout.outWord.get(p.name);
  requestOutWord.set(id, at);
  return at;
}

/** The `requests` array argument of an ENTER row: its section found by walking the sections before it. */
function requestList(cols: RecordColumns, row: number, layout: FunctionLayout): number[] {
  const slot = layout.roleSlot.get('requests');
  if (slot === undefined || slot >= 0) return [DONE_REQUEST];
  let at = layout.scalars.length;
  for (let k = 0; k < -slot - 1; k++) at += 1 + cols.word(row, at);
  const n = cols.word(row, at);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(cols.word(row, at + 1 + i));
  return out;
}
