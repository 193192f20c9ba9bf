import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readTrace, SESSION_RANK, TraceWriter } from './trace-file';

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
