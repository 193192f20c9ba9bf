/**
 * The coordinator's side of K shard threads: the stream goes to every shard in shared batches, findings come
 * back tagged with their position and are merged (finding-merge.ts). Everything here is synchronous for the
 * caller: replies are read with receiveMessageOnPort, and the waits (sync, finish) block on each shard's
 * control word with Atomics.wait, which Node allows on its main thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { EngineFinding } from '../engine/model/types';
import type { FindingMerge } from './finding-merge';
import { CONTROL_ITEMS, CONTROL_TOKEN, type FromShard, type ShardInit, type ToShard } from './shard-protocol';
import { BatchWriter, type Batch } from './stream-batch';

/** A shard that takes no item for this long while the coordinator waits on it is given up (its checks are then named as skipped). */
const STALL_MS = 60_000;
/**
 * Items (frames) a shard may be behind the coordinator before the coordinator waits for it. The coordinator's
 * thread then stops reading the ranks' sockets, their rings fill and the ranks wait in the shim, as they do
 * for a slow lone engine: memory stays bounded (about this many frames of up to 16 KiB) instead of the
 * frames piling up in a slow shard's queue.
 */
export const MAX_LAG_ITEMS = 2048;

interface Shard {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly control: Int32Array;
  failed: string | undefined;
  /** The peak V8 heap of its thread, as it said when finishing (0 before). */
  heapPeak: number;
}

/**
 * The bundled worker script: beside the bundle that runs (dist/), one level up for the benchmarks
 * (dist/bench/), two for the test bundles (dist/test/TIER/).
 */
export function shardWorkerScript(): string {
  for (const dir of [__dirname, join(__dirname, '..'), join(__dirname, '..', '..')]) {
    const p = join(dir, 'shard-worker.js');
    if (existsSync(p)) return p;
  }
  throw new Error(`shard-worker.js is not beside ${__dirname}: run node scripts/build.mjs`);
}

export interface PoolTuning {
  /** A batch buffer's size (stream-batch.ts BATCH_BYTES). */
  readonly batchBytes?: number;
  /** How many items a shard may be behind before the coordinator waits for it (MAX_LAG_ITEMS). */
  readonly maxLagItems?: number;
}

export class ShardPool {
  private readonly shards: Shard[] = [];
  private readonly writer: BatchWriter;
  private token = 0;
  private readonly maxLag: number;
  /** Items posted to the shards so far. */
  private posted = 0;
  private flushQueued = false;

  /**
   * `merge` has a source per shard, numbered from `firstSource`. `ranks`: the job's size, as for a lone
   * engine. `tuning`: smaller batches and lag than the defaults, for the tests of the waits.
   */
  constructor(
    count: number,
    ranks: number,
    private readonly merge: FindingMerge,
    private readonly firstSource: number,
    tuning: PoolTuning = {},
  ) {
    this.writer = new BatchWriter(tuning.batchBytes);
    this.maxLag = tuning.maxLagItems ?? MAX_LAG_ITEMS;
    const script = shardWorkerScript();
    for (let index = 0; index < count; index++) {
      const control = new SharedArrayBuffer(8);
      const { port1, port2 } = new MessageChannel();
      const init: ShardInit & { port: MessagePort } = { index, shards: count, ranks, control, port: port2 };
      const worker = new Worker(script, { workerData: init, transferList: [port2] });
      // The shards never keep the process alive: the session ends them (dispose), a crash ends them anyway.
      worker.unref();
      port1.unref();
      this.shards.push({
        worker,
        port: port1,
        control: new Int32Array(control),
        failed: undefined,
        heapPeak: 0,
      });
    }
  }

  get count(): number {
    return this.shards.length;
  }

  /** Shards that failed, and why (their checks are missing: the report names them). */
  failures(): string[] {
    return this.shards.flatMap((s) => (s.failed === undefined ? [] : [s.failed]));
  }

  frame(rank: number, data: Uint8Array): void {
    this.post(this.writer.frame(rank, data));
    this.queueFlush();
  }

  close(rank: number, seq: number, time: number): void {
    this.post(this.writer.close(rank, seq, time));
    this.queueFlush();
  }

  /** Each shard's peak heap in bytes, known after finish(). */
  heapPeaks(): number[] {
    return this.shards.map((s) => s.heapPeak);
  }

  /** Posts what is written so far. */
  flush(): void {
    this.post(this.writer.take());
  }

  /** Reads the replies that arrived, without waiting. */
  pump(): void {
    this.shards.forEach((s, i) => this.drainPort(s, i));
  }

  /** Returns once every shard has taken every item posted so far; their findings are in the merge. */
  sync(): void {
    this.flush();
    this.request((token) => ({ type: 'sync', token }));
  }

  /** Every shard's end-of-run findings, after every item posted so far. */
  finish(): EngineFinding[] {
    this.flush();
    const out: EngineFinding[] = [];
    this.request((token) => ({ type: 'finish', token }), out);
    return out;
  }

  dispose(): Promise<unknown> {
    return Promise.all(this.shards.map((s) => s.worker.terminate()));
  }

  private request(make: (token: number) => ToShard, finished?: EngineFinding[]): void {
    const token = ++this.token;
    for (const s of this.shards) s.worker.postMessage(make(token));
    this.shards.forEach((s, i) => {
      // The shard notifies its token word when it answers.
      this.waitOn(s, i, CONTROL_TOKEN, 1000, () => Atomics.load(s.control, CONTROL_TOKEN) === token);
      this.drainPort(s, i, finished);
    });
  }

  /**
   * Blocks this thread until `done()`, or the shard failed (its replies are read while waiting), or it took no
   * item for STALL_MS (then it is given up). `word` is the control word the shard notifies, if any; without a
   * notification the wait is polled every `sliceMs`.
   */
  private waitOn(s: Shard, i: number, word: number, sliceMs: number, done: () => boolean): void {
    let items = Atomics.load(s.control, CONTROL_ITEMS);
    let since = Date.now();
    while (s.failed === undefined && !done()) {
      Atomics.wait(s.control, word, Atomics.load(s.control, word), sliceMs);
      this.drainPort(s, i);
      const now = Atomics.load(s.control, CONTROL_ITEMS);
      if (now !== items) {
        items = now;
        since = Date.now();
      } else if (Date.now() - since > STALL_MS) {
        s.failed = `shard ${i} took no record for ${STALL_MS / 1000} s`;
        this.merge.progress(this.firstSource + i, Number.MAX_SAFE_INTEGER);
      }
    }
  }

  private drainPort(s: Shard, i: number, finished?: EngineFinding[]): void {
    for (let m = receiveMessageOnPort(s.port); m !== undefined; m = receiveMessageOnPort(s.port)) {
      const msg = m.message as FromShard;
      const source = this.firstSource + i;
      if (msg.type === 'found') this.merge.add(source, msg.item, msg.findings);
      else if (msg.type === 'passed') this.merge.progress(source, msg.items);
      else if (msg.type === 'finished') {
        finished?.push(...msg.findings);
        s.heapPeak = msg.heapPeak;
      } else {
        s.failed = `shard ${i} failed: ${msg.reason.split('\n')[0] ?? ''}`;
        // Its findings will not come: the others' must not wait for them.
        this.merge.progress(source, Number.MAX_SAFE_INTEGER);
      }
    }
  }

  private post(batch: Batch | undefined): void {
    if (batch === undefined) return;
    this.posted += batch.items;
    for (const s of this.shards)
      s.worker.postMessage({
        type: 'batch',
        buffer: batch.buffer,
        start: batch.start,
        end: batch.end,
      } satisfies ToShard);
    // A shard far behind holds up the stream here (see MAX_LAG_ITEMS), until it is halfway back.
    this.shards.forEach((s, n) => {
      if (this.posted - Atomics.load(s.control, CONTROL_ITEMS) <= this.maxLag) return;
      this.waitOn(
        s,
        n,
        CONTROL_ITEMS,
        2,
        () => this.posted - Atomics.load(s.control, CONTROL_ITEMS) <= this.maxLag / 2,
      );
    });
  }

  /** Frames arriving in one turn of the event loop go out as one batch. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
    }).unref();
  }
}
