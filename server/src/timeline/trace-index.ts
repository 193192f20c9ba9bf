/**
 * A trace's timeline index: the timeline of a trace (the batches openTraceTimeline makes from it, their columns
 * packed as packed-columns.ts packs them) kept in a file next to it, `TRACE.timeline`, so that opening the trace
 * in the editor reads ~7 MB of columns instead of decoding ~120 MB of records (a million events: ~0.9 s of the
 * language server's CPU, and 1.6 s of wall time beside the workbench creating the webview, on every opening).
 * `mpiscope run --trace` writes it when the run ends; an opening that finds none (an older trace, one copied
 * without it) or a stale one (another trace under that name, a trace still growing, an index cut short) takes
 * the decoding path and writes it after, where the folder lets it, and says nothing about it.
 *
 * What reads the trace otherwise (`mpiscope report`, `export --chrome`, the findings' replay) never reads the
 * index: it is a cache of the timeline only, checked against the trace at every use.
 *
 * Layout (little-endian):
 *   0   magic "MSCTLIDX" (8 bytes ASCII)
 *   8   u32 INDEX_VERSION
 *   12  u32 length of the trailer (bytes of UTF-8 JSON)
 *   16  f64 offset of the trailer
 *   24  reserved (0) up to HEAD bytes
 *   HEAD  the data batches' blocks, one after the other in the order of the messages (packBlock's blocks are
 *         whole multiples of 8 bytes, so each starts aligned)
 *   then the trailer: IndexTrailer as JSON, the last bytes of the file
 * The trailer is written last and the head after it, under a temporary name renamed at the end: a reader finds
 * a whole index or none under the name (a copy cut short fails the trailer's offset and length check).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename } from 'node:path';
import type { SessionResult, SessionStart } from '../session/session-api';
import { spillFilesOf } from '../session/spill';
import type { TraceCut } from '../session/trace-file';
import { packBlock } from './packed-columns';
import { openTraceTimeline, traceFindings } from './trace-timeline';
import {
  emptyMessages,
  emptySpans,
  isTimelineMessage,
  type TimelineData,
  type TimelineMessage,
} from './timeline-protocol';
import { DEFAULT_ANALYZERS } from '../shards/analyzers';

const MAGIC = 'MSCTLIDX';
const HEAD = 32;
/**
 * The index's format and what it holds: bump it whenever the batches openTraceTimeline makes from a trace change
 * (TimelineModel, trace-clocks, the batching, packed-columns.ts), so that indexes written before are stale.
 */
export const INDEX_VERSION = 1;
/** Bytes of the trace hashed at each end: enough to tell one run's trace from another's (its session record, pid,
 * clocks), a few ms to read. With the size (a trace only grows while written), they name the trace. */
const ENDS_BYTES = 1 << 20;

/** Which trace an index was made from: compared whole at every use. */
export interface TraceFingerprint {
  readonly size: number;
  /** sha256 of the first and of the last ENDS_BYTES bytes (hex). */
  readonly head: string;
  readonly tail: string;
  /** The spill files the replay merges into the trace (spill.ts): name and size of each. */
  readonly spills: readonly { readonly name: string; readonly size: number }[];
}

/** What the trailer says. */
interface IndexTrailer {
  readonly trace: TraceFingerprint;
  readonly start: SessionStart;
  readonly cut?: TraceCut;
  /** The messages in order; a data batch's columns are empty here, its block at [offset, offset + bytes). */
  readonly messages: readonly {
    readonly header: TimelineMessage;
    readonly offset: number;
    readonly bytes: number;
  }[];
}

/** Where the index of a trace lives. */
export function indexPathOf(trace: string): string {
  return `${trace}.timeline`;
}

/** The trace's fingerprint now, or undefined when it cannot be read. */
export function fingerprintOf(trace: string): TraceFingerprint | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(trace, 'r');
    const size = statSync(trace).size;
    const hashAt = (from: number): string => {
      const n = Math.min(ENDS_BYTES, size - from);
      const bytes = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const r = readSync(fd as number, bytes, got, n - got, from + got);
        if (r === 0) break;
        got += r;
      }
      return createHash('sha256').update(bytes.subarray(0, got)).digest('hex');
    };
    const spills = spillFilesOf(trace).map((f) => ({ name: basename(f), size: statSync(f).size }));
    return { size, head: hashAt(0), tail: hashAt(Math.max(0, size - ENDS_BYTES)), spills };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function sameTrace(a: TraceFingerprint, b: TraceFingerprint): boolean {
  return (
    a.size === b.size &&
    a.head === b.head &&
    a.tail === b.tail &&
    a.spills.length === b.spills.length &&
    a.spills.every((s, i) => s.name === b.spills[i]?.name && s.size === b.spills[i]?.size)
  );
}

/** A trace's timeline read from its index: the messages (data batches with `packed` set), start and cut. */
export interface IndexedTimeline {
  readonly start: SessionStart;
  readonly cut?: TraceCut;
  readonly messages: TimelineMessage[];
}

/**
 * The index of `trace` when there is one, whole, of this format and of this very trace (`fingerprint`, taken
 * now); else why not (a line for a log: an index that does not fit is an ordinary case, not an error).
 */
export function readIndex(trace: string, fingerprint: TraceFingerprint): IndexedTimeline | string {
  try {
    return readIndexOrWhy(trace, fingerprint);
  } catch (error) {
    // A trailer of the right length and JSON but not of this shape (null where an object was): as damaged.
    return `the index is damaged (${(error as Error).message})`;
  }
}

function readIndexOrWhy(trace: string, fingerprint: TraceFingerprint): IndexedTimeline | string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(indexPathOf(trace));
  } catch (error) {
    return `no index (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  if (bytes.length < HEAD || bytes.toString('ascii', 0, 8) !== MAGIC) return 'not an index';
  const version = bytes.readUInt32LE(8);
  if (version !== INDEX_VERSION) return `index version ${version}, this mpiscope writes ${INDEX_VERSION}`;
  const length = bytes.readUInt32LE(12);
  const at = bytes.readDoubleLE(16);
  if (!Number.isSafeInteger(at) || at < HEAD || at + length !== bytes.length) return 'the index is cut short';
  let trailer: IndexTrailer;
  try {
    trailer = JSON.parse(bytes.toString('utf8', at, at + length)) as IndexTrailer;
  } catch {
    return 'the index has a damaged trailer';
  }
  if (typeof trailer !== 'object' || trailer === null || !Array.isArray(trailer.messages))
    return 'the index has a damaged trailer';
  if (typeof trailer.trace !== 'object' || !sameTrace(trailer.trace, fingerprint))
    return 'the index is of another trace (or of this one before it changed)';
  const messages: TimelineMessage[] = [];
  // Typed again: Array.isArray above narrowed the list to any[].
  const listed: IndexTrailer['messages'] = trailer.messages;
  for (const m of listed) {
    if (!isTimelineMessage(m.header) || !Number.isSafeInteger(m.offset) || !Number.isSafeInteger(m.bytes))
      return 'the index has a damaged message';
    if (m.header.type !== 'data') {
      messages.push(m.header);
      continue;
    }
    if (m.offset < HEAD || m.bytes <= 0 || m.offset + m.bytes > at)
      return 'the index has a block out of place';
    // A copy of its own per block: the page's store keeps views of it.
    const packed = new ArrayBuffer(m.bytes);
    new Uint8Array(packed).set(bytes.subarray(m.offset, m.offset + m.bytes));
    messages.push({ ...m.header, packed });
  }
  return { start: trailer.start, ...(trailer.cut !== undefined ? { cut: trailer.cut } : {}), messages };
}

/**
 * Writes an index under a temporary name next to the trace, renamed to indexPathOf(trace) by finish(). Every
 * failure (a read-only folder, a full disk) drops the index quietly: an index is only ever a shortcut.
 */
export class IndexWriter {
  private readonly temp: string;
  private fd: number | undefined;
  private end = HEAD;
  private readonly messages: { header: TimelineMessage; offset: number; bytes: number }[] = [];

  private constructor(private readonly trace: string) {
    this.temp = `${indexPathOf(trace)}.${process.pid}.${Math.random().toString(36).slice(2)}.new`;
    this.fd = openSync(this.temp, 'wx');
  }

  /** A writer, or undefined when the folder takes no new file. */
  static open(trace: string): IndexWriter | undefined {
    try {
      return new IndexWriter(trace);
    } catch {
      return undefined;
    }
  }

  /** Adds a message: a data batch as its header (columns emptied) and its block. */
  add(header: TimelineMessage, block?: ArrayBuffer): void {
    if (this.fd === undefined) return;
    try {
      if (block === undefined) {
        this.messages.push({ header, offset: this.end, bytes: 0 });
        return;
      }
      writeSync(this.fd, new Uint8Array(block), 0, block.byteLength, this.end);
      this.messages.push({ header, offset: this.end, bytes: block.byteLength });
      this.end += block.byteLength;
    } catch {
      this.abort();
    }
  }

  /** Writes the trailer and the head and puts the index in place; false when it could not. */
  finish(trace: TraceFingerprint, start: SessionStart, cut: TraceCut | undefined): boolean {
    if (this.fd === undefined) return false;
    try {
      const trailer: IndexTrailer = {
        trace,
        start,
        ...(cut !== undefined ? { cut } : {}),
        messages: this.messages,
      };
      const text = Buffer.from(JSON.stringify(trailer), 'utf8');
      writeSync(this.fd, text, 0, text.length, this.end);
      const head = Buffer.alloc(HEAD);
      head.write(MAGIC, 0, 'ascii');
      head.writeUInt32LE(INDEX_VERSION, 8);
      head.writeUInt32LE(text.length, 12);
      head.writeDoubleLE(this.end, 16);
      writeSync(this.fd, head, 0, HEAD, 0);
      closeSync(this.fd);
      this.fd = undefined;
      renameSync(this.temp, indexPathOf(this.trace));
      return true;
    } catch {
      this.abort();
      return false;
    }
  }

  abort(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // Closing a descriptor of a file about to be removed: nothing to do about it.
      }
    }
    this.fd = undefined;
    rmSync(this.temp, { force: true });
  }
}

/** What an opening through the index gives: as openTraceTimeline's, and whether the index was used. */
export interface IndexedOpening {
  readonly start: SessionStart;
  readonly cut?: TraceCut;
  /** The timeline came from the trace's index (nothing decoded); false: decoded, as without an index. */
  readonly fromIndex: boolean;
  /** Decoded, and an index written next to the trace for the next opening. */
  readonly indexWritten: boolean;
  /** Why the index was not used (undefined when it was). */
  readonly why?: string;
  /** As TraceTimelineFirst.findings: the engine's replay and the batch that adds its findings. */
  findings(): Promise<{ result: SessionResult; messages: TimelineMessage[] }>;
}

/**
 * A trace's timeline for the trace editor, from its index when it has a valid one, else decoded
 * (openTraceTimeline) and the index written after, unless `write` is false. Every message goes to onMessage
 * in order; a data batch comes with its columns packed (`packed` set, `spans` and `messages` empty), ready for
 * the editor's columns file. The findings' replay needs a model of the trace (where each finding's ranks were,
 * in the model's clock): from an index, its one pass through the engine builds one (traceFindings), after the
 * timeline was drawn.
 */
export async function openIndexedTimeline(
  trace: string,
  onMessage: (message: TimelineMessage) => void,
  { analyzers = DEFAULT_ANALYZERS, write = true }: { analyzers?: number; write?: boolean } = {},
): Promise<IndexedOpening> {
  const before = fingerprintOf(trace);
  const indexed = before !== undefined ? readIndex(trace, before) : 'the trace cannot be read';
  if (typeof indexed !== 'string') {
    for (const m of indexed.messages) onMessage(m);
    let second: ReturnType<IndexedOpening['findings']> | undefined;
    return {
      start: indexed.start,
      ...(indexed.cut !== undefined ? { cut: indexed.cut } : {}),
      fromIndex: true,
      indexWritten: false,
      findings: () => (second ??= traceFindings(trace, analyzers)),
    };
  }
  const writer = write && before !== undefined ? IndexWriter.open(trace) : undefined;
  let first;
  try {
    first = await openTraceTimeline(trace, analyzers, (m) => {
      if (m.type !== 'data') {
        writer?.add(m);
        onMessage(m);
        return;
      }
      const block = packBlock(m);
      const header: TimelineData = { ...m, spans: emptySpans(), messages: emptyMessages() };
      writer?.add(header, block);
      onMessage({ ...header, packed: block });
    });
  } catch (error) {
    writer?.abort();
    throw error;
  }
  // Written only when the trace did not change while it was read (a run still writing it): the index would
  // name the trace as it is now with the timeline of what it was.
  const after = fingerprintOf(trace);
  let indexWritten = false;
  if (writer !== undefined && before !== undefined && after !== undefined && sameTrace(before, after))
    indexWritten = writer.finish(before, first.start, first.cut);
  else writer?.abort();
  return {
    start: first.start,
    ...(first.cut !== undefined ? { cut: first.cut } : {}),
    fromIndex: false,
    indexWritten,
    why: indexed,
    findings: () => first.findings(),
  };
}

/**
 * Writes the index of a trace just written (`mpiscope run --trace`, when the run ends), so its first opening in
 * the editor reads it; true when written. Decodes the trace once (~0.9 s of CPU per million events, the trace
 * read whole into memory, as `mpiscope report` reads it): a trace over `maxBytes` is left to its first opening.
 */
export async function writeTraceIndex(
  trace: string,
  analyzers = DEFAULT_ANALYZERS,
  maxBytes = Infinity,
): Promise<boolean> {
  try {
    if (statSync(trace).size > maxBytes) return false;
    return (await openIndexedTimeline(trace, () => undefined, { analyzers })).indexWritten;
  } catch {
    return false;
  }
}
