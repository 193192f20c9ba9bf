import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from '../timeline/synthetic-job';
import { TimelineModel } from '../timeline/timeline-model';
import type { TimelineData, TimelineMessage } from '../timeline/timeline-protocol';
import { chromeEvents, chromeTraceChunks, type ChromeEvent } from './export-chrome';

/** A job's timeline as the trace editor and the export receive it: a reset and batches. */
function timeline(ranks: number, iterations: number, deadlock: boolean): TimelineMessage[] {
  const job = syntheticJob({ ranks, iterations, deadlock });
  const model = new TimelineModel(ranks, '/home/user/halo/halo');
  const out: TimelineMessage[] = [model.reset()];
  job.events.forEach((e, i) => {
    model.push(e);
    if (i % 500 === 499) {
      const b = model.takeBatch();
      if (b !== undefined) out.push(b);
    }
  });
  for (const f of job.findings) model.addFinding(f);
  const last = model.takeBatch();
  if (last !== undefined) out.push(last);
  return out;
}

function eventsOf(messages: readonly TimelineMessage[]): ChromeEvent[] {
  const all: ChromeEvent[] = [];
  chromeEvents(messages, (e) => all.push(e));
  return all;
}

const data = (ms: readonly TimelineMessage[]): TimelineData[] =>
  ms.filter((m): m is TimelineData => m.type === 'data');

describe('mpiscope export --chrome (Trace Event Format, JSON object form)', () => {
  const messages = timeline(4, 40, true);
  const events = eventsOf(messages);

  it('has the fields each phase requires, in microseconds, on one process with a thread per rank', () => {
    assert.ok(events.length > 0);
    for (const e of events) {
      assert.equal(typeof e.name, 'string');
      assert.equal(e.pid, 1);
      assert.ok(Number.isInteger(e.tid) && e.tid >= 0 && e.tid < 4, `tid ${e.tid}`);
      if (e.ph !== 'M')
        assert.ok(typeof e.ts === 'number' && Number.isFinite(e.ts) && e.ts >= 0, JSON.stringify(e));
      if (e.ph === 'X') assert.ok(typeof e.dur === 'number' && e.dur >= 0 && e.cat === 'mpi');
      if (e.ph === 'i') assert.equal(e.s, 't');
      if (e.ph === 's' || e.ph === 'f') assert.ok(Number.isInteger(e.id) && e.cat === 'mpi');
      if (e.ph === 'f') assert.equal(e.bp, 'e');
    }
    const named = events.filter((e) => e.ph === 'M' && e.name === 'thread_name');
    assert.deepEqual(
      named.map((e) => [e.tid, e.args?.name]),
      [0, 1, 2, 3].map((r) => [r, `rank ${r}`]),
    );
    assert.deepEqual(
      events.filter((e) => e.name === 'process_name').map((e) => e.args?.name),
      ['/home/user/halo/halo'],
    );
  });

  it('has one slice per call (and per call still open), named after the MPI function', () => {
    const spans = data(messages).reduce((n, d) => n + d.spans.rank.length, 0);
    const open = data(messages).at(-1)?.open.length ?? 0;
    const slices = events.filter((e) => e.ph === 'X');
    assert.equal(slices.length, spans + open);
    assert.ok(open > 0, 'the synthetic deadlock leaves calls open');
    assert.ok(slices.every((e) => e.name.startsWith('MPI_')));
    const stillOpen = slices.filter((e) => e.args?.open !== undefined);
    assert.equal(stillOpen.length, open);
    // Slices of one rank never overlap: MPI calls of one thread do not nest.
    for (let r = 0; r < 4; r++) {
      const mine = slices.filter((e) => e.tid === r).sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
      for (let i = 1; i < mine.length; i++)
        assert.ok((mine[i]?.ts ?? 0) >= (mine[i - 1]?.ts ?? 0) + (mine[i - 1]?.dur ?? 0) - 1e-6);
    }
  });

  it('draws each message as one flow from a call on the sender to a call on the receiver', () => {
    const count = data(messages).reduce((n, d) => n + d.messages.src.length, 0);
    assert.ok(count > 0);
    const starts = events.filter((e) => e.ph === 's');
    const ends = events.filter((e) => e.ph === 'f');
    assert.equal(starts.length, count);
    assert.equal(ends.length, count);
    const slices = events.filter((e) => e.ph === 'X');
    const inSlice = (e: ChromeEvent): boolean =>
      slices.some(
        (x) =>
          x.tid === e.tid &&
          (x.ts ?? 0) <= (e.ts ?? 0) + 1e-6 &&
          (e.ts ?? 0) <= (x.ts ?? 0) + (x.dur ?? 0) + 1e-6,
      );
    const byId = new Map(ends.map((e) => [e.id, e]));
    for (const s of starts) {
      const f = byId.get(s.id);
      assert.ok(f !== undefined, `flow ${s.id} has an end`);
      assert.equal(f.name, s.name);
      assert.ok((f.ts ?? 0) >= (s.ts ?? 0), 'a message arrives after it was sent');
      assert.notEqual(f.tid, s.tid);
      assert.ok(inSlice(s) && inSlice(f), `flow ${s.id} binds to calls on both ends`);
    }
  });

  it('puts every finding on each rank it names, at its call, with its message and line', () => {
    const findings = data(messages).flatMap((d) => d.findings);
    assert.ok(findings.length > 0);
    const instants = events.filter((e) => e.ph === 'i');
    assert.equal(
      instants.length,
      findings.reduce((n, f) => n + f.locations.length, 0),
    );
    for (const f of findings)
      f.locations.forEach((l, k) => {
        const hit = instants.find(
          (e) => e.tid === l.rank && e.name === f.kind && e.ts === Math.round(f.times[k] ?? 0) / 1000,
        );
        assert.ok(hit !== undefined, `${f.kind} on rank ${l.rank}`);
        assert.equal(hit.args?.message, f.message);
        assert.equal(hit.args?.line, l.line);
      });
  });

  it('writes a JSON document whose traceEvents are those events', () => {
    let text = '';
    const n = chromeTraceChunks(messages, (t) => (text += t), { ranks: 4 });
    const doc = JSON.parse(text) as {
      traceEvents: ChromeEvent[];
      displayTimeUnit: string;
      otherData: { ranks: number };
    };
    assert.equal(doc.displayTimeUnit, 'ns');
    assert.equal(doc.otherData.ranks, 4);
    assert.equal(n, events.length);
    assert.deepEqual(doc.traceEvents, JSON.parse(JSON.stringify(events)));
  });

  it('writes a valid document for a job with no events', () => {
    let text = '';
    chromeTraceChunks([{ type: 'reset', ranks: 2, program: '' }], (t) => (text += t));
    const doc = JSON.parse(text) as { traceEvents: ChromeEvent[] };
    assert.deepEqual(
      doc.traceEvents.filter((e) => e.ph !== 'M'),
      [],
    );
  });
});
