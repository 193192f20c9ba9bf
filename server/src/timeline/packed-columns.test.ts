import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packBlock, unpackBlock } from './packed-columns';
import { syntheticJob } from './synthetic-job';
import { TimelineModel } from './timeline-model';
import type { TimelineData } from './timeline-protocol';

/** A model's data batches for a synthetic job, a batch every `every` events (as trace-timeline.ts batches). */
function modelBatches(every: number): TimelineData[] {
  const job = syntheticJob({ ranks: 5, iterations: 40, deadlock: true });
  const model = new TimelineModel(5, '/bin/halo');
  const out: TimelineData[] = [];
  job.events.forEach((e, i) => {
    model.push(e);
    if ((i + 1) % every === 0) {
      const b = model.takeBatch();
      if (b !== undefined) out.push(b);
    }
  });
  model.finish();
  const b = model.takeBatch();
  if (b !== undefined) out.push(b);
  return out;
}

/** Columns as plain arrays, for comparing the typed and the JSON forms. */
function plain(cols: object): Record<string, number[]> {
  return Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]));
}

function batch(spans: TimelineData['spans'], messages: TimelineData['messages']): TimelineData {
  return {
    type: 'data',
    seq: 0,
    ranks: 3,
    now: 0,
    functions: [],
    sites: [],
    spans,
    messages,
    findings: [],
    open: [],
    ended: true,
  };
}

describe('packed timeline columns', () => {
  it('give back every batch of a job exactly', () => {
    const batches = modelBatches(97);
    assert.ok(batches.length > 3 && batches.some((d) => d.messages.src.length > 0));
    for (const d of batches) {
      const back = unpackBlock(new Uint8Array(packBlock(d)), 0);
      assert.deepEqual(plain(back.spans), d.spans);
      assert.deepEqual(plain(back.messages), d.messages);
    }
  });

  it('store each column as narrowly as its values allow: int8, int16, int32, uint32 from a base', () => {
    const d = batch(
      {
        rank: [2, 0, 1],
        start: [0, 2 ** 40 + 1, 9e12],
        end: [1.5e3, 2 ** 41, 9e12 + 2],
        fn: [0, 1, 300],
        site: [-1, 5, 0],
        comm: [-1, 3, 0],
      },
      { src: [1], sendTime: [2 ** 33], dst: [2], recvTime: [2 ** 33 + 7], bytes: [6e9], tag: [-1] },
    );
    const block = packBlock(d);
    // Header 24; spans: rank int8 (8 padded), start and end past 2^32 apart: float64 (24 each), fn int16 (8),
    // site and comm int8 (8 each); messages: src, dst, tag int8 (8 each), the times and bytes based (8 + 8).
    assert.equal(block.byteLength, 24 + (8 + 24 + 24 + 8 + 8 + 8) + (8 + 16 + 8 + 16 + 16 + 8));
    const back = unpackBlock(new Uint8Array(block), 0);
    assert.ok(back.spans.rank instanceof Int8Array && back.spans.fn instanceof Int16Array);
    assert.ok(back.messages.sendTime instanceof Float64Array);
    assert.deepEqual(plain(back.spans), d.spans);
    assert.deepEqual(plain(back.messages), d.messages);
    // Times a batch spans in less than 2^32 ns travel as 4 bytes each, exactly.
    const times = batch(
      {
        rank: [0, 0],
        start: [7e9, 7e9 + 4e9],
        end: [7e9 + 3, 7e9 + 4e9 + 1],
        fn: [1, 1],
        site: [0, 0],
        comm: [0, 0],
      },
      { src: [], sendTime: [], dst: [], recvTime: [], bytes: [], tag: [] },
    );
    const tb = packBlock(times);
    assert.equal(tb.byteLength, 24 + 8 + 16 + 16 + 8 + 8 + 8); // No message: empty columns take no bytes.
    assert.deepEqual(plain(unpackBlock(new Uint8Array(tb), 0).spans), times.spans);
  });

  it('keep non-integers, -0, NaN and wide ranges as float64, bit for bit', () => {
    const odd = [0.5, -0, NaN, 2 ** 60, -(2 ** 40), 1e-9];
    const d = batch(
      {
        rank: [0, 1, 2, 0, 1, 2],
        start: odd,
        end: odd,
        fn: [0, 0, 0, 0, 0, 0],
        site: odd,
        comm: [0, 1, 2, 3, 4, 5],
      },
      { src: [0], sendTime: [-0], dst: [1], recvTime: [NaN], bytes: [2 ** 53 + 2], tag: [0.25] },
    );
    const back = unpackBlock(new Uint8Array(packBlock(d)), 0);
    assert.deepEqual(plain(back.spans), d.spans);
    assert.deepEqual(plain(back.messages), d.messages);
  });

  it('read blocks back to back, at any alignment, and refuse a cut or foreign one', () => {
    const [a, b] = modelBatches(150);
    assert.ok(a && b);
    const pa = new Uint8Array(packBlock(a));
    const pb = new Uint8Array(packBlock(b));
    // A Node Buffer read from a file may start anywhere in its memory: unaligned views are copied (and a
    // Buffer's slice() would not copy).
    const file = Buffer.alloc(pa.length + pb.length + 3).subarray(3);
    file.set(pa);
    file.set(pb, pa.length);
    const first = unpackBlock(file, 0);
    assert.equal(first.next, pa.length);
    assert.deepEqual(plain(first.spans), a.spans);
    assert.deepEqual(plain(first.messages), a.messages);
    const second = unpackBlock(file, first.next);
    assert.equal(second.next, file.length);
    assert.deepEqual(plain(second.spans), b.spans);
    assert.throws(() => unpackBlock(pa.subarray(0, pa.length - 8), 0), /runs past the end/);
    assert.throws(() => unpackBlock(pa.subarray(0, 4), 0), /block header/);
    const foreign = pa.slice();
    foreign[8] = 9;
    assert.throws(() => unpackBlock(foreign, 0), /unknown column kind/);
  });
});
