/**
 * The messages between the coordinator and its shard threads, in one place (both sides import this file).
 * Batches of a shard's own decoded rows travel as SharedArrayBuffers (stream-batch.ts); findings as structured clones, which are few.
 * Replies go through a dedicated MessagePort that the coordinator reads synchronously
 * (receiveMessageOnPort) after waiting on the shard's control word (Atomics.wait), so that the engine's
 * synchronous interface (findDeadlock, finish) holds with shards on other threads.
 */
import type { EngineFinding, RankState, SkippedCheck } from '../engine/model/types';
import type { MessageQueues } from '../engine/point-to-point/message-queues';

/** The global questions only the global shard (shard 0) answers, after every batch posted before. */
export type Question = 'deadlock' | 'release' | 'states' | 'queues' | 'lost' | 'skipped';

/** The global shard's answers, by question. */
export interface Answers {
  /** findDeadlock(), and the findings it released (held ones: the job ends without finish()). */
  readonly deadlock: { readonly found: EngineFinding | undefined; readonly released: EngineFinding[] };
  /** releaseHeld(): the findings it released. */
  readonly release: EngineFinding[];
  readonly states: RankState[];
  readonly queues: MessageQueues;
  readonly lost: number;
  readonly skipped: SkippedCheck[];
}

export interface ShardInit {
  readonly index: number;
  readonly shards: number;
  readonly ranks: number;
  /** [0]: the last sync token answered; [1]: items of the stream passed so far (a stall shows here). */
  readonly control: SharedArrayBuffer;
}

export type ToShard =
  /**
   * The shard's rows of buffer[start, end) (none: no buffer, only progress), after which the coordinator had
   * taken `upTo` items of the stream: the shard has then passed them all.
   */
  | {
      readonly type: 'batch';
      readonly buffer: SharedArrayBuffer | undefined;
      readonly start: number;
      readonly end: number;
      readonly upTo: number;
    }
  /** Answer with 'passed' once every batch before this is done, then store `token` in control[0]. */
  | { readonly type: 'sync'; readonly token: number }
  /** As 'sync', after the engine's end-of-run checks (answered with 'finished'). */
  | { readonly type: 'finish'; readonly token: number }
  /** As 'sync', with the answer to a global question (the global shard only; answered with 'answer'). */
  | { readonly type: 'ask'; readonly token: number; readonly question: Question };

export type FromShard =
  /** Findings taken after the item at this position of the stream. */
  | { readonly type: 'found'; readonly item: number; readonly findings: EngineFinding[] }
  /** `cpuMs` (the answer to a sync or finish): the thread's CPU time so far, as in 'finished'. */
  | { readonly type: 'passed'; readonly items: number; readonly cpuMs?: number }
  /**
   * `heapPeak`: the most V8 heap this shard's thread used after a batch, in bytes (memory per shard);
   * `cpuMs`: its thread's CPU time from its start (thread-cpu.ts; its busy time, event-loop utilization,
   * where the thread's own CPU time cannot be read), what bench/shard-sim divides its calls by.
   */
  | {
      readonly type: 'finished';
      readonly findings: EngineFinding[];
      readonly heapPeak: number;
      readonly cpuMs: number;
    }
  /** The answer to 'ask' (undefined: the shard had failed). */
  | { readonly type: 'answer'; readonly question: Question; readonly value: Answers[Question] | undefined }
  /** The shard could not go on (a bug of ours): its checks are missing from the report, which says so. */
  | { readonly type: 'failed'; readonly reason: string };

export const CONTROL_TOKEN = 0;
export const CONTROL_ITEMS = 1;
