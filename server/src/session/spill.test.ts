import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { mergeSpills, removeStaleSpills, spillFilesOf } from './spill';
import { readTrace, TraceWriter } from './trace-file';

const dir = mkdtempSync(join(tmpdir(), 'mpiscope-spill-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One 64-byte record whose first word after the head says which frame it is. */
const rec = (n: number): Buffer => {
  const b = Buffer.alloc(64);
  b[0] = 12; // CLOCK: a record with no call behind it
  b.writeUInt32LE(n, 24);
  return b;
};
const hello = (rank: number, pid: number): string =>
  JSON.stringify({ type: 'hello', version: 1, rank, size: 2, pid });

/** A trace of 2 ranks whose frames 0 (hello) to `frames - 1` of each rank arrived. */
function trace(name: string, frames: number, end = false): string {
  const path = join(dir, name);
  const w = new TraceWriter(path);
  w.writeSession({ type: 'session', ranks: 2 });
  for (const r of [0, 1]) {
    w.write(r, 'text', hello(r, 100 + r));
    for (let i = 1; i < frames; i++) w.write(r, 'binary', rec(i));
  }
  if (end) w.writeSession({ type: 'end', exitCode: 0, outcome: 'completed' });
  w.close();
  return path;
}

/** A spill of rank with frames first..last (frame 0 is the hello). */
function spill(
  tracePath: string,
  rank: number,
  first: number,
  last: number,
  pid = 100 + rank,
  full = false,
): void {
  const w = new TraceWriter(`${tracePath}.rank${rank}.spill`);
  w.writeSession({ type: 'spill', version: 1, rank, pid, firstFrame: first });
  for (let i = first; i <= last; i++)
    w.write(rank, i === 0 ? 'text' : 'binary', i === 0 ? hello(rank, pid) : rec(i));
  if (full) w.writeSession({ type: 'spill-full', limitBytes: 1 });
  w.close();
}

const framesOf = (frames: { rank: number; kind: string; data: Buffer }[], rank: number): number[] =>
  frames.filter((f) => f.rank === rank && f.kind === 'binary').map((f) => f.data.readUInt32LE(24));

test('the spill adds the frames past the trace, none twice, interleaved, before the end record', () => {
  const t = trace('overlap.trace', 5, true);
  spill(t, 0, 3, 8); // frames 3 and 4 were in the trace already
  spill(t, 1, 5, 6);
  const { frames, summary } = mergeSpills(t, readTrace(t), 2);
  assert.deepEqual(framesOf(frames, 0), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(framesOf(frames, 1), [1, 2, 3, 4, 5, 6]);
  assert.equal(summary?.records, 6);
  assert.equal(summary?.missingFrames, 0);
  assert.equal(
    (JSON.parse(frames[frames.length - 1]?.data.toString() ?? '{}') as { type?: string }).type,
    'end',
  );
  // Rank 0's and rank 1's new frames alternate, as they would have arrived.
  const added = frames.slice(-7, -1).map((f) => f.rank);
  assert.deepEqual(added, [0, 1, 0, 1, 0, 0]);
});

test('frames in neither file are counted, a full spill is named, another run’s spill is left out', () => {
  const t = trace('gap.trace', 3);
  spill(t, 0, 6, 7, 100, true); // frames 3..5 died in flight and were not kept
  spill(t, 1, 3, 4, 999); // written by another process than this trace's rank 1
  const { frames, summary } = mergeSpills(t, readTrace(t), 2);
  assert.deepEqual(framesOf(frames, 0), [1, 2, 6, 7]);
  assert.deepEqual(framesOf(frames, 1), [1, 2]);
  assert.equal(summary?.missingFrames, 3);
  assert.deepEqual(summary?.fullRanks, [0]);
  assert.equal(summary?.skipped.length, 1);
  assert.match(summary?.skipped[0] ?? '', /written by process 999, not by rank 1/);
});

test('a rank the trace never heard from comes whole from its spill; a new session removes old spills', () => {
  const t = trace('silent.trace', 0);
  spill(t, 1, 0, 2);
  const { frames } = mergeSpills(t, readTrace(t), 2);
  assert.deepEqual(
    frames.filter((f) => f.rank === 1).map((f) => f.kind),
    ['text', 'binary', 'binary'],
  );
  assert.equal(spillFilesOf(t).length, 1);
  removeStaleSpills(t);
  assert.deepEqual(spillFilesOf(t), []);
});
