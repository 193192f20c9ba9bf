/**
 * What the coordinator sends one shard: the decoded calls (rows of `RecordColumns`) that the router gave it,
 * in the order the coordinator took them, and marks of where each item of the stream (a rank's frame, or
 * the end of a rank's connection) begins, so that the shard tags its findings with the item's position
 * (finding-merge.ts). A shard is sent only its own rows, already decoded: it decodes nothing itself.
 *
 * Rows are written into SharedArrayBuffers that the shard reads in place: a batch is posted as a shared
 * reference, never copied nor cloned row by row. A batch is a range of a buffer: the next batch goes on in the
 * same buffer until it is full, so that posting often (every turn of the event loop) does not allocate a
 * buffer each time. A shard copies a row's words out (into its own columns) before it is handed to the
 * engine, so nothing keeps a view of the shared buffer.
 */
import type { RecordColumns } from '../protocol/columns';

const MARK = 3;
const ROW = 4;
/**
 * A row: item kind (u32), record kind (u8), flags (u8), func (u16), rank (i32), seq (u32), word count (u32),
 * text length in bytes (u32), time and site (f64 each); then its words (f64) and its text (UTF-8, SITE rows),
 * padded to 8 bytes. A mark: item kind (u32), the item's position (f64 at byte 8).
 */
const ROW_HEAD = 40;
const MARK_SIZE = 16;
/** A batch buffer's size unless one row needs more: large enough to post rarely, small enough to post often. */
export const BATCH_BYTES = 1 << 20;

export interface Batch {
  readonly buffer: SharedArrayBuffer;
  /** The batch's bytes are buffer[start, end). */
  readonly start: number;
  readonly end: number;
  /** Rows in it (marks not counted). */
  readonly rows: number;
}

const pad8 = (n: number) => (n + 7) & ~7;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class BatchWriter {
  private buffer: SharedArrayBuffer | undefined;
  private view: DataView | undefined;
  private bytes: Uint8Array | undefined;
  private f64: Float64Array | undefined;
  private used = 0;
  /** Where the batch being written starts in the buffer (the earlier part was posted). */
  private start = 0;
  private rows = 0;
  private marks = 0;

  constructor(private readonly batchBytes = BATCH_BYTES) {}

  get pendingRows(): number {
    return this.rows;
  }

  /** The rows that follow belong to the stream's item at this position. */
  mark(item: number): Batch | undefined {
    const closed = this.room(MARK_SIZE);
    const v = this.view as DataView;
    v.setUint32(this.used, MARK, true);
    v.setFloat64(this.used + 8, item, true);
    this.used += MARK_SIZE;
    this.marks++;
    return closed;
  }

  /** Appends row `row` of `cols`; returns the batch that had to be closed to make room, if any. */
  row(cols: RecordColumns, row: number): Batch | undefined {
    const n = cols.wordCount[row] as number;
    const text = cols.text.get(row);
    const textBytes = text === undefined ? undefined : utf8.encode(text);
    const size = ROW_HEAD + 8 * n + pad8(textBytes?.byteLength ?? 0);
    const closed = this.room(size);
    const at = this.used;
    const v = this.view as DataView;
    v.setUint32(at, ROW, true);
    v.setUint8(at + 4, cols.kind[row] as number);
    v.setUint8(at + 5, cols.flags[row] as number);
    v.setUint16(at + 6, cols.func[row] as number, true);
    v.setInt32(at + 8, cols.rank[row] as number, true);
    v.setUint32(at + 12, cols.seq[row] as number, true);
    v.setUint32(at + 16, n, true);
    v.setUint32(at + 20, textBytes?.byteLength ?? 0, true);
    v.setFloat64(at + 24, cols.time[row] as number, true);
    v.setFloat64(at + 32, cols.site[row] as number, true);
    const w = cols.wordStart[row] as number;
    (this.f64 as Float64Array).set(cols.words.subarray(w, w + n), (at + ROW_HEAD) / 8);
    if (textBytes !== undefined) this.bytes?.set(textBytes, at + ROW_HEAD + 8 * n);
    this.used += size;
    this.rows++;
    return closed;
  }

  /** Closes the batch being written (undefined when empty). */
  take(): Batch | undefined {
    if (this.buffer === undefined || this.used === this.start) return undefined;
    const batch = { buffer: this.buffer, start: this.start, end: this.used, rows: this.rows };
    this.start = this.used;
    this.rows = this.marks = 0;
    return batch;
  }

  private room(size: number): Batch | undefined {
    let closed: Batch | undefined;
    if (this.buffer !== undefined && this.used + size > this.buffer.byteLength) {
      closed = this.take();
      this.buffer = this.view = this.bytes = this.f64 = undefined;
    }
    if (this.buffer === undefined) {
      this.used = this.start = 0;
      this.buffer = new SharedArrayBuffer(pad8(Math.max(this.batchBytes, size)));
      this.view = new DataView(this.buffer);
      this.bytes = new Uint8Array(this.buffer);
      this.f64 = new Float64Array(this.buffer);
    }
    return closed;
  }
}

/**
 * Reads a batch in order: its rows are appended to `cols` (cleared first, and after each hand-over), handed
 * to `rows` before each mark and at the end, and each mark to `mark`.
 */
export function readBatch(
  buffer: SharedArrayBuffer,
  start: number,
  end: number,
  cols: RecordColumns,
  rows: (cols: RecordColumns) => void,
  mark: (item: number) => void,
): void {
  const view = new DataView(buffer, 0, end);
  const f64 = new Float64Array(buffer, 0, end >>> 3);
  const bytes = new Uint8Array(buffer, 0, end);
  cols.clear();
  const hand = () => {
    if (cols.length === 0) return;
    rows(cols);
    cols.clear();
  };
  let at = start;
  while (at < end) {
    const kind = view.getUint32(at, true);
    if (kind === MARK) {
      hand();
      mark(view.getFloat64(at + 8, true));
      at += MARK_SIZE;
    } else if (kind === ROW) {
      const n = view.getUint32(at + 16, true);
      const textLength = view.getUint32(at + 20, true);
      const row = cols.add(
        view.getUint8(at + 4),
        view.getUint8(at + 5),
        view.getUint16(at + 6, true),
        view.getInt32(at + 8, true),
        view.getUint32(at + 12, true),
        view.getFloat64(at + 24, true),
        view.getFloat64(at + 32, true),
        f64,
        (at + ROW_HEAD) / 8,
        n,
      );
      if (textLength > 0) {
        const from = at + ROW_HEAD + 8 * n;
        // A copy: TextDecoder does not read shared memory.
        cols.text.set(row, fromUtf8.decode(bytes.slice(from, from + textLength)));
      }
      at += ROW_HEAD + 8 * n + pad8(textLength);
    } else {
      throw new Error(`shard batch: unknown item kind ${kind} at byte ${at}`);
    }
  }
  hand();
}
