/**
 * The coordinator's side of K shard threads: each shard is sent its own rows (router.ts) in shared batches,
 * with marks of the stream's items; findings come back tagged with their position and are merged
 * (finding-merge.ts). Everything here is synchronous for the
 * caller: replies are read with receiveMessageOnPort, and the waits (sync, finish) block on each shard's
 * control word with Atomics.wait, which Node allows on its main thread.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { EngineFinding, RankState } from '../engine/model/types';
import type { FindingMerge } from './finding-merge';
import {
  CONTROL_ITEMS,
  CONTROL_TOKEN,
  type Answers,
  type FromShard,
  type Question,
  type ShardInit,
  type ToShard,
} from './shard-protocol';
import type { RecordColumns } from '../protocol/columns';
import type { Route } from './router';
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

/**
 * Each shard's young generation: V8 sizes it as three semi-spaces, so 96 MiB is the 32 MiB semi-space that
 * bin/mpiscope.js gives the coordinator (--max-semi-space-size=32; the default is 16). The engine makes
 * short-lived objects per call: twice the room halves the scavenges (180 -> 96 in bench/engine-throughput) and
 * fewer of those objects live long enough to be copied (measured in server/src/engine/README.md).
 */
const SHARD_YOUNG_GENERATION_MB = 96;

interface Shard {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly control: Int32Array;
  readonly writer: BatchWriter;
  /** The item the last mark written to this shard named (-1: none yet). */
  marked: number;
  /** The `upTo` of the last batch posted to it. */
  postedUpTo: number;
  /** Rows posted to it, in all. */
  rows: number;
  failed: string | undefined;
  /** The peak V8 heap of its thread, as it said when finishing (0 before). */
  heapPeak: number;
  /** Its thread's CPU time, as it said when it last answered a sync or finish (0 before). */
  cpuMs: number;
  /** The answer to the last question asked of it (the global shard), until taken. */
  answer: { readonly question: Question; readonly value: unknown } | undefined;
  /** Its end-of-run findings, once it answered 'finish', until taken. */
  readonly finished: EngineFinding[];
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
  private token = 0;
  private readonly maxLag: number;
  /** Items of the stream the coordinator has fully taken (the rows written now belong to the next). */
  private taken = 0;
  private flushQueued = false;
  private disposed = false;
  /** The global shard's last answer about the ranks' states, and whether a new one is on its way. */
  private states: RankState[];
  private statesAsked = false;

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
    this.maxLag = tuning.maxLagItems ?? MAX_LAG_ITEMS;
    // What an engine that took nothing yet says: every rank running.
    this.states = Array.from({ length: ranks }, (_, rank): RankState => ({ rank, state: 'running' }));
    const script = shardWorkerScript();
    for (let index = 0; index < count; index++) {
      const control = new SharedArrayBuffer(8);
      const { port1, port2 } = new MessageChannel();
      const init: ShardInit & { port: MessagePort } = { index, shards: count, ranks, control, port: port2 };
      const worker = new Worker(script, {
        workerData: init,
        transferList: [port2],
        resourceLimits: { maxYoungGenerationSizeMb: SHARD_YOUNG_GENERATION_MB },
      });
      // The shards never keep the process alive: the session ends them (dispose), a crash ends them anyway.
      worker.unref();
      port1.unref();
      this.shards.push({
        worker,
        port: port1,
        control: new Int32Array(control),
        writer: new BatchWriter(tuning.batchBytes),
        marked: -1,
        postedUpTo: 0,
        rows: 0,
        failed: undefined,
        heapPeak: 0,
        cpuMs: 0,
        answer: undefined,
        finished: [],
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

  /** Row `row` of `cols`, of the stream's item at position `item`, to the shards of `route`. */
  row(route: Route, cols: RecordColumns, row: number, item: number): void {
    for (const i of route) {
      const s = this.shards[i] as Shard;
      if (s.marked !== item) {
        s.marked = item;
        this.post(i, s.writer.mark(item));
      }
      this.post(i, s.writer.row(cols, row));
      s.rows++;
    }
  }

  /** The coordinator has taken `items` items of the stream (the last one's rows are all written). */
  advance(items: number): void {
    this.taken = items;
    this.queueFlush();
  }

  /** Rows sent to each shard so far. */
  rowsPerShard(): number[] {
    return this.shards.map((s) => s.rows);
  }

  /** Each shard thread's CPU time in ms, as of the last sync() or finish(). */
  cpuMs(): number[] {
    return this.shards.map((s) => s.cpuMs);
  }

  /** Each shard's peak heap in bytes, known after finish(). */
  heapPeaks(): number[] {
    return this.shards.map((s) => s.heapPeak);
  }

  /** Posts what is written so far, and to a shard that got no row since its last batch, the progress. */
  flush(): void {
    this.shards.forEach((s, i) => {
      const batch = s.writer.take();
      if (batch !== undefined || s.postedUpTo < this.taken) this.post(i, batch, true);
    });
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
    this.request((token) => ({ type: 'finish', token }));
    return this.shards.flatMap((s) => s.finished.splice(0));
  }

  /**
   * The global shard's (shard 0's) answer to a global question, once it has taken every item posted so far;
   * undefined when it failed (its checks are then named as skipped).
   */
  ask<Q extends Question>(question: Q): Answers[Q] | undefined {
    const s = this.shards[0] as Shard;
    // Ended threads answer nothing: a question after dispose() (a late status tick) must not wait for them.
    if (this.disposed || s.failed !== undefined) return undefined;
    this.flush();
    const token = ++this.token;
    s.answer = undefined;
    s.worker.postMessage({ type: 'ask', token, question } satisfies ToShard);
    this.waitOn(s, 0, CONTROL_TOKEN, 1000, () => Atomics.load(s.control, CONTROL_TOKEN) === token);
    this.drainPort(s, 0);
    const a = s.answer as { readonly question: Question; readonly value: unknown } | undefined;
    s.answer = undefined;
    return a?.question === question ? (a.value as Answers[Q] | undefined) : undefined;
  }

  /**
   * The ranks' states as the global shard last told them; without waiting, a new answer is asked for (one at
   * a time) and read on a later call. The session reads the states on every status tick: waiting there for
   * the global shard to catch up (or, at the start, for its thread to load) would hold the thread that
   * accepts the ranks' connections and reads their sockets.
   */
  statesSoon(): RankState[] {
    this.pump();
    const s = this.shards[0];
    if (s !== undefined && !this.statesAsked && !this.disposed && s.failed === undefined) {
      this.flush();
      this.statesAsked = true;
      s.worker.postMessage({ type: 'ask', token: ++this.token, question: 'states' } satisfies ToShard);
    }
    return this.states;
  }

  /** Whether shard 0, the global shard, failed: every global check is then missing. */
  globalFailed(): boolean {
    return this.shards[0]?.failed !== undefined;
  }

  /** Sends shard `index` these bytes as a batch, unchecked: what a bug of ours could send (the failure test). */
  postUnchecked(index: number, bytes: Uint8Array): void {
    const buffer = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(buffer).set(bytes);
    this.shards[index]?.worker.postMessage({
      type: 'batch',
      buffer,
      start: 0,
      end: bytes.byteLength,
      upTo: this.taken,
    } satisfies ToShard);
  }

  dispose(): Promise<unknown> {
    this.disposed = true;
    return Promise.all(this.shards.map((s) => s.worker.terminate()));
  }
  private request(make: (token: number) => ToShard): void {
    const token = ++this.token;
    for (const s of this.shards) s.worker.postMessage(make(token));
    this.shards.forEach((s, i) => {
      // The shard notifies its token word when it answers.
      this.waitOn(s, i, CONTROL_TOKEN, 1000, () => Atomics.load(s.control, CONTROL_TOKEN) === token);
      this.drainPort(s, i);
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

  private drainPort(s: Shard, i: number): void {
    for (let m = receiveMessageOnPort(s.port); m !== undefined; m = receiveMessageOnPort(s.port)) {
      const msg = m.message as FromShard;
      const source = this.firstSource + i;
      if (msg.type === 'found') this.merge.add(source, msg.item, msg.findings);
      else if (msg.type === 'passed') {
        this.merge.progress(source, msg.items);
        if (msg.cpuMs !== undefined) s.cpuMs = msg.cpuMs;
      } else if (msg.type === 'answer') {
        s.answer = { question: msg.question, value: msg.value };
        if (msg.question === 'states') {
          this.statesAsked = false;
          if (msg.value !== undefined) this.states = msg.value as RankState[];
        }
      } else if (msg.type === 'finished') {
        // Kept on the shard, not handed to the caller: the wait's own loop may be the one that reads it.
        s.finished.push(...msg.findings);
        s.heapPeak = msg.heapPeak;
        s.cpuMs = msg.cpuMs;
      } else {
        s.failed = `shard ${i} failed: ${msg.reason.split('\n')[0] ?? ''}`;
        // Its findings will not come: the others' must not wait for them.
        this.merge.progress(source, Number.MAX_SAFE_INTEGER);
      }
    }
  }

  /**
   * Posts a batch to shard `i` (a closed one, or at a flush the rest, or only the progress). A shard far
   * behind holds up the stream here (see MAX_LAG_ITEMS), until it is halfway back.
   */
  private post(i: number, batch: Batch | undefined, progress = false): void {
    if (batch === undefined && !progress) return;
    const s = this.shards[i] as Shard;
    s.postedUpTo = this.taken;
    s.worker.postMessage({
      type: 'batch',
      buffer: batch?.buffer,
      start: batch?.start ?? 0,
      end: batch?.end ?? 0,
      upTo: this.taken,
    } satisfies ToShard);
    if (this.taken - Atomics.load(s.control, CONTROL_ITEMS) <= this.maxLag) return;
    this.waitOn(
      s,
      i,
      CONTROL_ITEMS,
      2,
      () => this.taken - Atomics.load(s.control, CONTROL_ITEMS) <= this.maxLag / 2,
    );
  }

  /** Rows written in one turn of the event loop go out as one batch per shard. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
    }).unref();
  }
}
