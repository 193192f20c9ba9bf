import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from '../../../server/src/timeline/synthetic-job';
import { TimelineModel } from '../../../server/src/timeline/timeline-model';
import {
  emptyMessages,
  emptySpans,
  type TimelineMessage,
} from '../../../server/src/timeline/timeline-protocol';
import { Growable } from './growable';
import { Lane } from './lane';
import { lowerBound, upperBound, visibleRange } from './search';
import { sortTail } from './sort-tail';
import { TimelineStore } from './timeline-store';
import { packBlock } from '../../../server/src/timeline/packed-columns';

/** The synthetic job through the real model, taking a batch every `every` events (as the feed would). */
function batches(every: number): TimelineMessage[] {
  const job = syntheticJob({ ranks: 4, iterations: 20, deadlock: true });
  const model = new TimelineModel(4, '/tmp/halo');
  const out: TimelineMessage[] = [model.reset()];
  job.events.forEach((e, i) => {
    model.push(e);
    if (i % every === every - 1) {
      const b = model.takeBatch();
      if (b) out.push(b);
    }
  });
  for (const f of job.findings) model.addFinding(f);
  const last = model.takeBatch();
  if (last) out.push(last);
  return out;
}

function load(messages: TimelineMessage[]): TimelineStore {
  const store = new TimelineStore();
  for (const m of messages) assert.ok(store.apply(m));
  return store;
}

describe('TimelineStore', () => {
  it('holds the same job from packed batches (the trace editor) as from JSON ones (the live panel)', () => {
    const json = batches(37);
    const packed = json.map((m) =>
      m.type === 'data' ? { ...m, spans: emptySpans(), messages: emptyMessages(), packed: packBlock(m) } : m,
    );
    const a = load(json);
    const b = load(packed);
    assert.ok(a.spanCount > 100 && a.messages.length > 10);
    assert.equal(b.spanCount, a.spanCount);
    a.lanes.forEach((lane, r) => {
      const other = b.lanes[r];
      assert.ok(other);
      for (const col of ['start', 'end', 'fn', 'site', 'comm', 'coll'] as const)
        assert.deepEqual(Array.from(other[col].values), Array.from(lane[col].values), `rank ${r} ${col}`);
    });
    assert.deepEqual(b.matrix, a.matrix);
    assert.deepEqual(b.lod.lanes, a.lod.lanes);
    assert.equal(b.messages.length, a.messages.length);
  });

  it("paces its views' frames while a trace loads, not while a live job runs", () => {
    const [reset, ...data] = batches(60);
    assert.ok(reset?.type === 'reset' && data.length > 2);
    const live = load([reset, ...data.slice(0, 2)]);
    assert.equal(live.changeInterval, 0);
    const trace = load([{ ...reset, replay: true }, ...data.slice(0, 2)]);
    assert.equal(trace.changeInterval, 400);
    for (const m of data.slice(2)) trace.apply(m);
    assert.equal(trace.changeInterval, 400, 'the deadlocked job has not ended');
    const last = data.at(-1);
    assert.ok(last?.type === 'data');
    // A trace read whole ends its job (TimelineModel.finish): its last batch says so.
    trace.apply({
      ...last,
      seq: last.seq + 1,
      spans: emptySpans(),
      messages: emptyMessages(),
      findings: [],
      ended: true,
    });
    assert.ok(trace.ended);
    assert.equal(trace.changeInterval, 0, 'the frame with the whole job is not held back');
    trace.apply(reset);
    assert.equal(trace.replay, false, 'a new job starts live');
  });

  it('finds calls by name over every lane, the calls in progress included, in time order', () => {
    const store = load(batches(50));
    const recv = store.functionsMatching('recv');
    const names = [...recv].map((f) => store.functionName(f)).sort();
    assert.deepEqual(names, ['MPI_Irecv', 'MPI_Recv']);
    assert.deepEqual(store.functionsMatching('  '), new Set());
    assert.deepEqual(
      [...store.functionsMatching('mpi_allreduce')].map((f) => store.functionName(f)),
      ['MPI_Allreduce'],
    );
    // Counted by hand from the columns: every completed call of those functions, plus the 3 blocked MPI_Recv.
    let byHand = 0;
    for (const lane of store.lanes) for (const f of lane.fn.values) if (recv.has(f)) byHand++;
    const blocked = store.open.filter((o) => recv.has(o.fn)).length;
    assert.equal(blocked, 3);
    assert.equal(store.countCalls(recv), byHand + blocked);
    // Stepping forward visits starts in non-decreasing order and ends on the calls in progress.
    const seen: number[] = [];
    let t = -Infinity;
    for (;;) {
      const hit = store.nextCall(recv, t, 1);
      if (hit === undefined) break;
      const start =
        hit.index >= 0
          ? (store.lanes[hit.rank]?.start.at(hit.index) ?? NaN)
          : (store.open.find((o) => o.rank === hit.rank)?.start ?? NaN);
      assert.ok(start > t);
      seen.push(hit.index);
      t = start;
    }
    assert.ok(seen.length > 10);
    assert.equal(seen.at(-1), -1);
    const back = store.nextCall(recv, t, -1);
    assert.ok(back !== undefined);
  });

  it("numbers each rank's collectives per communicator, so the k-th of every member is one operation", () => {
    const store = load(batches(37));
    const allreduce = store.functionsMatching('Allreduce');
    const perRank = store.lanes.map((lane) => {
      const ks: number[] = [];
      lane.fn.values.forEach((f, i) => {
        if (allreduce.has(f)) ks.push(lane.coll.at(i));
      });
      return ks;
    });
    assert.ok((perRank[0]?.length ?? 0) > 1);
    for (const ks of perRank)
      assert.deepEqual(
        ks,
        ks.map((_, i) => i),
      );
    // Point-to-point calls are no collective.
    const lane0 = store.lanes[0];
    const send = store.functionsMatching('Isend');
    lane0?.fn.values.forEach((f, i) => {
      if (send.has(f)) assert.equal(lane0.coll.at(i), -1);
    });
  });

  it('ends up with the same lanes and messages whether the job came in one batch or in many', () => {
    const whole = load(batches(1e9));
    const pieces = load(batches(37));
    assert.equal(pieces.gaps, 0);
    assert.equal(whole.ranks, 4);
    assert.equal(pieces.spanCount, whole.spanCount);
    assert.ok(whole.spanCount > 4 * 20 * 5);
    for (let r = 0; r < 4; r++) {
      assert.deepEqual(pieces.lanes[r]?.start.values, whole.lanes[r]?.start.values, `lane ${r}`);
      assert.deepEqual(pieces.lanes[r]?.fn.values, whole.lanes[r]?.fn.values, `lane ${r}`);
    }
    assert.deepEqual(pieces.messages.sendTime.values, whole.messages.sendTime.values);
    assert.deepEqual(pieces.messages.recvTime.values, whole.messages.recvTime.values);
    assert.deepEqual(pieces.matrix, whole.matrix);
    assert.equal(whole.findings.length, 1);
    assert.deepEqual(
      whole.open.map((o) => o.rank),
      [0, 1, 2],
    );
  });

  it('gives findings that arrive in a later batch a new findings array, as lit compares by identity', () => {
    const messages = batches(1e9);
    const store = load(messages.slice(0, -1));
    const before = store.findings;
    assert.equal(before.length, 0);
    const last = messages.at(-1);
    assert.ok(last !== undefined && store.apply(last));
    assert.equal(store.findings.length, 1);
    assert.notEqual(store.findings, before, 'the same array mutated: the findings list would not re-render');
    const unchanged = store.findings;
    assert.equal(last.type, 'data');
    const quiet: TimelineMessage = {
      type: 'data',
      seq: last.type === 'data' ? last.seq + 1 : 0,
      ranks: 4,
      now: store.now,
      functions: [],
      sites: [],
      spans: emptySpans(),
      messages: emptyMessages(),
      findings: [],
      open: [],
      ended: false,
    };
    assert.ok(store.apply(quiet));
    assert.equal(store.findings, unchanged, 'a batch without findings keeps the array');
  });

  it('keeps every lane and the message table sorted by start', () => {
    const store = load(batches(11));
    for (const lane of store.lanes) {
      const s = lane.start.values;
      for (let i = 1; i < s.length; i++) assert.ok((s[i - 1] ?? 0) <= (s[i] ?? 0));
    }
    const m = store.messages.sendTime.values;
    for (let i = 1; i < m.length; i++) assert.ok((m[i - 1] ?? 0) <= (m[i] ?? 0));
  });

  it('counts bytes per (sender, receiver) in the matrix: a ring exchange fills only the neighbours', () => {
    const store = load(batches(100));
    const n = store.ranks;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const neighbour = j === (i + 1) % n || j === (i + n - 1) % n;
        assert.equal((store.matrix[i * n + j] ?? 0) > 0, neighbour, `${i}→${j}`);
      }
    }
  });

  it('ignores what is not a timeline message, and a reset forgets the previous job', () => {
    const store = load(batches(100));
    assert.equal(store.apply({ type: 'data' }), false);
    assert.equal(store.apply('hello'), false);
    store.apply({ type: 'reset', ranks: 2, program: '' });
    assert.equal(store.spanCount, 0);
    assert.equal(store.ranks, 2);
    assert.equal(store.messages.length, 0);
  });

  it('notices a missing batch', () => {
    const all = batches(50);
    const store = load([...all.slice(0, 2), ...all.slice(3)]);
    assert.equal(store.gaps, 1);
  });
});

describe('search', () => {
  it('lowerBound and upperBound agree with a linear scan', () => {
    const v = [1, 2, 2, 2, 5, 9];
    for (let t = 0; t <= 10; t++) {
      assert.equal(
        lowerBound(v, v.length, t),
        v.findIndex((x) => x >= t) === -1 ? v.length : v.findIndex((x) => x >= t),
      );
      assert.equal(
        upperBound(v, v.length, t),
        v.findIndex((x) => x > t) === -1 ? v.length : v.findIndex((x) => x > t),
      );
    }
  });

  it('visibleRange contains every span that overlaps the window', () => {
    const starts = [0, 10, 20, 30, 40, 50];
    const ends = [100, 12, 21, 35, 45, 51];
    const endMax = ends.map((_, i) => Math.max(...ends.slice(0, i + 1)));
    for (const [t0, t1] of [
      [11, 11],
      [22, 29],
      [44, 60],
      [200, 300],
    ] as const) {
      const [from, to] = visibleRange(starts, endMax, starts.length, t0, t1);
      starts.forEach((s, i) => {
        const overlaps = s <= t1 && (ends[i] ?? 0) >= t0;
        if (overlaps) assert.ok(i >= from && i < to, `span ${i} in [${t0}, ${t1}]`);
      });
    }
  });

  it('visibleRange starts after calls that ended before the window, despite one long call', () => {
    // A rank's calls do not overlap: one long call early (MPI_Init) must not widen later windows.
    const lane = new Lane();
    lane.push(0, 1000, 1, -1, -1);
    for (let i = 0; i < 100; i++) lane.push(1000 + i * 10, 1005 + i * 10, 2, -1, -1);
    lane.settle();
    const [from, to] = visibleRange(lane.start.values, lane.endMax.values, lane.length, 1500, 1520);
    assert.deepEqual([from, to], [51, 54]); // 1500-1505, 1510-1515, and 1520-1525 touching t1
  });

  it('endMax stays the running maximum when a batch arrives out of order', () => {
    const lane = new Lane();
    for (const [s, e] of [
      [0, 5],
      [10, 50],
      [60, 61],
    ] as const)
      lane.push(s, e, 1, -1, -1);
    lane.settle();
    for (const [s, e] of [
      [70, 71],
      [20, 25],
    ] as const)
      lane.push(s, e, 1, -1, -1);
    lane.settle();
    assert.deepEqual([...lane.start.values], [0, 10, 20, 60, 70]);
    assert.deepEqual([...lane.endMax.values], [5, 50, 50, 61, 71]);
  });

  it('sortTail merges an out-of-order tail and carries the other columns along', () => {
    const key = new Growable(2);
    const payload = new Growable(2);
    for (const v of [1, 3, 5, 7]) {
      key.push(v);
      payload.push(v * 10);
    }
    for (const v of [6, 2, 8]) {
      key.push(v);
      payload.push(v * 10);
    }
    assert.equal(sortTail(key, [key, payload], 4), 1, 'rows from the first that moved');
    assert.deepEqual([...key.values], [1, 2, 3, 5, 6, 7, 8]);
    assert.deepEqual([...payload.values], [10, 20, 30, 50, 60, 70, 80]);
    // A tail in order after the old rows (equal keys included) moves nothing.
    for (const v of [8, 9, 9, 12]) {
      key.push(v);
      payload.push(-v);
    }
    assert.equal(sortTail(key, [key, payload], 7), 7);
    assert.deepEqual([...key.values], [1, 2, 3, 5, 6, 7, 8, 8, 9, 9, 12]);
    assert.deepEqual([...payload.values], [10, 20, 30, 50, 60, 70, 80, -8, -9, -9, -12]);
    // One row out of order at the end is still merged in.
    key.push(4);
    payload.push(40);
    assert.equal(sortTail(key, [key, payload], 11), 3);
    assert.deepEqual([...key.values], [1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 12]);
    assert.deepEqual([...payload.values], [10, 20, 30, 40, 50, 60, 70, 80, -8, -9, -9, -12]);
  });

  it('sortTail orders batches of many equal keys as a stable sort does, batch after batch', () => {
    // A fixed linear congruential sequence: the same cases on every run.
    let seed = 12345;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const key = new Growable(4);
    const row = new Growable(4);
    const expected: [number, number][] = [];
    let sorted = 0;
    for (let batch = 0; batch < 20; batch++) {
      // Keys overlapping the previous batches' (the merge) and repeating within the batch (ties), some -0.
      const size = 1 + next(60);
      for (let i = 0; i < size; i++) {
        const k = batch * 5 + next(40) - 20 || (next(2) === 0 ? -0 : 0);
        key.push(k);
        row.push(expected.length);
        expected.push([k, expected.length]);
      }
      sortTail(key, [key, row], sorted);
      sorted = key.length;
      // Old rows before new ones among equal keys, each group in arrival order: stable.
      const want = [...expected].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      assert.deepEqual(
        [...row.values],
        want.map(([, r]) => r),
        `after batch ${batch}`,
      );
      assert.deepEqual(
        [...key.values],
        want.map(([k]) => k),
      );
    }
  });
});
