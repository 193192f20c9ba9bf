import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockBytes, packTimeline, unpackTimeline } from './packed-columns';
import { syntheticJob } from './synthetic-job';
import { TimelineModel } from './timeline-model';
import { emptyMessages, emptySpans, type TimelineData, type TimelineMessage } from './timeline-protocol';

/** A model's messages for a synthetic job, a batch every `every` events (as trace-timeline.ts batches). */
function modelMessages(every: number): TimelineMessage[] {
  const job = syntheticJob({ ranks: 5, iterations: 40, deadlock: true });
  const model = new TimelineModel(5, '/bin/halo');
  const out: TimelineMessage[] = [model.reset()];
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

/** A message with its columns as plain arrays, for comparing typed and JSON forms. */
function plain(m: TimelineMessage): TimelineMessage {
  if (m.type !== 'data') return m;
  const cols = (c: object): Record<string, number[]> =>
    Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]));
  return { ...m, spans: cols(m.spans) as never, messages: cols(m.messages) as never };
}

describe('packed timeline columns', () => {
  it('give back every batch of a job exactly, as typed arrays', () => {
    const messages = modelMessages(97);
    const data = messages.filter((m): m is TimelineData => m.type === 'data');
    assert.ok(data.length > 3 && data.some((d) => d.messages.src.length > 0));
    const { headers, bytes } = packTimeline(messages);
    // The headers carry no columns; everything else of each message is there.
    for (const h of headers) {
      if (h.type === 'data') {
        assert.deepEqual(h.spans, emptySpans());
        assert.deepEqual(h.messages, emptyMessages());
      }
    }
    const back = unpackTimeline(headers, new Uint8Array(bytes));
    assert.deepEqual(back.map(plain), messages);
    const first = back.find((m): m is TimelineData => m.type === 'data');
    assert.ok(first?.spans.start instanceof Float64Array && first.spans.rank instanceof Int32Array);
    // Each batch has an ArrayBuffer of its own (postMessage sends a referenced buffer whole).
    const buffers = new Set(
      back.flatMap((m) => (m.type === 'data' ? [(m.spans.start as Float64Array).buffer] : [])),
    );
    assert.equal(buffers.size, data.length);
  });

  it('keep times past 2^31, byte counts past 2^32, negative ids and odd row counts', () => {
    const d: TimelineData = {
      type: 'data',
      seq: 0,
      ranks: 3,
      now: 9e15,
      functions: [],
      sites: [],
      spans: {
        rank: [2, 0, 1],
        start: [0, 2 ** 40 + 1, 9e15],
        end: [1.5, 2 ** 41, 9e15 + 2],
        fn: [0, 1, 2],
        site: [-1, 5, 0],
        comm: [-1, 3, 0],
      },
      messages: { src: [1], sendTime: [2 ** 33], dst: [2], recvTime: [2 ** 33 + 7], bytes: [6e9], tag: [-1] },
      findings: [],
      open: [],
      ended: true,
    };
    const { headers, bytes } = packTimeline([d]);
    assert.equal(bytes.byteLength, blockBytes(3, 1));
    assert.equal(bytes.byteLength % 8, 0);
    assert.deepEqual(unpackTimeline(headers, new Uint8Array(bytes)).map(plain), [d]);
  });

  it('refuse a file that is cut short or has bytes to spare', () => {
    const messages = modelMessages(200);
    const { headers, bytes } = packTimeline(messages);
    const all = new Uint8Array(bytes);
    assert.throws(() => unpackTimeline(headers, all.subarray(0, all.length - 8)), /runs past the end/);
    assert.throws(() => unpackTimeline(headers, all.subarray(0, 4)), /block header/);
    const longer = new Uint8Array(all.length + 8);
    longer.set(all);
    assert.throws(() => unpackTimeline(headers, longer), /8 bytes left/);
  });
});
