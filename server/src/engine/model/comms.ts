/**
 * Communicators across ranks. Each rank knows a communicator by its own handle; the engine needs one
 * global identity so that rank 0's MPI_Send on its dup and rank 1's MPI_Recv on its dup meet. The identity of
 * a new communicator is (parent's identity, index of the creating call among that rank's creating calls on
 * the parent, sorted member world ranks): every member computes the same key, split colours differ by members.
 * MPI_Comm_create_group, which only the members of its group call, is counted apart (onCreateCall).
 */
import type { DtypeInfo } from './datatypes';
import type { CommEvent, CallEnter, Handle } from './types';
import { LastFree } from './last-free';
import { doubleArray, objectArray } from './elements';

/** The datatypes a collective call named, by handle (collectives/coll-checks.ts typesAtEntry). */
export interface TypesAt {
  get(handle: Handle): DtypeInfo | undefined;
}

export interface CollCall {
  readonly rank: number;
  readonly fn: string;
  readonly seq: number;
  readonly site: number;
  readonly root: number;
  /** The call itself, for the data checks once every member has entered. */
  readonly enter: CallEnter;
  /**
   * The datatypes (by handle) and the op the call named, as they were when it was entered. The data checks
   * run when the last member enters, and by then a rank ahead in its stream may have freed these handles
   * and been handed the same values for other types (BLACS builds, uses and frees a type per broadcast).
   */
  readonly types: TypesAt;
  readonly op: number | undefined;
}

/** One collective call of a communicator, while not every member has entered it (or when they disagree). */
export interface CollInstance {
  readonly index: number;
  /** By communicator rank. */
  readonly calls: (CollCall | undefined)[];
  arrived: number;
  mismatched: boolean;
  /** The call that arrived first (enterCollective compares each later one with it). */
  first: CollCall | undefined;
}

export interface CommInfo {
  /** Small dense id, used in numeric map keys. */
  readonly id: number;
  readonly key: string;
  readonly size: number;
  /** World rank of each communicator rank. */
  readonly members: readonly number[];
  readonly name: string;
  /** Collectives entered so far by each member (communicator rank). */
  readonly entered: Int32Array;
  readonly open: Map<number, CollInstance>;
  /** Intercommunicators: each member's local and remote group (world ranks); peers are remote ranks. */
  readonly local?: Map<number, readonly number[]>;
  readonly remote?: Map<number, readonly number[]>;
  /**
   * The process topology each member was given (by world rank), when its creating call said it: what a
   * neighbourhood collective's blocks are (collectives/coll-neighbors.ts).
   */
  topo?: Map<number, Neighbours>;
}

/**
 * A member's neighbours in a process topology, as communicator ranks in the order of its neighbourhood
 * collectives' blocks (MPI-3.1 §7.6); NO_NEIGHBOUR where a non-periodic Cartesian dimension ends (the block is
 * there, nothing moves).
 */
export interface Neighbours {
  readonly sources: readonly number[];
  readonly dests: readonly number[];
}

export const NO_NEIGHBOUR = -1;

/**
 * The topology a creating call names: a Cartesian grid (MPI_Cart_create's dims and periods), a graph
 * (MPI_Graph_create's index and edges) or a member's own sources and destinations
 * (MPI_Dist_graph_create_adjacent); a duplicate takes its parent's.
 */
export type TopoSpec =
  | { readonly kind: 'cart'; readonly dims: readonly number[]; readonly periods: readonly number[] }
  | { readonly kind: 'adjacent'; readonly sources: readonly number[]; readonly dests: readonly number[] }
  | { readonly kind: 'graph'; readonly index: readonly number[]; readonly edges: readonly number[] }
  | { readonly kind: 'dup' };

interface Creation {
  readonly parent: CommInfo;
  /** A number for the calls every member of the parent makes; `g1`, `g2`… for MPI_Comm_create_group's. */
  readonly index: number | string;
  readonly fn: string;
  readonly topo?: TopoSpec;
}

/** The neighbours the shim asked MPI for (CommEvent.sources/dests), when they are valid ranks of the communicator. */
function askedNeighbours(e: CommEvent, size: number): Neighbours | undefined {
  const { sources, dests } = e;
  if (sources === undefined || dests === undefined) return undefined;
  const valid = (r: number) => r === NO_NEIGHBOUR || (Number.isInteger(r) && r >= 0 && r < size);
  return sources.every(valid) && dests.every(valid) ? { sources, dests } : undefined;
}

/**
 * A member's neighbours on a new communicator from its creating call's topology; undefined when not known
 * (MPI_Dist_graph_create, MPI_Cart_sub…: their neighbours are not in the call's own arguments, and come from the
 * shim's question to MPI instead: askedNeighbours) or not valid.
 */
function neighboursOf(
  topo: TopoSpec,
  parent: CommInfo,
  worldRank: number,
  myRank: number,
  size: number,
): Neighbours | undefined {
  if (topo.kind === 'dup') return parent.topo?.get(worldRank);
  if (topo.kind === 'graph') {
    // MPI_Graph_create: node r's neighbours are edges[index[r - 1]] … edges[index[r] - 1], both ways.
    const { index, edges } = topo;
    if (index.length !== size || myRank < 0 || myRank >= size) return undefined;
    const from = myRank === 0 ? 0 : (index[myRank - 1] as number);
    const to = index[myRank] as number;
    if (!(from >= 0 && from <= to && to <= edges.length)) return undefined;
    const list = edges.slice(from, to);
    return list.every((r) => Number.isInteger(r) && r >= 0 && r < size)
      ? { sources: list, dests: list }
      : undefined;
  }
  if (topo.kind === 'adjacent') {
    const valid = (r: number) => Number.isInteger(r) && r >= 0 && r < size;
    return topo.sources.every(valid) && topo.dests.every(valid)
      ? { sources: [...topo.sources], dests: [...topo.dests] }
      : undefined;
  }
  const { dims, periods } = topo;
  if (dims.length === 0 || dims.some((d) => !Number.isInteger(d) || d <= 0)) return undefined;
  if (dims.reduce((a, b) => a * b, 1) !== size) return undefined;
  // Row-major coordinates (MPI-3.1 §7.5.1): the last dimension varies fastest.
  const coords: number[] = new Array<number>(dims.length).fill(0);
  for (let d = dims.length - 1, r = myRank; d >= 0; d--) {
    const n = dims[d] as number;
    coords[d] = r % n;
    r = Math.floor(r / n);
  }
  const rankAt = (c: readonly number[]) => c.reduce((a, x, d) => a * (dims[d] as number) + x, 0);
  const sources: number[] = [];
  for (let d = 0; d < dims.length; d++) {
    const n = dims[d] as number;
    for (const step of [-1, 1]) {
      let x = (coords[d] as number) + step;
      if (x < 0 || x >= n) {
        if ((periods[d] ?? 0) === 0) {
          sources.push(NO_NEIGHBOUR);
          continue;
        }
        x = (x + n) % n;
      }
      const c = [...coords];
      c[d] = x;
      sources.push(rankAt(c));
    }
  }
  // A Cartesian member receives from and sends to the same neighbours, in the same order.
  return { sources, dests: sources };
}

/**
 * The sorted member list of a communicator as key text, kept by content: every rank announces its
 * communicators (a world of 1,024 ranks is announced 1,024 times, and each shard and the shards' router
 * take every announcement), and sorting and joining a thousand members for each cost more than the rest of
 * the record (bench/shard-sim: ~0.3 s of CPU per engine for 3,072 announcements of 1,024 ranks).
 */
class MemberKeys {
  private readonly byHash = new Map<
    number,
    { readonly members: readonly number[]; readonly text: string }[]
  >();

  text(members: readonly number[]): string {
    let h = members.length;
    for (let i = 0; i < members.length; i++) h = Math.imul(h ^ (members[i] as number), 0x01000193);
    let list = this.byHash.get(h);
    if (list === undefined) this.byHash.set(h, (list = []));
    for (const c of list) if (sameMembers(c.members, members)) return c.text;
    const text = [...members].sort((a, b) => a - b).join(',');
    list.push({ members: [...members], text });
    return text;
  }
}

function sameMembers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class CommRegistry {
  private readonly byKey = new Map<string, CommInfo>();
  private readonly handles = new Map<number, Map<Handle, CommInfo>>();
  private readonly creating = new Map<number, Map<number, Creation>>();
  private readonly createCounts = new Map<string, number>();
  private readonly predefined = new Map<number, number>();
  /** Communicators announced whose creating call the engine did not see (MPI_Cart_create…), per rank and parent. */
  private readonly anonymous = new Map<string, number>();
  private nextId = 0;
  private readonly memberKeys = new MemberKeys();

  constructor(private worldSize: number) {}

  /** Every communicator known (by its global identity). */
  all(): IterableIterator<CommInfo> {
    return this.byKey.values();
  }

  setWorldSize(n: number): void {
    if (n > this.worldSize) this.worldSize = n;
  }

  /**
   * The communicator a rank means by this handle. A handle never announced by a COMM record (made by a call
   * the shim does not intercept, such as MPI_Cart_create) is taken as the n-th unannounced communicator of
   * this rank, over all ranks in world order: handles differ per process, the order ranks meet them does not.
   */
  lookup(rank: number, handle: Handle): CommInfo {
    // Most calls of a rank name the communicator its previous call named: one compare, not two Map lookups.
    const last = this.lastInfo[rank];
    if (last !== undefined && this.lastHandle[rank] === handle) return last;
    const c = this.handles.get(rank)?.get(handle);
    if (c !== undefined) {
      this.remember(rank, handle, c);
      return c;
    }
    const k = `${rank}:unknown`;
    const n = this.anonymous.get(k) ?? 0;
    this.anonymous.set(k, n + 1);
    const world = Array.from({ length: this.worldSize }, (_, i) => i);
    const info = this.intern(`unknown:${n}`, world, `communicator ${n + 1} not seen created`);
    this.bind(rank, handle, info);
    return info;
  }

  /** The communicator a rank means by this handle, if it is known: unlike lookup(), never makes one up. */
  known(rank: number, handle: Handle): CommInfo | undefined {
    return this.handles.get(rank)?.get(handle);
  }

  /** A rank entered a call that creates communicators from `parent` (MPI_Comm_dup, MPI_Comm_split…). */
  onCreateCall(rank: number, seq: number, parent: CommInfo, fn: string, topo?: TopoSpec): void {
    // MPI_Comm_create_group is collective over its group only: the parent's other members do not call it, so it
    // is counted apart, or every communicator the parent makes after it would get another index on the group's
    // ranks than on the others (MPICH's MTest harness makes one of the even ranks, then one with MPI_Comm_create).
    const group = fn === 'MPI_Comm_create_group';
    const k = group ? `${rank}:${parent.id}:group` : `${rank}:${parent.id}`;
    const n = this.createCounts.get(k) ?? 0;
    this.createCounts.set(k, n + 1);
    const index = group ? `g${n + 1}` : n;
    let m = this.creating.get(rank);
    if (m === undefined) this.creating.set(rank, (m = new Map<number, Creation>()));
    m.set(seq, topo === undefined ? { parent, index, fn } : { parent, index, fn, topo });
  }

  onComm(e: CommEvent): CommInfo {
    const members = e.members;
    const sorted = this.memberKeys.text(members);
    let key: string;
    let name: string;
    if (e.creatorSeq === 0 && e.parent === 0) {
      // Predefined: MPI_COMM_WORLD has every rank, MPI_COMM_SELF only this one. With one rank they look
      // alike, so the order the shim announces them in tells them apart.
      const nth = this.predefined.get(e.rank) ?? 0;
      this.predefined.set(e.rank, nth + 1);
      const self = e.size === 1 && members[0] === e.rank && (this.worldSize > 1 || nth > 0);
      key = self ? `self:${e.rank}` : `world:${sorted}`;
      name = self ? 'MPI_COMM_SELF' : 'MPI_COMM_WORLD';
      if (!self) this.setWorldSize(e.size);
    } else if (e.isInter) {
      // The two groups see different parents (their local communicators): identify an intercommunicator by
      // its whole membership and how many such ones this rank has seen.
      const all = [...members, ...e.remoteMembers].sort((a, b) => a - b).join(',');
      const k = `${e.rank}:inter:${all}`;
      const n = this.anonymous.get(k) ?? 0;
      this.anonymous.set(k, n + 1);
      key = `inter:${all}:${n}`;
      name = `intercommunicator ${n + 1} of ranks ${all}`;
    } else {
      const parent = this.lookup(e.rank, e.parent);
      const made = this.creating.get(e.rank)?.get(e.creatorSeq);
      let index: number | string;
      if (made !== undefined && made.parent === parent) index = made.index;
      else {
        const k = `${e.rank}:${parent.id}`;
        const n = this.anonymous.get(k) ?? 0;
        this.anonymous.set(k, n + 1);
        index = `x${n + 1}`;
      }
      // Named by derivation, not by arrival order, so every interleaving of the ranks names it the same.
      const few = sorted.split(',').slice(0, 8).join(',') + (members.length > 8 ? ',…' : '');
      const subset = members.length < parent.size ? ` of ranks ${few}` : '';
      // "communicator MPI_COMM_WORLD/1 (MPI_Comm_dup)/2 (MPI_Comm_split)": one prefix however deep the derivation.
      const path = parent.name.startsWith('communicator ')
        ? parent.name.slice('communicator '.length)
        : parent.name;
      name = `communicator ${path}/${typeof index === 'number' ? index + 1 : index} (${made?.fn ?? 'created'}${subset})`;
      key = `${parent.key}/${index}:${sorted}`;
    }
    const info = e.isInter
      ? this.intern(
          key,
          [...members, ...e.remoteMembers].sort((a, b) => a - b),
          name,
          true,
        )
      : this.intern(key, members, name);
    info.local?.set(e.rank, members);
    info.remote?.set(e.rank, e.remoteMembers);
    const creation = e.isInter ? undefined : this.creating.get(e.rank)?.get(e.creatorSeq);
    // The creating call's own arguments first; else what MPI said when the shim asked (MPI_Cart_sub,
    // MPI_Dist_graph_create, and any communicator the creating call of which does not name its neighbours).
    const n =
      (creation?.topo !== undefined
        ? neighboursOf(creation.topo, creation.parent, e.rank, e.myRank, members.length)
        : undefined) ?? (e.isInter ? undefined : askedNeighbours(e, members.length));
    if (n !== undefined) (info.topo ??= new Map()).set(e.rank, n);
    // The creating call made its communicator on this rank: its bookkeeping is done (kept, one per call, it held
    // 250 bytes for every MPI_Comm_dup of a run: bench/engine-scale's comms).
    if (!e.isInter && e.creatorSeq !== 0) this.creating.get(e.rank)?.delete(e.creatorSeq);
    this.bind(e.rank, e.comm, info);
    return info;
  }

  /**
   * A communicator-like object derived from `parent` with the same members (a window's group): it gets its own
   * collective sequence, so window synchronization (MPI_Win_fence, MPI_Win_free) is not counted among the
   * parent's collectives. `key` must name the object uniquely within the parent.
   */
  derived(parent: CommInfo, key: string, name: string): CommInfo {
    return this.intern(`${parent.key}#${key}`, parent.members, name);
  }

  onFree(rank: number, handle: Handle): void {
    this.handles.get(rank)?.delete(handle);
    this.lastInfo[rank] = undefined;
  }

  /**
   * A rank freed a communicator (MPI_Comm_free returned): its handle is forgotten, and once every member freed it
   * (each announced it before), so is the communicator — unless a collective of it is still open, which the end of
   * the run judges. A job that duplicates and frees a communicator per solve keeps what is live, not every one it
   * made (its key is never made again: a creation's index grows).
   */
  onFreed(rank: number, handle: Handle): void {
    const info = this.handles.get(rank)?.get(handle);
    this.onFree(rank, handle);
    if (info !== undefined && this.frees.freed(info.id, info.size)) this.forget(info);
  }

  /** Every member is done with this communicator or communicator-like object (a freed window's group). */
  forget(info: CommInfo): void {
    this.frees.drop(info.id);
    if (info.open.size === 0 && this.byKey.get(info.key) === info) this.byKey.delete(info.key);
  }

  /** MPI_Comm_free calls so far, until every member made one. */
  private readonly frees = new LastFree();

  /**
   * Each rank's last lookup (handle → communicator), dropped whenever one of the rank's handles is bound or
   * freed. Arrays by world rank.
   */
  private readonly lastHandle: number[] = doubleArray();
  private readonly lastInfo: (CommInfo | undefined)[] = objectArray();

  private remember(rank: number, handle: Handle, info: CommInfo): void {
    while (this.lastInfo.length <= rank) {
      this.lastInfo.push(undefined);
      this.lastHandle.push(0);
    }
    this.lastHandle[rank] = handle;
    this.lastInfo[rank] = info;
  }

  private bind(rank: number, handle: Handle, info: CommInfo): void {
    this.lastInfo[rank] = undefined;
    let m = this.handles.get(rank);
    if (m === undefined) this.handles.set(rank, (m = new Map<Handle, CommInfo>()));
    m.set(handle, info);
  }

  private intern(key: string, members: readonly number[], name: string, inter = false): CommInfo {
    let info = this.byKey.get(key);
    if (info === undefined) {
      info = {
        id: this.nextId++,
        key,
        size: members.length,
        members: [...members],
        name,
        entered: new Int32Array(members.length),
        open: new Map(),
        ...(inter
          ? { local: new Map<number, readonly number[]>(), remote: new Map<number, readonly number[]>() }
          : {}),
      };
      this.byKey.set(key, info);
    }
    return info;
  }
}

/** World rank of the peer `commRank` as rank `me` names it (in the remote group on an intercommunicator). */
export function peerWorld(comm: CommInfo, me: number, commRank: number): number | undefined {
  // Ranks come from the records' words as doubles: an array indexed by a double took V8's generic keyed load
  // (4% of the engine's time in bench/engine-throughput). Indexed by the small integer, after checking it is one.
  const i = commRank | 0;
  if (i !== commRank) return undefined;
  return comm.remote === undefined ? comm.members[i] : comm.remote.get(me)?.[i];
}

/** Every rank `me` can exchange messages with on this communicator (world ranks). */
export function peersOf(comm: CommInfo, me: number): readonly number[] {
  return comm.remote === undefined ? comm.members : (comm.remote.get(me) ?? []);
}

/**
 * A member's slot in a collective instance (`CollInstance.calls`, `CommInfo.entered`): its communicator rank, and
 * on an intercommunicator its position in the union of both groups (their local ranks would collide).
 */
export function collSlotOf(comm: CommInfo, world: number): number {
  return comm.remote === undefined ? commRankOf(comm, world) : comm.members.indexOf(world);
}

/** Communicator rank of a world rank, or -1 when it is not a member (in its own group on an intercommunicator). */
export function commRankOf(comm: CommInfo, world: number): number {
  const local = comm.local?.get(world);
  if (local !== undefined) return local.indexOf(world);
  // Communicators are mostly MPI_COMM_WORLD or small; a linear scan avoids a map per communicator.
  if (comm.members[world] === world) return world;
  return comm.members.indexOf(world);
}
