/**
 * A trace's timeline index (server/src/timeline/trace-index.ts): an opening reads it when it is whole and of
 * this very trace, and gives the same timeline and findings as decoding the trace; a missing, stale, cut or
 * foreign index is decoded past quietly and written again; an index that cannot be written changes nothing.
 * The traces are real ones (test/fixtures/record-format: `mpiscope run --trace` of two corpus programs).
 */
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PackedWriter } from '../../server/src/lsp/packed-files';
import { packBlock, unpackBlock } from '../../server/src/timeline/packed-columns';
import {
  indexPathOf,
  INDEX_VERSION,
  openIndexedTimeline,
  writeTraceIndex,
} from '../../server/src/timeline/trace-index';
import { openTraceTimeline } from '../../server/src/timeline/trace-timeline';
import type { Column, TimelineMessage } from '../../server/src/timeline/timeline-protocol';
import { TimelineModel } from '../../server/src/timeline/timeline-model';
import { syntheticJob } from '../../server/src/timeline/synthetic-job';
import { repoRoot } from '../lib/mpiscope-cli';

const fixtures = join(repoRoot(), 'test', 'fixtures', 'record-format');
const work = mkdtempSync(join(tmpdir(), 'mpiscope-trace-index-'));
after(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** A copy of a fixture trace in a folder of its own (the index goes next to it). */
function traceCopy(fixture = 'deadlock-waitall-never-sent.format2.trace'): string {
  const dir = join(work, String(n++));
  mkdirSync(dir);
  const path = join(dir, 'run.mpitrace');
  copyFileSync(join(fixtures, fixture), path);
  return path;
}

const plainColumns = (cols: object): Record<string, number[]> =>
  Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, Array.from(v as Column)]));

/** A message with its columns as plain arrays, wherever they were (packed or not): to compare timelines. */
function plain(m: TimelineMessage): unknown {
  if (m.type !== 'data') return m;
  const { packed, columnsAt: _at, ...rest } = m;
  const cols = packed !== undefined ? unpackBlock(new Uint8Array(packed), 0) : m;
  return { ...rest, spans: plainColumns(cols.spans), messages: plainColumns(cols.messages) };
}

async function open(
  path: string,
): Promise<{ messages: TimelineMessage[]; opening: Awaited<ReturnType<typeof openIndexedTimeline>> }> {
  const messages: TimelineMessage[] = [];
  const opening = await openIndexedTimeline(path, (m) => void messages.push(m));
  return { messages, opening };
}

/**
 * What decoding the trace gives, with no index involved: the timeline, and with `findings` the findings' batch
 * (the engine's replay of these traces waits seconds for call sites their ranks were to resolve: asked once).
 */
async function decoded(path: string, findings = false): Promise<{ messages: unknown[]; findings?: unknown }> {
  const t = await openTraceTimeline(path);
  if (!findings) return { messages: t.messages.map(plain) };
  const f = await t.findings();
  return { messages: t.messages.map(plain), findings: { found: f.result.findings, messages: f.messages } };
}

describe("a trace's timeline index", () => {
  it('is written by the first opening (no index), and the second reads it: the same timeline and findings', async () => {
    const path = traceCopy();
    const want = await decoded(path, true);
    const first = await open(path);
    assert.equal(first.opening.fromIndex, false);
    assert.match(first.opening.why ?? '', /no index/);
    assert.equal(first.opening.indexWritten, true);
    assert.ok(existsSync(indexPathOf(path)));
    assert.deepEqual(first.messages.map(plain), want.messages);
    // Every data batch goes out packed, ready for the editor's columns file.
    for (const m of first.messages)
      if (m.type === 'data') assert.ok(m.packed !== undefined && m.spans.rank.length === 0);

    const second = await open(path);
    assert.equal(second.opening.fromIndex, true);
    assert.equal(second.opening.indexWritten, false);
    assert.deepEqual(second.messages.map(plain), want.messages);
    assert.ok(
      want.messages.some((m) => (m as { type: string }).type === 'data'),
      'the trace has a data batch',
    );
    const f = await second.opening.findings();
    assert.deepEqual({ found: f.result.findings, messages: f.messages }, want.findings);
    assert.equal(f.result.findings[0]?.kind, 'deadlock');
    // Nothing but the trace and its index is left in the folder (no temporary file).
    assert.deepEqual(readdirSync(join(path, '..')).sort(), ['run.mpitrace', 'run.mpitrace.timeline']);
  });

  it('is stale once the trace is another (same name, another run), and is written again for it', async () => {
    const path = traceCopy();
    await open(path);
    copyFileSync(join(fixtures, 'count-mismatch-truncation.format2.trace'), path);
    const want = await decoded(path);
    const next = await open(path);
    assert.equal(next.opening.fromIndex, false);
    assert.match(next.opening.why ?? '', /another trace/);
    assert.deepEqual(next.messages.map(plain), want.messages);
    const again = await open(path);
    assert.equal(again.opening.fromIndex, true);
    assert.deepEqual(again.messages.map(plain), want.messages);
  });

  it('is stale when a byte of the trace changed, its size the same', async () => {
    const path = traceCopy();
    await open(path);
    // One letter of the program's name in the session record: the reset's title changes, the size does not.
    const bytes = readFileSync(path);
    const key = bytes.indexOf('"program":"');
    const end = bytes.indexOf('"', key + 11);
    assert.ok(key > 0 && end > key + 11, 'the session record names the program');
    bytes[end - 1] = bytes[end - 1] === 0x78 ? 0x79 : 0x78; // 'x' or 'y'
    writeFileSync(path, bytes);
    const next = await open(path);
    assert.equal(next.opening.fromIndex, false);
    const program = (next.messages[0] as { program: string }).program;
    assert.equal(program.at(-1), String.fromCharCode(bytes[end - 1] ?? 0));
    assert.equal((await open(path)).opening.fromIndex, true);
  });

  it('is stale when the trace grew (a run still writing it) or a spill file came next to it', async () => {
    const path = traceCopy();
    await open(path);
    // Half a frame header: the replay reads up to the last whole frame, as it would while the run writes.
    appendFileSync(path, Buffer.alloc(6));
    const grown = await open(path);
    assert.equal(grown.opening.fromIndex, false);
    assert.ok(grown.opening.cut !== undefined, 'the trace now ends inside a frame');
    assert.equal((await open(path)).opening.fromIndex, true);
    writeFileSync(`${path}.rank1.spill`, '');
    assert.equal((await open(path)).opening.fromIndex, false);
  });

  it('is decoded past when cut short, damaged or of another version, and then written whole again', async () => {
    const path = traceCopy();
    const want = (await decoded(path)).messages;
    const index = indexPathOf(path);
    const cases: [string, () => void, RegExp][] = [
      ['cut short', () => truncateSync(index, readFileSync(index).length - 10), /cut short/],
      ['cut to nothing', () => truncateSync(index, 0), /not an index/],
      [
        'another version',
        () => {
          const b = readFileSync(index);
          b.writeUInt32LE(INDEX_VERSION + 1, 8);
          writeFileSync(index, b);
        },
        /version/,
      ],
      [
        'a damaged trailer',
        () => {
          const b = readFileSync(index);
          b[b.length - 2] = 0x7b; // '{' where the JSON closes
          writeFileSync(index, b);
        },
        /damaged/,
      ],
    ];
    await open(path);
    for (const [what, damage, why] of cases) {
      damage();
      const next = await open(path);
      assert.equal(next.opening.fromIndex, false, what);
      assert.match(next.opening.why ?? '', why, what);
      assert.deepEqual(next.messages.map(plain), want, what);
      assert.equal(next.opening.indexWritten, true, what);
      assert.equal((await open(path)).opening.fromIndex, true, `${what}: written again`);
    }
  });

  it('that cannot be written leaves the opening as it was, and no file behind', async () => {
    const path = traceCopy();
    // A folder where the index would go: it cannot be read as one, nor replaced by one.
    mkdirSync(indexPathOf(path));
    const want = (await decoded(path)).messages;
    const first = await open(path);
    assert.equal(first.opening.fromIndex, false);
    assert.equal(first.opening.indexWritten, false);
    assert.deepEqual(first.messages.map(plain), want);
    assert.deepEqual(readdirSync(join(path, '..')).sort(), ['run.mpitrace', 'run.mpitrace.timeline']);
    assert.deepEqual(readdirSync(indexPathOf(path)), []);
    assert.equal(await writeTraceIndex(path), false);
  });

  it('is written for a trace just recorded (writeTraceIndex, as `mpiscope run --trace` ends), not for a non-trace', async () => {
    const path = traceCopy('count-mismatch-truncation.format2.trace');
    assert.equal(await writeTraceIndex(path), true);
    assert.equal((await open(path)).opening.fromIndex, true);
    const junk = join(work, 'junk.mpitrace');
    writeFileSync(junk, 'not a trace');
    assert.equal(await writeTraceIndex(junk), false);
    assert.equal(existsSync(indexPathOf(junk)), false);
    await assert.rejects(open(junk), /not an mpiscope trace/);
  });
});

describe("the trace editor's columns file", () => {
  it('takes a batch that comes packed as it is, stores it deflated, and announces it without its bytes', () => {
    const job = syntheticJob({ ranks: 3, iterations: 5 });
    const model = new TimelineModel(3, 'halo');
    for (const e of job.events) model.push(e);
    model.finish();
    const batch = model.takeBatch();
    assert.ok(batch !== undefined && batch.spans.rank.length > 0);
    const block = packBlock(batch);
    const dir = mkdtempSync(join(work, 'columns-'));
    const writer = new PackedWriter(join(dir, 'columns.bin'));
    writer.write({ type: 'reset', ranks: 3, program: 'halo' });
    const { header, offset, bytes } = writer.write({ ...batch, packed: block });
    writer.close();
    assert.equal(offset, 0);
    const stored = readFileSync(writer.file);
    assert.equal(bytes, stored.byteLength);
    // Stored deflated (the page inflates it): the same bytes come back, in fewer.
    assert.deepEqual(new Uint8Array(inflateRawSync(stored)), new Uint8Array(block));
    assert.ok(bytes < block.byteLength);
    assert.equal('packed' in header, false);
    assert.equal(header.type === 'data' && header.spans.rank.length, 0);
  });
});
