/**
 * A data batch's span and message columns as binary: how a trace's timeline travels from the language server
 * to the trace editor's webview. As JSON a million-event timeline is ~18 MiB of text, stringified and parsed
 * on every hop (the language server's response, the extension host, code-server's websocket, the webview's
 * two iframes); packed, each batch is one ArrayBuffer that VS Code's webview postMessage carries as bytes,
 * and the webview reads its typed-array views as it read the plain arrays.
 *
 * One block per data batch, blocks back to back in batch order; a block is a header of two little-endian
 * uint32 (spans, messages) padded to 8 bytes, then the columns in COLUMNS' order, each padded to 8 bytes so
 * every Float64Array view is aligned. Times and byte counts are float64 (nanoseconds since the job's origin
 * pass 2^31; every integer below 2^53 is exact), ranks, ids and tags int32.
 */
import {
  emptyMessages,
  emptySpans,
  type MessageColumns,
  type SpanColumns,
  type TimelineData,
  type TimelineMessage,
} from './timeline-protocol';

type Kind = 'f64' | 'i32';
const SPAN_COLUMNS: readonly (readonly [keyof SpanColumns, Kind])[] = [
  ['rank', 'i32'],
  ['start', 'f64'],
  ['end', 'f64'],
  ['fn', 'i32'],
  ['site', 'i32'],
  ['comm', 'i32'],
];
const MESSAGE_COLUMNS: readonly (readonly [keyof MessageColumns, Kind])[] = [
  ['src', 'i32'],
  ['sendTime', 'f64'],
  ['dst', 'i32'],
  ['recvTime', 'f64'],
  ['bytes', 'f64'],
  ['tag', 'i32'],
];
const HEADER = 8;

const pad8 = (n: number): number => (n + 7) & ~7;
const width = (k: Kind): number => (k === 'f64' ? 8 : 4);

/** Bytes of the block of a batch with these many spans and messages. */
export function blockBytes(spans: number, messages: number): number {
  let n = HEADER;
  for (const [, k] of SPAN_COLUMNS) n += pad8(spans * width(k));
  for (const [, k] of MESSAGE_COLUMNS) n += pad8(messages * width(k));
  return n;
}

/** Writes the batch's columns as one block at `offset` of `into` (blockBytes long); returns the end offset. */
export function packBlock(
  d: Pick<TimelineData, 'spans' | 'messages'>,
  into: ArrayBuffer,
  offset: number,
): number {
  const spans = d.spans.rank.length;
  const messages = d.messages.src.length;
  const head = new DataView(into, offset, HEADER);
  head.setUint32(0, spans, true);
  head.setUint32(4, messages, true);
  let at = offset + HEADER;
  const write = (values: ArrayLike<number>, n: number, k: Kind): void => {
    const view = k === 'f64' ? new Float64Array(into, at, n) : new Int32Array(into, at, n);
    for (let i = 0; i < n; i++) view[i] = values[i] ?? 0;
    at += pad8(n * width(k));
  };
  for (const [name, k] of SPAN_COLUMNS) write(d.spans[name], spans, k);
  for (const [name, k] of MESSAGE_COLUMNS) write(d.messages[name], messages, k);
  return at;
}

/** Every data batch's columns, in order, as one buffer (the file the language server hands over). */
export function packBatches(batches: readonly Pick<TimelineData, 'spans' | 'messages'>[]): ArrayBuffer {
  const total = batches.reduce((n, d) => n + blockBytes(d.spans.rank.length, d.messages.src.length), 0);
  const out = new ArrayBuffer(total);
  let at = 0;
  for (const d of batches) at = packBlock(d, out, at);
  return out;
}

export interface UnpackedBlock {
  readonly spans: SpanColumns;
  readonly messages: MessageColumns;
  /** Where the next block starts. */
  readonly next: number;
}

/**
 * The block at `offset` of `bytes`, copied into an ArrayBuffer of its own that its typed-array views share
 * (VS Code's postMessage sends each ArrayBuffer a message references whole, so a view into the whole file
 * would send the file with every batch). Throws on a block that does not fit: a truncated or foreign file.
 */
export function unpackBlock(bytes: Uint8Array, offset: number): UnpackedBlock {
  if (offset + HEADER > bytes.length)
    throw new Error(`packed columns end inside a block header at byte ${offset}`);
  const head = new DataView(bytes.buffer, bytes.byteOffset + offset, HEADER);
  const spans = head.getUint32(0, true);
  const messages = head.getUint32(4, true);
  const size = blockBytes(spans, messages);
  if (offset + size > bytes.length)
    throw new Error(`packed columns: a block of ${spans} spans and ${messages} messages runs past the end`);
  // A copy by hand: a Node Buffer's slice() is a view into the same (maybe pooled) memory.
  const copy = new Uint8Array(size);
  copy.set(bytes.subarray(offset, offset + size));
  const own = copy.buffer;
  let at = HEADER;
  const read = (n: number, k: Kind): Float64Array | Int32Array => {
    const view = k === 'f64' ? new Float64Array(own, at, n) : new Int32Array(own, at, n);
    at += pad8(n * width(k));
    return view;
  };
  const s = {} as Record<keyof SpanColumns, Float64Array | Int32Array>;
  for (const [name, k] of SPAN_COLUMNS) s[name] = read(spans, k);
  const m = {} as Record<keyof MessageColumns, Float64Array | Int32Array>;
  for (const [name, k] of MESSAGE_COLUMNS) m[name] = read(messages, k);
  return { spans: s, messages: m, next: offset + size };
}

/**
 * A timeline's messages split for the binary path: the same messages with every data batch's columns left
 * empty (small enough for JSON), and all those columns packed, batch after batch.
 */
export function packTimeline(messages: readonly TimelineMessage[]): {
  headers: TimelineMessage[];
  bytes: ArrayBuffer;
} {
  const data = messages.filter((m): m is TimelineData => m.type === 'data');
  const headers = messages.map((m) =>
    m.type === 'data' ? { ...m, spans: emptySpans(), messages: emptyMessages() } : m,
  );
  return { headers, bytes: packBatches(data) };
}

/** packTimeline undone: the headers' data batches given their columns back, as typed arrays, from `bytes`. */
export function unpackTimeline(headers: readonly TimelineMessage[], bytes: Uint8Array): TimelineMessage[] {
  let at = 0;
  const out = headers.map((m) => {
    if (m.type !== 'data') return m;
    const b = unpackBlock(bytes, at);
    at = b.next;
    return { ...m, spans: b.spans, messages: b.messages };
  });
  if (at !== bytes.length)
    throw new Error(
      `packed columns: ${bytes.length - at} bytes left after the last of the timeline's batches`,
    );
  return out;
}
