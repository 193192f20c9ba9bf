/**
 * One shard on a worker thread: the same engine, fed the same stream of raw frames as every other shard and
 * decoded here, owning the checks of its rank pairs and communicators (ownership-map.ts). It reports
 * findings after every item and answers syncs; it never throws at the coordinator (a failure is reported and
 * every later request is still answered, so that the coordinator never waits forever).
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Engine } from '../engine/engine-api';
import { createEngine } from '../engine/engine';
import type { RankEvent } from '../engine/model/types';
import { shardOwnership } from './ownership-map';
import { CONTROL_ITEMS, CONTROL_TOKEN, type FromShard, type ShardInit, type ToShard } from './shard-protocol';
import { readBatch } from './stream-batch';

const init = workerData as ShardInit & { readonly port: MessagePort };
const control = new Int32Array(init.control);
const port = init.port;
const engine: Engine = createEngine({ ranks: init.ranks, owns: shardOwnership(init.index, init.shards) });
let items = 0;
let failure: string | undefined;
let heapPeak = 0;

function send(m: FromShard): void {
  port.postMessage(m);
}

function take(): void {
  const found = engine.takeFindings();
  if (found.length > 0) send({ type: 'found', item: items, findings: found });
  items++;
  Atomics.store(control, CONTROL_ITEMS, items);
}

function batch(buffer: SharedArrayBuffer, start: number, end: number): void {
  for (const item of readBatch(buffer, start, end)) {
    if (item.kind === 'frame') {
      // The coordinator decoded this frame without error before forwarding it; the engine decodes it into
      // its own columns with its own decoder per rank.
      engine.pushRecords(item.rank, item.data);
    } else {
      const end: RankEvent = {
        type: 'end',
        rank: item.rank,
        seq: item.seq,
        time: item.time,
        how: 'disconnected',
        code: 0,
        dropped: 0,
      };
      engine.push(end);
    }
    take();
  }
  send({ type: 'passed', items });
  heapPeak = Math.max(heapPeak, getHeapStatistics().used_heap_size);
}

function answer(token: number): void {
  Atomics.store(control, CONTROL_TOKEN, token);
  Atomics.notify(control, CONTROL_TOKEN);
}

parentPort?.on('message', (m: ToShard) => {
  try {
    if (failure === undefined && m.type === 'batch') batch(m.buffer, m.start, m.end);
    if (m.type === 'finish')
      send({ type: 'finished', findings: failure === undefined ? engine.finish() : [], heapPeak });
  } catch (err) {
    failure = err instanceof Error ? (err.stack ?? err.message) : String(err);
    send({ type: 'failed', reason: failure });
  }
  if (m.type !== 'batch') {
    send({ type: 'passed', items });
    answer(m.token);
  }
});
