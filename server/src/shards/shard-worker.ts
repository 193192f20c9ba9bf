/**
 * One shard on a worker thread: the same engine, fed only the calls the coordinator's router gave it
 * (router.ts), already decoded, and owning the checks of its rank pairs and communicators
 * (ownership-map.ts). Shard 0 is also the global shard: it is sent every call and answers the global questions
 * (the wait-for graph, rank states, message queues, the end-of-run analyses) that the coordinator asks. It reports findings tagged with the position of the stream's item they came after, and
 * answers syncs; it never throws at the coordinator (a failure is reported and every later request is still
 * answered, so that the coordinator never waits forever).
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createEngine } from '../engine/engine';
import { RecordColumns } from '../protocol/columns';
import { globalShardOwnership, shardOwnership } from './ownership-map';
import {
  CONTROL_ITEMS,
  CONTROL_TOKEN,
  type Answers,
  type FromShard,
  type Question,
  type ShardInit,
  type ToShard,
} from './shard-protocol';
import { readBatch } from './stream-batch';
import { threadCpuMs } from './thread-cpu';

const init = workerData as ShardInit & { readonly port: MessagePort };
const control = new Int32Array(init.control);
const port = init.port;
const engine = createEngine({
  ranks: init.ranks,
  owns: init.index === 0 ? globalShardOwnership(init.shards) : shardOwnership(init.index, init.shards),
});
const cols = new RecordColumns(1024);
/** The item whose rows are being fed; its findings are tagged with it. */
let item = 0;
/** Items of the stream the coordinator had taken when it posted the last batch: all passed once it is done. */
let passed = 0;
let failure: string | undefined;
let heapPeak = 0;

function send(m: FromShard): void {
  port.postMessage(m);
}

function take(): void {
  const found = engine.takeFindings();
  if (found.length > 0) send({ type: 'found', item, findings: found });
}

function batch(m: Extract<ToShard, { type: 'batch' }>): void {
  if (m.buffer !== undefined)
    readBatch(
      m.buffer,
      m.start,
      m.end,
      cols,
      (rows) => engine.pushColumns(rows, 0, rows.length),
      (next) => {
        take();
        item = next;
      },
    );
  take();
  passed = m.upTo;
  Atomics.store(control, CONTROL_ITEMS, passed);
  Atomics.notify(control, CONTROL_ITEMS);
  send({ type: 'passed', items: passed });
  heapPeak = Math.max(heapPeak, getHeapStatistics().used_heap_size);
}

function answer(token: number): void {
  Atomics.store(control, CONTROL_TOKEN, token);
  Atomics.notify(control, CONTROL_TOKEN);
}

function ask(question: Question): Answers[Question] {
  switch (question) {
    case 'deadlock': {
      const found = engine.findDeadlock();
      return { found, released: engine.takeFindings() };
    }
    case 'release':
      engine.releaseHeld();
      return engine.takeFindings();
    case 'states':
      return engine.rankStates();
    case 'queues':
      return engine.messageQueues();
    case 'lost':
      return engine.lostRecords();
    case 'skipped':
      return engine.skippedChecks();
  }
}

parentPort?.on('message', (m: ToShard) => {
  try {
    if (failure === undefined && m.type === 'batch') batch(m);
    if (m.type === 'ask') {
      // A failed engine's state is not to be trusted: no answer (the coordinator says so in the report).
      send({
        type: 'answer',
        question: m.question,
        value: failure === undefined ? ask(m.question) : undefined,
      });
    }
    if (m.type === 'finish')
      send({
        type: 'finished',
        findings: failure === undefined ? engine.finish() : [],
        heapPeak,
        cpuMs: threadCpuMs() ?? performance.eventLoopUtilization().active,
      });
  } catch (err) {
    failure = err instanceof Error ? (err.stack ?? err.message) : String(err);
    send({ type: 'failed', reason: failure });
  }
  if (m.type !== 'batch') {
    send({
      type: 'passed',
      items: passed,
      cpuMs: threadCpuMs() ?? performance.eventLoopUtilization().active,
    });
    answer(m.token);
  }
});
