import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readTrace, readTraceUpToCut, SESSION_RANK, TraceReader, TraceWriter } from './trace-file';

test('a trace reads back frame by frame, and a trace cut short keeps its whole frames', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'));
  try {
    const path = join(dir, 't.trace');
    const w = new TraceWriter(path);
    w.writeSession({ type: 'session', ranks: 2 });
    w.write(1, 'text', '{"type":"hello"}');
    w.write(1, 'binary', Buffer.alloc(64, 7));
    w.close();
    const frames = readTrace(path);
    assert.deepEqual(
      frames.map((f) => [f.rank, f.kind, f.data.length]),
      [
        [SESSION_RANK, 'session', 28],
        [1, 'text', 16],
        [1, 'binary', 64],
      ],
    );
    assert.equal(frames[2]?.data[63], 7);
    const whole = readFileSync(path);
    writeFileSync(path, whole.subarray(0, whole.length - 10));
    assert.equal(readTrace(path).length, 2);
    writeFileSync(path, 'not a trace at all');
    assert.throws(() => readTrace(path), /not an mpiscope trace/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trace cut mid-record, or with a damaged frame header, says where it stops', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'));
  try {
    const path = join(dir, 't.trace');
    const w = new TraceWriter(path);
    w.writeSession({ type: 'session', ranks: 1 });
    w.write(0, 'binary', Buffer.alloc(128, 1));
    w.close();
    const whole = readFileSync(path);
    assert.equal(readTraceUpToCut(path).cut, undefined, 'a whole trace has no cut');
    const lastFrame = whole.length - 12 - 128;
    // Cut inside the second record of the binary frame: the frame is left out and the cut named.
    writeFileSync(path, whole.subarray(0, whole.length - 30));
    let r = readTraceUpToCut(path);
    assert.equal(r.frames.length, 1);
    assert.deepEqual(r.cut, {
      at: lastFrame,
      size: whole.length - 30,
      why: 'it ends inside a frame of 128 bytes (98 of them written)',
    });
    writeFileSync(path, whole.subarray(0, lastFrame + 5));
    assert.match(readTraceUpToCut(path).cut?.why ?? '', /inside a frame header/);
    // A kind that does not exist, and a binary frame that is not whole records.
    const bad = Buffer.from(whole);
    bad.writeUInt32LE(9, lastFrame + 4);
    writeFileSync(path, bad);
    r = readTraceUpToCut(path);
    assert.equal(r.frames.length, 1);
    assert.match(r.cut?.why ?? '', /unknown kind 9/);
    const odd = Buffer.from(whole.subarray(0, whole.length - 1));
    odd.writeUInt32LE(127, lastFrame + 8);
    writeFileSync(path, odd);
    assert.match(readTraceUpToCut(path).cut?.why ?? '', /not whole 64-byte records/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trace appears under its name with its header; no file of another name is left, also when it cannot be made', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'));
  try {
    const path = join(dir, 't.trace');
    const w = new TraceWriter(path);
    assert.deepEqual(readdirSync(dir), ['t.trace']);
    assert.deepEqual(readTrace(path), []);
    w.write(0, 'binary', Buffer.alloc(64, 1));
    w.close();
    assert.equal(readTrace(path).length, 1);
    // A folder where the trace should go: the writer throws (the session says so) and cleans up after itself.
    const taken = join(dir, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'x'), '');
    assert.throws(() => new TraceWriter(taken));
    assert.deepEqual(readdirSync(dir).sort(), ['t.trace', 'taken']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trace read a chunk at a time gives the frames and the cut of the whole file, whatever the chunk size', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'));
  try {
    const path = join(dir, 't.trace');
    const w = new TraceWriter(path);
    w.writeSession({ type: 'session', ranks: 3 });
    for (let i = 0; i < 40; i++) {
      const rank = i % 3;
      if (i % 7 === 0) w.write(rank, 'text', JSON.stringify({ type: 'module', i }));
      const records = Buffer.alloc(64 * (1 + (i % 5)));
      for (let b = 0; b < records.length; b++) records[b] = (i * 31 + b) & 0xff;
      w.write(rank, 'binary', records);
    }
    w.writeSession({ type: 'end', exitCode: 0 });
    w.close();
    const whole = readFileSync(path);
    const expected = readTrace(path).map((f) => [f.rank, f.kind, f.data.toString('hex')]);
    assert.ok(expected.length > 40);
    // Chunks smaller than a frame, of a few frames, and larger than the file; a view stays valid after later reads.
    for (const chunk of [1, 13, 64, 100, 1000, 1 << 20]) {
      const frames = [...new TraceReader(path, chunk).frames()];
      assert.deepEqual(
        frames.map((f) => [f.rank, f.kind, f.data.toString('hex')]),
        expected,
        `chunks of ${chunk} bytes`,
      );
    }
    // Cut mid-frame: the same frames before it and the same cut, read in small chunks.
    writeFileSync(path, whole.subarray(0, whole.length - 100));
    const all = readTraceUpToCut(path);
    for (const chunk of [7, 200]) {
      const reader = new TraceReader(path, chunk);
      const frames = [...reader.frames()];
      assert.equal(frames.length, all.frames.length);
      assert.deepEqual(reader.cut, all.cut);
    }
    assert.ok(all.cut !== undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a write the disk refuses ends the trace at its last whole frame, says why once, and throws nothing', (t) => {
  if (!existsSync('/dev/full')) return t.skip('no /dev/full here');
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-trace-full-'));
  try {
    const path = join(dir, 'run.trace');
    const said: string[] = [];
    const w = new TraceWriter(path, (why) => said.push(why));
    w.write(0, 'binary', Buffer.alloc(64, 1));
    // The disk fills: every write to /dev/full fails with ENOSPC.
    Object.assign(w, { fd: openSync('/dev/full', 'w') });
    w.write(1, 'binary', Buffer.alloc(64, 2));
    w.writeSession({ type: 'closed', rank: 1 });
    w.close();
    assert.equal(said.length, 1);
    assert.match(said[0] ?? '', /^stopped writing the trace .*run\.trace: ENOSPC/);
    const { frames, cut } = readTraceUpToCut(path);
    assert.deepEqual(
      frames.map((f) => f.rank),
      [0],
    );
    assert.equal(cut, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
