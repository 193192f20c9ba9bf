import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArgValue, RankEvent } from '../engine/model/types';
import { functionNamed } from '../protocol/spec';
import { syntheticJob } from './synthetic-job';
import { TimelineModel } from './timeline-model';
import { CallClass, type TimelineData } from './timeline-protocol';

/** A rank's stream written by hand: each call is enter, completions, exit at consecutive times. */
class Stream {
  readonly events: RankEvent[] = [];
  private seq = 0;
  constructor(
    readonly rank: number,
    private time: number,
  ) {}
  at(time: number): this {
    this.time = time;
    return this;
  }
  clock(realtime: number): this {
    this.events.push({ type: 'clock', rank: this.rank, seq: 0, time: this.time, realtime });
    return this;
  }
  call(
    name: string,
    args: Record<string, ArgValue>,
    o: {
      completes?: [number, number, number, number][];
      out?: Record<string, ArgValue>;
      hang?: boolean;
      site?: number;
    } = {},
  ): this {
    const fn = functionNamed(name);
    const seq = ++this.seq;
    const rank = this.rank;
    this.events.push({
      type: 'enter',
      rank,
      seq,
      time: this.time++,
      fn,
      site: o.site ?? 0x400000 + seq,
      args,
    });
    if (o.hang === true) return this;
    for (const [request, source, tag, bytes] of o.completes ?? []) {
      this.events.push({
        type: 'complete',
        rank,
        seq,
        time: this.time++,
        fn,
        request,
        source,
        tag,
        bytes,
        error: 0,
        cancelled: false,
      });
    }
    this.events.push({ type: 'exit', rank, seq, time: this.time++, fn, returnCode: 0, outputs: o.out ?? {} });
    return this;
  }
  send(dest: number, tag: number, name = 'MPI_Send'): this {
    return this.call(name, { buf: 1, count: 1, datatype: 1, dest, tag, comm: 9 });
  }
  recv(source: number, tag: number, got: [number, number] = [source, tag], bytes = 4): this {
    return this.call(
      'MPI_Recv',
      { buf: 1, count: 1, datatype: 1, source, tag, comm: 9, status: 0 },
      { completes: [[0, got[0], got[1], bytes]] },
    );
  }
}

function run(streams: Stream[], order: 'by-rank' | 'reverse' = 'by-rank'): TimelineData {
  const m = new TimelineModel(streams.length);
  const list = order === 'by-rank' ? streams : [...streams].reverse();
  for (const s of list) for (const e of s.events) m.push(e);
  const b = m.takeBatch();
  assert.ok(b);
  return b;
}

describe('TimelineModel', () => {
  it('makes one span per returned call, with the function named once', () => {
    const r0 = new Stream(0, 100).send(1, 5).send(1, 5);
    const b = run([r0, new Stream(1, 100)]);
    assert.deepEqual(b.spans.rank, [0, 0]);
    assert.deepEqual(b.spans.start, [0, 2]);
    assert.deepEqual(b.spans.end, [1, 3]);
    assert.deepEqual(b.functions, [
      { id: functionNamed('MPI_Send').id, name: 'MPI_Send', cls: CallClass.send },
    ]);
  });

  it('pairs sends with receives in posting order on a channel, whichever rank streams first', () => {
    // Both ranks carry a CLOCK record, so the origin does not depend on which stream arrives first.
    const r0 = new Stream(0, 0).clock(1000).send(1, 5).send(1, 6).send(1, 5);
    const r1 = new Stream(1, 0)
      .clock(1000)
      .at(10)
      .recv(0, 6)
      .recv(-1, -1, [0, 5], 100)
      .recv(0, 5, [0, 5], 200);
    for (const order of ['by-rank', 'reverse'] as const) {
      const b = run([r0, r1], order);
      // Batches list messages in the order they were paired, which depends on arrival; compare as a set.
      const rows = Array.from(b.messages.tag, (tag, i) => [
        b.messages.src[i],
        b.messages.sendTime[i],
        b.messages.dst[i],
        b.messages.recvTime[i],
        b.messages.bytes[i],
        tag,
      ]).sort((x, y) => (x[1] ?? 0) - (y[1] ?? 0));
      // Tag 6 was sent second (t=2) and received first; the two tag-5 messages keep their order.
      assert.deepEqual(rows, [
        [0, 0, 1, 14, 100, 5],
        [0, 2, 1, 11, 4, 6],
        [0, 4, 1, 17, 200, 5],
      ]);
    }
  });

  it('pairs nonblocking receives completed by a wait through their request', () => {
    const r0 = new Stream(0, 0).call(
      'MPI_Isend',
      { buf: 1, count: 1, datatype: 1, dest: 1, tag: 3, comm: 9, request: 0 },
      { out: { request: 77 } },
    );
    const r1 = new Stream(1, 50)
      .call(
        'MPI_Irecv',
        { buf: 1, count: 1, datatype: 1, source: 0, tag: 3, comm: 9, request: 0 },
        { out: { request: 88 } },
      )
      .call('MPI_Wait', { request: 88, status: 0 }, { completes: [[88, 0, 3, 64]] });
    const b = run([r0, r1]);
    assert.deepEqual(b.messages.sendTime, [0]);
    assert.deepEqual(b.messages.recvTime, [53]);
    assert.deepEqual(b.messages.bytes, [64]);
  });

  it('translates communicator ranks to world ranks and shares communicator ids across ranks', () => {
    const comm = (rank: number, handle: number, members: number[]): RankEvent => ({
      type: 'comm',
      rank,
      seq: 0,
      time: 0,
      comm: handle,
      size: members.length,
      myRank: members.indexOf(rank),
      parent: 0,
      creatorSeq: 0,
      isInter: false,
      members,
      remoteMembers: [],
    });
    const r2 = new Stream(2, 0);
    r2.events.push(comm(2, 500, [2, 3]));
    r2.call('MPI_Send', { buf: 1, count: 1, datatype: 1, dest: 1, tag: 0, comm: 500 });
    const r3 = new Stream(3, 0);
    r3.events.push(comm(3, 600, [2, 3]));
    r3.call(
      'MPI_Recv',
      { buf: 1, count: 1, datatype: 1, source: 0, tag: 0, comm: 600, status: 0 },
      { completes: [[0, 0, 0, 4]] },
    );
    const b = run([new Stream(0, 0), new Stream(1, 0), r2, r3]);
    assert.deepEqual(b.messages.src, [2]);
    assert.deepEqual(b.messages.dst, [3]);
    assert.equal(b.spans.comm[0], b.spans.comm[1]);
    assert.notEqual(b.spans.comm[0], -1);
  });

  it('aligns ranks on their CLOCK records', () => {
    // Rank 1's monotonic clock is 1e6 ahead of rank 0's; realtime says they read at the same instant.
    const r0 = new Stream(0, 1000).clock(5_000_000).at(1010).send(1, 0);
    const r1 = new Stream(1, 1_001_000).clock(5_000_000).at(1_001_020).recv(0, 0);
    const b = run([r0, r1]);
    assert.deepEqual(b.messages.sendTime, [10]);
    assert.deepEqual(b.messages.recvTime, [21]);
  });

  it('takes time 0 from the earliest rank CLOCK, not from the rank whose stream arrived first', () => {
    // Rank 1 started 140 ns before rank 0 (realtime), but rank 0's records arrive first. Each rank's
    // first record is its CLOCK, taken at its first MPI call.
    const r0 = new Stream(0, 5_000).clock(2_000_140).send(1, 5);
    const r1 = new Stream(1, 9_000)
      .clock(2_000_000)
      .call('MPI_Recv', { source: 0, tag: 5, comm: 9 }, { hang: true });
    const m = new TimelineModel(2);
    for (const e of r0.events) m.push(e);
    assert.equal(
      m.takeBatch(),
      undefined,
      'no batch until every rank has been heard: time 0 is not known yet',
    );
    for (const e of r1.events) m.push(e);
    const b = m.takeBatch();
    assert.ok(b);
    assert.deepEqual(b.spans.start, [140]);
    assert.deepEqual(
      b.open.map((o) => [o.rank, o.start]),
      [[1, 0]],
    );
  });

  it('stops waiting for a silent rank when a finding must be placed', () => {
    const r0 = new Stream(0, 0).clock(1_000).call('MPI_Recv', { source: 1, tag: 0, comm: 9 }, { hang: true });
    const m = new TimelineModel(2);
    for (const e of r0.events) m.push(e);
    assert.equal(m.takeBatch(), undefined);
    m.addFinding({
      kind: 'deadlock',
      severity: 'error',
      message: 'stuck',
      locations: [{ rank: 0, file: '/a.c', line: 3, function: 'main', call: 'MPI_Recv', detail: '' }],
    });
    const b = m.takeBatch();
    assert.ok(b);
    assert.deepEqual(
      b.open.map((o) => o.rank),
      [0],
    );
    assert.deepEqual(b.findings[0]?.times, [0]);
  });

  it('reports open calls and places findings on them', () => {
    const r0 = new Stream(0, 0).send(1, 0).call('MPI_Recv', { source: 1, tag: 0, comm: 9 }, { hang: true });
    const m = new TimelineModel(2);
    for (const e of r0.events) m.push(e);
    m.addFinding({
      kind: 'deadlock',
      severity: 'error',
      message: 'stuck',
      locations: [
        {
          rank: 0,
          file: '/a.c',
          line: 3,
          function: 'main',
          call: 'MPI_Recv',
          detail: 'MPI_Recv from rank 1',
        },
      ],
    });
    const b = m.takeBatch();
    assert.ok(b);
    assert.deepEqual(b.open, [{ rank: 0, start: 2, fn: functionNamed('MPI_Recv').id, site: 1, comm: -1 }]);
    assert.deepEqual(b.findings[0]?.times, [2]);
    assert.equal(b.ended, false);
  });

  it('places a finding where the ranks were when it was found, given findingTimes() of that moment', () => {
    // Rank 0 sends (starting at 0), then blocks in a receive (starting at 2); rank 1 only sends.
    const r0 = new Stream(0, 0).send(1, 0).call('MPI_Recv', { source: 1, tag: 0, comm: 9 }, { hang: true });
    const r1 = new Stream(1, 0).send(0, 0);
    const m = new TimelineModel(2);
    // Found after rank 0's first call: its place then is that call's start.
    for (const e of r0.events.slice(0, 2)) m.push(e);
    const then = m.findingTimes();
    for (const e of [...r0.events.slice(2), ...r1.events]) m.push(e);
    const finding = (rank: number) => ({
      kind: 'deadlock' as const,
      severity: 'error' as const,
      message: 'stuck',
      locations: [{ rank, file: '/a.c', line: 3, function: 'main', call: 'MPI_Recv', detail: '' }],
    });
    m.addFinding(finding(0), then);
    m.addFinding(finding(0));
    const b = m.takeBatch();
    assert.ok(b);
    assert.deepEqual(then.length, 2);
    assert.deepEqual(
      b.findings.map((f) => f.times),
      [[0], [2]],
      'the first at the call of its moment, the second at the receive rank 0 is in now',
    );
  });

  it('sends deltas: a second batch holds only what is new, and nothing when nothing changed', () => {
    const m = new TimelineModel(2);
    const r0 = new Stream(0, 0).send(1, 0).send(1, 0);
    const [a, b, c, d] = [r0.events.slice(0, 2), r0.events.slice(2), [], []];
    for (const e of a) m.push(e);
    assert.equal(m.takeBatch()?.spans.rank.length, 1);
    for (const e of b) m.push(e);
    const second = m.takeBatch();
    assert.equal(second?.spans.rank.length, 1);
    assert.equal(second?.functions.length, 0);
    assert.equal(second?.seq, 1);
    void c;
    void d;
    assert.equal(m.takeBatch(), undefined);
    const snap = m.snapshot();
    assert.equal(snap[0]?.type, 'reset');
    const all = snap[1];
    assert.ok(all?.type === 'data');
    assert.equal(all.spans.rank.length, 2);
    assert.equal(all.functions.length, 1);
  });

  it('builds the synthetic halo job: every message arrow points forward and every rank has spans', () => {
    const job = syntheticJob({ ranks: 4, iterations: 6, deadlock: true });
    const m = new TimelineModel(4);
    for (const e of job.events) m.push(e);
    for (const f of job.findings) m.addFinding(f);
    const b = m.takeBatch();
    assert.ok(b);
    assert.equal(b.messages.src.length, 4 * 2 * 6);
    b.messages.sendTime.forEach((s, i) => assert.ok(s < (b.messages.recvTime[i] ?? 0), `message ${i}`));
    assert.deepEqual(new Set(b.spans.rank), new Set([0, 1, 2, 3]));
    assert.deepEqual(
      b.open.map((o) => o.rank),
      [0, 1, 2],
    );
    assert.deepEqual(
      b.findings[0]?.times,
      b.open.map((o) => o.start),
    );
  });
});
