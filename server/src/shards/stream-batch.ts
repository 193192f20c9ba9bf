/**
 * The stream of what the analysis is fed, in the order the coordinator took it: a rank's binary frame (its
 * raw records, undecoded) or the end of a rank's connection. Items are written into SharedArrayBuffers that
 * every shard reads in place: a batch is posted once per shard as a shared reference, never copied nor
 * cloned record by record. A batch is a range of a buffer: the next batch goes on in the same buffer until it
 * is full, so that posting often (every turn of the event loop) does not allocate a buffer each time. Bytes
 * once written are never overwritten, so a decoder that keeps a view of a frame (a call straddling two
 * frames) keeps valid bytes.
 */

const FRAME = 1;
const CLOSE = 2;
/** kind, rank, length, padding; a CLOSE then carries its END's seq and time as two float64. */
const HEAD = 16;
const CLOSE_BODY = 16;
/** A batch buffer's size unless one frame needs more: large enough to post rarely, small enough to post often. */
export const BATCH_BYTES = 1 << 20;

export interface Batch {
  readonly buffer: SharedArrayBuffer;
  /** The batch's bytes are buffer[start, end). */
  readonly start: number;
  readonly end: number;
  readonly items: number;
}

export type StreamItem =
  | { readonly kind: 'frame'; readonly rank: number; readonly data: Uint8Array }
  | { readonly kind: 'close'; readonly rank: number; readonly seq: number; readonly time: number };

const pad8 = (n: number) => (n + 7) & ~7;

export class BatchWriter {
  private buffer: SharedArrayBuffer | undefined;
  private view: DataView | undefined;
  private bytes: Uint8Array | undefined;
  private used = 0;
  /** Where the batch being written starts in the buffer (the earlier part was posted). */
  private start = 0;
  private items = 0;

  constructor(private readonly batchBytes = BATCH_BYTES) {}

  get pendingItems(): number {
    return this.items;
  }

  get pendingBytes(): number {
    return this.used - this.start;
  }

  /** Appends an item; returns the batch that had to be closed to make room, if any. */
  frame(rank: number, data: Uint8Array): Batch | undefined {
    const size = HEAD + pad8(data.byteLength);
    const closed = this.room(size);
    const at = this.used;
    this.head(at, FRAME, rank, data.byteLength);
    this.bytes?.set(data, at + HEAD);
    this.used += size;
    this.items++;
    return closed;
  }

  close(rank: number, seq: number, time: number): Batch | undefined {
    const closed = this.room(HEAD + CLOSE_BODY);
    const at = this.used;
    this.head(at, CLOSE, rank, 0);
    this.view?.setFloat64(at + HEAD, seq, true);
    this.view?.setFloat64(at + HEAD + 8, time, true);
    this.used += HEAD + CLOSE_BODY;
    this.items++;
    return closed;
  }

  /** Closes the batch being written (undefined when empty). */
  take(): Batch | undefined {
    if (this.buffer === undefined || this.items === 0) return undefined;
    const batch = { buffer: this.buffer, start: this.start, end: this.used, items: this.items };
    this.start = this.used;
    this.items = 0;
    return batch;
  }

  private head(at: number, kind: number, rank: number, length: number): void {
    const v = this.view;
    if (v === undefined) return;
    v.setUint32(at, kind, true);
    v.setUint32(at + 4, rank, true);
    v.setUint32(at + 8, length, true);
  }

  private room(size: number): Batch | undefined {
    let closed: Batch | undefined;
    if (this.buffer !== undefined && this.used + size > this.buffer.byteLength) {
      closed = this.take();
      this.buffer = this.view = this.bytes = undefined;
    }
    if (this.buffer === undefined) {
      this.used = this.start = 0;
      this.buffer = new SharedArrayBuffer(Math.max(this.batchBytes, size));
      this.view = new DataView(this.buffer);
      this.bytes = new Uint8Array(this.buffer);
    }
    return closed;
  }
}

/** The items of a batch, in order; frames are views into the shared buffer. */
export function* readBatch(buffer: SharedArrayBuffer, start: number, end: number): Generator<StreamItem> {
  const view = new DataView(buffer, 0, end);
  let at = start;
  while (at < end) {
    const kind = view.getUint32(at, true);
    const rank = view.getUint32(at + 4, true);
    if (kind === FRAME) {
      const n = view.getUint32(at + 8, true);
      yield { kind: 'frame', rank, data: new Uint8Array(buffer, at + HEAD, n) };
      at += HEAD + pad8(n);
    } else if (kind === CLOSE) {
      yield {
        kind: 'close',
        rank,
        seq: view.getFloat64(at + HEAD, true),
        time: view.getFloat64(at + HEAD + 8, true),
      };
      at += HEAD + CLOSE_BODY;
    } else {
      throw new Error(`shard batch: unknown item kind ${kind} at byte ${at}`);
    }
  }
}
