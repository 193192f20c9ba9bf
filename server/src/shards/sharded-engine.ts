/**
 * The engine as the session sees it when the analysis has shards: the coordinator's own engine keeps the
 * model and answers every global question (the wait-for graph, rank states, the replay's end-of-run checks,
 * everything a rank does on its own); the router (router.ts) sends each decoded call to the shards that own
 * what it touches — a point-to-point call to the owner of its rank pair, a collective to the owner of its
 * communicator, definitions to every shard — and K shard threads run the checks of their rank pairs and
 * communicators on those calls alone. The findings of all are merged into one order (finding-merge.ts). With
 * one analyzer there is no thread and no routing: the lone engine owns everything and its findings go
 * through the same merge, so the report is the same for any K.
 *
 * The caller feeds a frame's decoded rows with pushColumns() and then says that frame is done (endFrame), or
 * a closed connection's END with push() and then endClose(): each is an item of the stream, after which
 * every engine's findings are taken.
 */
import type { Engine, EngineRouting } from '../engine/engine-api';
import type { MessageQueues } from '../engine/point-to-point/message-queues';
import { appendEvent } from '../protocol/append-event';
import { RecordColumns } from '../protocol/columns';
import { RankDecoder } from '../protocol/decoder';
import { createEngine } from '../engine/engine';
import type { EngineFinding, RankEvent, RankState, SkippedCheck } from '../engine/model/types';
import { FindingMerge, inContentOrder } from './finding-merge';
import { GLOBAL_ONLY } from './ownership-map';
import { Router, type RouteCounts } from './router';
import { ShardPool, type PoolTuning } from './shard-pool';

export class ShardedEngine implements Engine {
  private readonly inner: Engine & EngineRouting;
  private readonly pool: ShardPool | undefined;
  private readonly router: Router | undefined;
  private readonly merge: FindingMerge;
  private items = 0;
  /** Findings the coordinator's engine made outside an item (held ones released with a deadlock or an end). */
  private outside: EngineFinding[] = [];
  /** pushRecords' decoders (one per rank: a call may straddle two frames) and their rows. */
  private readonly decoders: RankDecoder[] = [];
  private readonly frameRows = new RecordColumns(1024);
  private readonly one = new RecordColumns(4);

  /**
   * `analyzers`: the number of shard threads; 1 runs the lone engine on this thread. `tuning`: batch size and
   * lag other than the defaults (shard-pool.ts), for tests.
   */
  constructor(ranks: number, analyzers: number, tuning?: PoolTuning) {
    const sharded = analyzers > 1;
    this.inner = createEngine({ ranks, ...(sharded ? { owns: GLOBAL_ONLY } : {}) });
    this.merge = new FindingMerge(sharded ? 1 + analyzers : 1);
    this.pool = sharded ? new ShardPool(analyzers, ranks, this.merge, 1, tuning) : undefined;
    this.router = sharded ? new Router(analyzers, this.inner) : undefined;
  }

  /** The number of shard threads (0: the lone engine). */
  get shardThreads(): number {
    return this.pool?.count ?? 0;
  }

  /**
   * A frame as one item of the stream (the caller that does not decode itself: trace replays, tests). A bad
   * frame throws DecodeError and feeds nothing, as the engine's pushRecords.
   */
  pushRecords(rank: number, frame: Uint8Array): void {
    const rows = this.frameRows;
    rows.clear();
    (this.decoders[rank] ??= new RankDecoder(rank)).decodeInto(frame, rows);
    this.pushColumns(rows, 0, rows.length);
    this.endFrame(rank, frame);
  }

  /**
   * Rows the caller decoded from one frame; endFrame() then says the frame is done. With shards, the rows are
   * routed before the coordinator's engine takes them: the router reads the model as of the frames before
   * (a call on a communicator announced in the same frame goes to every shard, which is always correct).
   */
  pushColumns(cols: RecordColumns, from = 0, to = cols.length): void {
    const router = this.router;
    const pool = this.pool;
    if (router === undefined || pool === undefined) {
      this.inner.pushColumns(cols, from, to);
      return;
    }
    for (let row = from; row < to; row++) {
      const route = router.route(cols, row);
      if (route.length > 0) pool.row(route, cols, row, this.items);
    }
    this.inner.pushColumns(cols, from, to);
  }

  push(event: RankEvent): void {
    const one = this.one;
    one.clear();
    appendEvent(one, event);
    this.pushColumns(one, 0, 1);
  }

  /** The rows of this rank's frame were pushed (pushColumns): the frame is an item of the stream. */
  endFrame(_rank: number, _data: Uint8Array): void {
    this.endItem();
  }

  /** A rank's stream ended without its own END (pushed as 'disconnected' with push()). */
  endClose(_rank: number, _seq: number, _time: number): void {
    this.endItem();
  }

  private endItem(): void {
    const found = this.inner.takeFindings();
    this.merge.add(0, this.items, found);
    this.items++;
    this.merge.progress(0, this.items);
    this.pool?.advance(this.items);
  }

  /**
   * Rows sent to each shard, how the router decided, and (after finish()) each shard thread's CPU time
   * (none: with no shard threads).
   */
  routing():
    { readonly perShard: number[]; readonly counts: RouteCounts; readonly cpuMs: number[] } | undefined {
    if (this.pool === undefined || this.router === undefined) return undefined;
    return {
      perShard: this.pool.rowsPerShard(),
      counts: { ...this.router.counts },
      cpuMs: this.pool.cpuMs(),
    };
  }

  takeFindings(): EngineFinding[] {
    this.pool?.pump();
    const released = this.merge.release();
    if (this.outside.length === 0) return released;
    // Findings made outside the stream come after all of it: settle() was called before they were made.
    const outside = this.outside;
    this.outside = [];
    return [...released, ...this.merge.releaseAll(), ...outside];
  }

  /**
   * Wait until every shard has taken every item fed so far: the next takeFindings() then has every finding
   * of the stream. Called before a global question whose answer is reported in order after them.
   */
  settle(): void {
    this.pool?.sync();
  }

  findDeadlock(): EngineFinding | undefined {
    const found = this.inner.findDeadlock();
    if (found !== undefined) this.takeOutside();
    return found;
  }

  releaseHeld(): void {
    this.inner.releaseHeld();
    this.takeOutside();
  }

  private takeOutside(): void {
    this.settle();
    this.outside.push(...inContentOrder(this.inner.takeFindings()));
  }

  finish(): EngineFinding[] {
    // What the stream found comes first, in its order; then the end-of-run checks of every shard, in content
    // order (they have no position in the stream; a lone engine's are ordered the same way).
    const live = this.inner.takeFindings();
    this.merge.add(0, this.items, live);
    const shardsEnd = this.pool?.finish() ?? [];
    const end = this.inner.finish();
    return [...this.takeFindings(), ...this.merge.releaseAll(), ...inContentOrder([...end, ...shardsEnd])];
  }

  rankStates(): RankState[] {
    return this.inner.rankStates();
  }

  /** The coordinator's engine keeps every channel (matching is replicated): it has every queue. */
  messageQueues(): MessageQueues {
    return this.inner.messageQueues();
  }

  lostRecords(): number {
    return this.inner.lostRecords();
  }

  skippedChecks(): SkippedCheck[] {
    const out = this.inner.skippedChecks();
    const failed = this.pool?.failures() ?? [];
    if (failed.length > 0)
      out.push({
        cause: 'bound',
        checks: ['type-mismatch', 'count-mismatch', 'collective-mismatch'],
        reason: `an analyzer shard stopped (${failed.join('; ')}): the checks of its rank pairs and communicators are missing. Run again with --analyzers 1.`,
      });
    return out;
  }

  /** Each shard thread's peak V8 heap in bytes, after finish() (none without threads). */
  shardHeaps(): number[] {
    return this.pool?.heapPeaks() ?? [];
  }

  /** Ends the shard threads. */
  dispose(): Promise<unknown> {
    return this.pool?.dispose() ?? Promise.resolve();
  }
}
