/**
 * The engine as the session sees it when the analysis has shards: the coordinator's own engine keeps the
 * model and answers every global question (the wait-for graph, rank states, the replay's end-of-run checks,
 * everything a rank does on its own), K shard threads run the checks of their rank pairs and communicators,
 * and the findings of all are merged into one order (finding-merge.ts). With one analyzer there is no
 * thread: the lone engine owns everything and its findings go through the same merge, so the report is the
 * same for any K.
 *
 * The caller feeds a frame's decoded rows with pushColumns() and then says which frame that was (endFrame),
 * or a closed connection's END with push() and then endClose(): each is an item of the stream, which is
 * forwarded raw to the shards and after which every engine's findings are taken.
 */
import type { MessageQueues } from '../engine/point-to-point/message-queues';
import type { Engine } from '../engine/engine-api';
import type { RecordColumns } from '../protocol/columns';
import { createEngine } from '../engine/engine';
import type { EngineFinding, RankEvent, RankState, SkippedCheck } from '../engine/model/types';
import { FindingMerge, inContentOrder } from './finding-merge';
import { GLOBAL_ONLY } from './ownership-map';
import { ShardPool, type PoolTuning } from './shard-pool';

export class ShardedEngine implements Engine {
  private readonly inner: Engine;
  private readonly pool: ShardPool | undefined;
  private readonly merge: FindingMerge;
  private items = 0;
  /** Findings the coordinator's engine made outside an item (held ones released with a deadlock or an end). */
  private outside: EngineFinding[] = [];

  /**
   * `analyzers`: the number of shard threads; 1 runs the lone engine on this thread. `tuning`: batch size and
   * lag other than the defaults (shard-pool.ts), for tests.
   */
  constructor(ranks: number, analyzers: number, tuning?: PoolTuning) {
    const sharded = analyzers > 1;
    this.inner = createEngine({ ranks, ...(sharded ? { owns: GLOBAL_ONLY } : {}) });
    this.merge = new FindingMerge(sharded ? 1 + analyzers : 1);
    this.pool = sharded ? new ShardPool(analyzers, ranks, this.merge, 1, tuning) : undefined;
  }

  /** The number of shard threads (0: the lone engine). */
  get shardThreads(): number {
    return this.pool?.count ?? 0;
  }

  /** A frame as one item of the stream (the caller that does not decode itself: trace replays, tests). */
  pushRecords(rank: number, frame: Uint8Array): void {
    this.inner.pushRecords(rank, frame);
    this.endFrame(rank, frame);
  }

  /** Rows the caller decoded from one frame; endFrame() then says which frame they were. */
  pushColumns(cols: RecordColumns, from?: number, to?: number): void {
    this.inner.pushColumns(cols, from, to);
  }

  push(event: RankEvent): void {
    this.inner.push(event);
  }

  /** The rows of this rank's frame were pushed (pushColumns): the frame is an item of the stream. */
  endFrame(rank: number, data: Uint8Array): void {
    this.pool?.frame(rank, data);
    this.endItem();
  }

  /** A rank's stream ended without its own END (pushed as 'disconnected' with this seq and time). */
  endClose(rank: number, seq: number, time: number): void {
    this.pool?.close(rank, seq, time);
    this.endItem();
  }

  private endItem(): void {
    const found = this.inner.takeFindings();
    this.merge.add(0, this.items, found);
    this.items++;
    this.merge.progress(0, this.items);
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
