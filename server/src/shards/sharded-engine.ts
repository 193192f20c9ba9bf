/**
 * The engine as the session sees it when the analysis has shards. The coordinator (the session's thread)
 * keeps no model: it decodes each frame once, keeps the communicators it needs to route (route-model.ts), and
 * the router (router.ts) sends each decoded call to the shards that own what it touches — a point-to-point
 * call to the owner of its rank pair, a collective to the owner of its communicator, definitions to every
 * shard. Shard 0 is also the global shard: it is sent every call and answers the global questions (the
 * wait-for graph, rank states, message queues, the replay's end-of-run checks, everything a rank does on its
 * own), which the coordinator asks it synchronously. The findings of all are merged into one order
 * (finding-merge.ts). With one analyzer there is no thread and no routing: the lone engine owns everything and
 * its findings go through the same merge, so the report is the same for any K.
 *
 * The caller feeds a frame's decoded rows with pushColumns() and then says that frame is done (endFrame), or
 * a closed connection's END with push() and then endClose(): each is an item of the stream, after which
 * every engine's findings are taken.
 */
import type { Engine } from '../engine/engine-api';
import type { MessageQueues } from '../engine/point-to-point/message-queues';
import { appendEvent } from '../protocol/append-event';
import { RecordColumns } from '../protocol/columns';
import { RankDecoder } from '../protocol/decoder';
import { createEngine } from '../engine/engine';
import type { EngineFinding, RankEvent, RankState, SkippedCheck } from '../engine/model/types';
import { FindingMerge, inContentOrder } from './finding-merge';
import { RouteModel } from './route-model';
import { Router, type RouteCounts } from './router';
import { ShardPool, type PoolTuning } from './shard-pool';

export class ShardedEngine implements Engine {
  /** The lone engine (one analyzer); with shards, none: shard 0 holds the model. */
  private readonly inner: Engine | undefined;
  private readonly pool: ShardPool | undefined;
  private readonly model: RouteModel | undefined;
  private readonly router: Router | undefined;
  private readonly merge: FindingMerge;
  private items = 0;
  /** Findings made outside an item (held ones released with a deadlock or an end), by the global engine. */
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
    this.inner = sharded ? undefined : createEngine({ ranks });
    this.merge = new FindingMerge(sharded ? analyzers : 1);
    this.pool = sharded ? new ShardPool(analyzers, ranks, this.merge, 0, tuning) : undefined;
    this.model = sharded ? new RouteModel(ranks) : undefined;
    this.router = this.model === undefined ? undefined : new Router(analyzers, this.model);
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
   * Rows the caller decoded from one frame; endFrame() then says the frame is done. With shards, each row is
   * routed and then taken into the routing model (its communicators), as an engine takes its rows in order.
   */
  pushColumns(cols: RecordColumns, from = 0, to = cols.length): void {
    const { router, pool, model } = this;
    if (router === undefined || pool === undefined || model === undefined) {
      this.inner?.pushColumns(cols, from, to);
      return;
    }
    for (let row = from; row < to; row++) {
      const route = router.withGlobal(router.route(cols, row), cols, row);
      if (route.length > 0) pool.row(route, cols, row, this.items);
      model.take(cols, row);
    }
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
    const inner = this.inner;
    if (inner !== undefined) this.merge.add(0, this.items, inner.takeFindings());
    this.items++;
    if (inner !== undefined) this.merge.progress(0, this.items);
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
    const pool = this.pool;
    if (pool === undefined) return;
    pool.sync();
    // The states read next (a no-progress verdict names the ranks' calls) are those after every item.
    pool.ask('states');
  }

  findDeadlock(): EngineFinding | undefined {
    const pool = this.pool;
    if (pool === undefined) {
      const found = this.inner?.findDeadlock();
      if (found !== undefined) this.takeOutside(this.inner?.takeFindings() ?? []);
      return found;
    }
    // Every shard's findings of the stream come first (settle), then what the deadlock released.
    this.settle();
    const answer = pool.ask('deadlock');
    if (answer?.found !== undefined) this.takeOutside(answer.released);
    return answer?.found;
  }

  releaseHeld(): void {
    const pool = this.pool;
    if (pool === undefined) {
      this.inner?.releaseHeld();
      this.takeOutside(this.inner?.takeFindings() ?? []);
      return;
    }
    this.settle();
    this.takeOutside(pool.ask('release') ?? []);
  }

  /**
   * Findings made outside the stream: reported after all of it, in content order. Its callers settle() before
   * asking for them (a no-op without shards), so every shard's findings of the stream are already taken.
   */
  private takeOutside(found: EngineFinding[]): void {
    this.outside.push(...inContentOrder(found));
  }

  finish(): EngineFinding[] {
    // What the stream found comes first, in its order; then the end-of-run checks of every shard (the global
    // one's included), in content order (they have no position in the stream; a lone engine's are ordered the
    // same way).
    const inner = this.inner;
    if (inner !== undefined) this.merge.add(0, this.items, inner.takeFindings());
    const shardsEnd = this.pool?.finish() ?? [];
    const end = inner?.finish() ?? [];
    return [...this.takeFindings(), ...this.merge.releaseAll(), ...inContentOrder([...end, ...shardsEnd])];
  }

  /**
   * With shards, the global shard's last answer, without waiting for it (asked again for the next call): as
   * of the last settle() when nothing was fed since, up to a status tick old otherwise.
   */
  rankStates(): RankState[] {
    return this.inner?.rankStates() ?? this.pool?.statesSoon() ?? [];
  }

  /** The global shard keeps every channel: it has every queue. */
  messageQueues(): MessageQueues {
    return this.inner?.messageQueues() ?? this.pool?.ask('queues') ?? { entries: [], edges: [], cycles: [] };
  }

  lostRecords(): number {
    return this.inner?.lostRecords() ?? this.pool?.ask('lost') ?? 0;
  }

  skippedChecks(): SkippedCheck[] {
    const out = this.inner?.skippedChecks() ?? this.pool?.ask('skipped') ?? [];
    const failed = this.pool?.failures() ?? [];
    if (this.pool?.globalFailed() === true)
      out.push({
        cause: 'bound',
        checks: [
          'deadlock',
          'potential-deadlock',
          'message-race',
          'unmatched-message',
          'message-mismatch',
          'resource-leak',
          'call-order',
          'buffer-overlap',
          'request-misuse',
          'rma-race',
        ],
        reason: `the global analyzer shard stopped (${failed.join('; ')}): the checks of the whole job are missing from that point. Run again with --analyzers 1.`,
      });
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
