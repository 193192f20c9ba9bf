/**
 * A data batch's span and message columns as binary: how a trace's timeline travels from the language server
 * to the trace editor's webview. As JSON a million-event timeline is ~18 MiB of text, stringified and parsed
 * on every hop (the language server's response, the extension host, code-server's websocket, the webview's
 * two iframes); packed, each batch is one ArrayBuffer (TimelineData.packed) that VS Code's webview
 * postMessage carries as bytes, and the page's store unpacks it.
 *
 * Each column is stored as narrowly as its values in the batch allow, losslessly: integers in int8, int16 or
 * int32 when they fit; integers that do not fit int32 but span less than 2^32 (times in nanoseconds: a batch
 * covers well under 4.3 s) as uint32 offsets from a float64 base; anything else float64. The bytes are what
 * code-server's websocket carries (and compresses) to the workbench, the slowest hop of an opening: a
 * million-event trace's columns are ~7 MB this way against ~19 MB all float64 and int32.
 *
 * A block: two little-endian uint32 (spans, messages), one kind byte per column in COLUMNS' order, padded to
 * HEADER bytes; then each column's data (a based column: its float64 base, then the offsets), each padded to
 * 8 bytes so every view is aligned.
 */
import type { Column, MessageColumns, SpanColumns, TimelineData } from './timeline-protocol';

const SPAN_NAMES = ['rank', 'start', 'end', 'fn', 'site', 'comm'] as const;
const MESSAGE_NAMES = ['src', 'sendTime', 'dst', 'recvTime', 'bytes', 'tag'] as const;
const HEADER = 24;

const F64 = 0;
const I8 = 1;
const I16 = 2;
const I32 = 3;
const BASED = 4;
type Kind = typeof F64 | typeof I8 | typeof I16 | typeof I32 | typeof BASED;

const pad8 = (n: number): number => (n + 7) & ~7;

function columnBytes(kind: Kind, n: number): number {
  if (kind === F64) return 8 * n;
  if (kind === I8) return pad8(n);
  if (kind === I16) return pad8(2 * n);
  if (kind === I32) return pad8(4 * n);
  return 8 + pad8(4 * n);
}

/** The narrowest lossless kind for the first n values, and the base of a based column (its minimum). */
function choose(values: ArrayLike<number>, n: number): { kind: Kind; base: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i] ?? 0;
    // -0 and non-integers (a clock interpolated between offsets) keep every bit as float64.
    if (!Number.isInteger(v) || Object.is(v, -0)) return { kind: F64, base: 0 };
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (n === 0 || (min >= -128 && max <= 127)) return { kind: I8, base: 0 };
  if (min >= -32768 && max <= 32767) return { kind: I16, base: 0 };
  if (min >= -2147483648 && max <= 2147483647) return { kind: I32, base: 0 };
  // Integers below 2^53 (the model's times are) are exact as base + offset.
  if (max - min <= 0xffffffff && Number.isSafeInteger(max) && Number.isSafeInteger(min))
    return { kind: BASED, base: min };
  return { kind: F64, base: 0 };
}

/** The batch's columns as one block in an ArrayBuffer of its own. */
export function packBlock(d: Pick<TimelineData, 'spans' | 'messages'>): ArrayBuffer {
  const spans = d.spans.rank.length;
  const messages = d.messages.src.length;
  const columns: [Column, number][] = [
    ...SPAN_NAMES.map((k): [Column, number] => [d.spans[k], spans]),
    ...MESSAGE_NAMES.map((k): [Column, number] => [d.messages[k], messages]),
  ];
  const kinds = columns.map(([values, n]) => choose(values, n));
  const size = kinds.reduce((s, { kind }, i) => s + columnBytes(kind, columns[i]?.[1] ?? 0), HEADER);
  const out = new ArrayBuffer(size);
  const head = new DataView(out, 0, HEADER);
  head.setUint32(0, spans, true);
  head.setUint32(4, messages, true);
  let at = HEADER;
  columns.forEach(([values, n], c) => {
    const { kind, base } = kinds[c] ?? { kind: F64, base: 0 };
    head.setUint8(8 + c, kind);
    let view: Float64Array | Int8Array | Int16Array | Int32Array | Uint32Array;
    if (kind === BASED) {
      new Float64Array(out, at, 1)[0] = base;
      view = new Uint32Array(out, at + 8, n);
    } else if (kind === F64) view = new Float64Array(out, at, n);
    else if (kind === I8) view = new Int8Array(out, at, n);
    else if (kind === I16) view = new Int16Array(out, at, n);
    else view = new Int32Array(out, at, n);
    for (let i = 0; i < n; i++) view[i] = (values[i] ?? 0) - base;
    at += columnBytes(kind, n);
  });
  return out;
}

export interface UnpackedBlock {
  readonly spans: SpanColumns;
  readonly messages: MessageColumns;
  /** Where the next block starts. */
  readonly next: number;
}

/**
 * The block at `offset` of `bytes`: typed-array columns (a based column expanded into float64). Views share
 * the bytes where they are aligned (a whole ArrayBuffer posted to the page is), else a copy. Throws on a block
 * that does not fit or names an unknown kind: a truncated or foreign file.
 */
export function unpackBlock(bytes: Uint8Array, offset: number): UnpackedBlock {
  if (offset + HEADER > bytes.length)
    throw new Error(`packed columns end inside a block header at byte ${offset}`);
  let buffer = bytes.buffer as ArrayBuffer;
  let start = bytes.byteOffset + offset;
  const head = new DataView(buffer, start, HEADER);
  const spans = head.getUint32(0, true);
  const messages = head.getUint32(4, true);
  const counts = [...SPAN_NAMES.map(() => spans), ...MESSAGE_NAMES.map(() => messages)];
  const kinds = counts.map((_, c) => head.getUint8(8 + c));
  if (kinds.some((k) => k > BASED)) throw new Error(`packed columns: unknown column kind at byte ${offset}`);
  const size = kinds.reduce((s, k, c) => s + columnBytes(k as Kind, counts[c] ?? 0), HEADER);
  if (offset + size > bytes.length)
    throw new Error(`packed columns: a block of ${spans} spans and ${messages} messages runs past the end`);
  if (start % 8 !== 0) {
    // Copied by hand: a Node Buffer's slice() is a view of the same (maybe pooled) memory, not a copy.
    const copy = new Uint8Array(size);
    copy.set(bytes.subarray(offset, offset + size));
    buffer = copy.buffer;
    start = 0;
  }
  let at = start + HEADER;
  const cols = kinds.map((kind, c): Column => {
    const n = counts[c] ?? 0;
    let col: Column;
    if (kind === BASED) {
      const base = new Float64Array(buffer, at, 1)[0] ?? 0;
      const offsets = new Uint32Array(buffer, at + 8, n);
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) values[i] = base + (offsets[i] ?? 0);
      col = values;
    } else if (kind === F64) col = new Float64Array(buffer, at, n);
    else if (kind === I8) col = new Int8Array(buffer, at, n);
    else if (kind === I16) col = new Int16Array(buffer, at, n);
    else col = new Int32Array(buffer, at, n);
    at += columnBytes(kind as Kind, n);
    return col;
  });
  const pick = <K extends string>(names: readonly K[], from: number): Record<K, Column> =>
    Object.fromEntries(names.map((k, i) => [k, cols[from + i]])) as Record<K, Column>;
  return {
    spans: pick(SPAN_NAMES, 0),
    messages: pick(MESSAGE_NAMES, SPAN_NAMES.length),
    next: offset + size,
  };
}
