/**
 * What the coordinator keeps to route calls when the analysis has shards: the communicators, no more. The
 * router needs a communicator handle's global identity (`CommInfo.key`, for a collective's owner) and its
 * members (a point-to-point peer's world rank, for a pair's owner); everything else of the model — calls,
 * requests, matching, the replay — lives in the shards, the global one included (sharded-engine.ts).
 *
 * The identities come from the engine's own registry (engine/model/comms.ts), fed the same rows in the same
 * order as the shards' engines (COMM records, the ENTERs of creating calls, the EXITs of MPI_Comm_free), so
 * a key here is the key every shard derives. What a shard's engine would make up is never made up here: a
 * handle no COMM record announced (a communicator from a call the shim does not see) stays unknown, and so do
 * the communicators derived from it, whose keys rest on a made-up parent; a call on an unknown handle goes to
 * every shard, which is always correct (router.ts).
 */
import type { EngineRouting } from '../engine/engine-api';
import { CommRegistry, peerWorld, type CommInfo } from '../engine/model/comms';
import type { CommEvent } from '../engine/model/types';
import { eventAt } from '../protocol/build-event';
import type { RecordColumns } from '../protocol/columns';
import { KIND, layouts, type FunctionLayout } from '../protocol/spec';

export class RouteModel implements EngineRouting {
  private readonly comms: CommRegistry;
  private worldSize: number;
  /** Ranks whose END arrived: the engine ignores their later calls, so must this. */
  private readonly ended = new Set<number>();
  /**
   * Per rank, the seqs of creating calls whose parent was unknown: what they make stays unknown (each is
   * forgotten at the COMM record of what it made).
   */
  private readonly blind = new Map<number, Set<number>>();
  /** Per rank, the handle an MPI_Comm_free in flight frees, by seq (forgotten at its EXIT). */
  private readonly freeing = new Map<number, Map<number, number>>();

  constructor(ranks: number) {
    this.worldSize = ranks;
    this.comms = new CommRegistry(ranks);
  }

  peerWorld(rank: number, comm: number, peer: number): number | undefined {
    const info = this.comms.known(rank, comm);
    return info === undefined ? undefined : peerWorld(info, rank, peer);
  }

  commKey(rank: number, comm: number): string | undefined {
    return this.comms.known(rank, comm)?.key;
  }

  /** Takes row `row` into the model, after the router decided its route (as the engine takes it after). */
  take(cols: RecordColumns, row: number): void {
    const kind = cols.kind[row];
    const rank = cols.rank[row] as number;
    // A rank beyond the announced size grows the world, as the engine's tracks do (engine-state.ts track()).
    if (rank >= this.worldSize) this.comms.setWorldSize((this.worldSize = rank + 1));
    if (kind === KIND.ENTER) this.enter(cols, row, rank);
    else if (kind === KIND.EXIT) this.exit(cols, row, rank);
    else if (kind === KIND.COMM) this.comm(eventAt(cols, row) as CommEvent);
    else if (kind === KIND.END) this.ended.add(rank);
  }

  private enter(cols: RecordColumns, row: number, rank: number): void {
    if (this.ended.has(rank)) return;
    const layout = layouts[cols.func[row] as number];
    if (layout === undefined) return;
    const cls = layout.spec.cls;
    const seq = cols.seq[row] as number;
    // The engine's creating calls (engine/calls.ts onEnter): comm_create, and any call with a parent
    // communicator and a communicator out (topologies…).
    const creates =
      cls === 'comm_create' || (present(cols, row, layout, 'comm_out') && present(cols, row, layout, 'comm'));
    if (creates) {
      const handle = scalar(cols, row, layout, 'comm');
      const parent = handle === undefined ? undefined : this.comms.known(rank, handle);
      if (parent === undefined) {
        let s = this.blind.get(rank);
        if (s === undefined) this.blind.set(rank, (s = new Set<number>()));
        s.add(seq);
      } else this.comms.onCreateCall(rank, seq, parent, layout.spec.name);
    }
    if (cls === 'comm_free') {
      const handle = scalar(cols, row, layout, 'comm');
      if (handle !== undefined) {
        let m = this.freeing.get(rank);
        if (m === undefined) this.freeing.set(rank, (m = new Map<number, number>()));
        m.set(seq, handle);
      }
    }
  }

  private exit(cols: RecordColumns, row: number, rank: number): void {
    const m = this.freeing.get(rank);
    if (m === undefined || m.size === 0) return;
    const seq = cols.seq[row] as number;
    const handle = m.get(seq);
    if (handle === undefined) return;
    m.delete(seq);
    // A free that returned success counts toward the last member's, as in the engine (calls.ts, COMM_FREE): then
    // the communicator itself is forgotten, so that a job that duplicates and frees a communicator per solve
    // keeps here what is live, not every one it made. The handle is forgotten even when the free failed: an
    // unknown handle only costs (its calls go to every shard).
    if (cols.word(row, 0) === 0) this.comms.onFreed(rank, handle);
    else this.comms.onFree(rank, handle);
  }

  /** How many communicators the model keeps (every member has not freed them yet). */
  communicatorsKept(): number {
    let n = 0;
    for (const _ of this.comms.all()) n++;
    return n;
  }

  private comm(e: CommEvent): void {
    if (e.creatorSeq !== 0 && !e.isInter) {
      // Derived from a parent this model does not know, or by a call whose parent it did not know: the
      // engine's key for it rests on a communicator it made up.
      const parent: CommInfo | undefined = this.comms.known(e.rank, e.parent);
      // A creating call makes one communicator per rank: its seq is not needed after this record.
      const blind = this.blind.get(e.rank)?.delete(e.creatorSeq) === true;
      if (parent === undefined || blind) {
        this.comms.onFree(e.rank, e.comm);
        return;
      }
    }
    this.comms.onComm(e);
  }
}

/** A scalar argument of an ENTER row by role, or undefined (no such parameter, or a NaN word: left out). */
function scalar(cols: RecordColumns, row: number, layout: FunctionLayout, role: string): number | undefined {
  const slot = layout.roleSlot.get(role);
  if (slot === undefined || slot < 0) return undefined;
  const v = cols.word(row, slot);
  return v === v ? v : undefined;
}

/** The engine's `argOf(e, role) !== undefined`: an array parameter, or a scalar whose word is not left out. */
function present(cols: RecordColumns, row: number, layout: FunctionLayout, role: string): boolean {
  const slot = layout.roleSlot.get(role);
  if (slot === undefined) return false;
  return slot < 0 || scalar(cols, row, layout, role) !== undefined;
}
