/**
 * The session trace: every frame a rank sent, appended as it arrived, so a report (or a timeline) can be
 * rebuilt after the run with `mpiscope report TRACE`.
 *
 * Format (all integers little-endian):
 *   file header, 16 bytes: magic "MSCTRACE" (8 bytes ASCII), u32 format version (1), u32 reserved (0)
 *   then frames, each: u32 rank, u32 kind, u32 payload length, payload bytes
 *     kind 0  a binary frame of the rank, byte for byte (whole 64-byte records, native-shim/spec/records.json)
 *     kind 1  a text (JSON control) frame of the rank; the first one is its hello
 *     kind 2  a session record (rank = 0xFFFFFFFF): JSON, {"type":"session",...} first, {"type":"end",...} last;
 *             between them {"type":"hang",...} where the live session found a hang and {"type":"closed","rank":R}
 *             where a rank's connection closed
 * A trace cut short (the analyzer was killed) is still readable up to its last whole frame.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync, writevSync } from 'node:fs';

export const TRACE_MAGIC = 'MSCTRACE';
export const TRACE_VERSION = 1;
export const SESSION_RANK = 0xffffffff;

export type TraceFrameKind = 'binary' | 'text' | 'session';
const KIND_IDS: Record<TraceFrameKind, number> = { binary: 0, text: 1, session: 2 };
const KIND_NAMES: readonly TraceFrameKind[] = ['binary', 'text', 'session'];

export interface TraceFrame {
  readonly rank: number;
  readonly kind: TraceFrameKind;
  readonly data: Buffer;
}

/** Appends frames with synchronous writes: a frame is on disk before it is analysed, so a crash loses nothing. */
export class TraceWriter {
  private fd: number | undefined;

  constructor(readonly path: string) {
    // The file appears under its name with its header already in it (written under a temporary name, then
    // renamed; the descriptor follows the file): a reader that opens it as the run starts (the editor, a test
    // polling it) never finds an empty file and calls it no trace.
    const fresh = `${path}.${process.pid}.new`;
    const fd = openSync(fresh, 'w');
    try {
      const header = Buffer.alloc(16);
      header.write(TRACE_MAGIC, 0, 'ascii');
      header.writeUInt32LE(TRACE_VERSION, 8);
      writeSync(fd, header);
      renameSync(fresh, path);
    } catch (err) {
      closeSync(fd);
      rmSync(fresh, { force: true });
      throw err;
    }
    this.fd = fd;
  }

  /** A frame's header, reused: each write is synchronous. */
  private readonly head = Buffer.alloc(12);

  write(rank: number, kind: TraceFrameKind, data: Buffer | string): void {
    if (this.fd === undefined) return;
    const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const head = this.head;
    head.writeUInt32LE(rank >>> 0, 0);
    head.writeUInt32LE(KIND_IDS[kind], 4);
    head.writeUInt32LE(payload.length, 8);
    // Header and frame in one system call, the frame from the buffer it arrived in (no copy of every frame).
    const written = writevSync(this.fd, [head, payload]);
    // A short write (a full disk, a signal) leaves the rest: written in order, so the frame is whole or cut last.
    if (written < head.length + payload.length) {
      const rest = Buffer.concat([head, payload]).subarray(written);
      writeSync(this.fd, rest);
    }
  }

  writeSession(record: object): void {
    this.write(SESSION_RANK, 'session', JSON.stringify(record));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Where a trace stopped being readable before its end, and why (see readTraceUpToCut). */
export interface TraceCut {
  /** Byte offset of the first frame that is not whole or not well-formed. */
  readonly at: number;
  /** The file's size. */
  readonly size: number;
  readonly why: string;
}

/** Read a whole trace. Throws an Error with a one-line reason when the file is not a trace. */
export function readTrace(path: string): TraceFrame[] {
  return readTraceUpToCut(path).frames;
}

/**
 * Read a trace up to its last whole, well-formed frame, and say where it stopped when that is before the end:
 * a trace the analyzer was killed while writing ends mid-frame, and a damaged one has a frame header that
 * makes no sense (an unknown kind, a binary frame that is not whole 64-byte records). Throws an Error with a
 * one-line reason when the file is not a trace at all.
 */
export function readTraceUpToCut(path: string): { frames: TraceFrame[]; cut?: TraceCut } {
  const bytes = readFileSync(path);
  if (bytes.length < 16 || bytes.toString('ascii', 0, 8) !== TRACE_MAGIC) {
    throw new Error(`${path} is not an mpiscope trace (it does not start with ${TRACE_MAGIC})`);
  }
  const version = bytes.readUInt32LE(8);
  if (version !== TRACE_VERSION)
    throw new Error(`${path} is a version ${version} trace; this mpiscope reads version ${TRACE_VERSION}`);
  const frames: TraceFrame[] = [];
  let at = 16;
  const cut = (why: string): { frames: TraceFrame[]; cut: TraceCut } => ({
    frames,
    cut: { at, size: bytes.length, why },
  });
  while (at < bytes.length) {
    if (at + 12 > bytes.length) return cut('it ends inside a frame header');
    const rank = bytes.readUInt32LE(at);
    const kindId = bytes.readUInt32LE(at + 4);
    const kind = KIND_NAMES[kindId];
    const length = bytes.readUInt32LE(at + 8);
    if (kind === undefined) return cut(`a frame has an unknown kind ${kindId}`);
    if (at + 12 + length > bytes.length)
      return cut(`it ends inside a frame of ${length} bytes (${bytes.length - at - 12} of them written)`);
    if (kind === 'binary' && length % 64 !== 0)
      return cut(`a binary frame of ${length} bytes is not whole 64-byte records`);
    frames.push({ rank, kind, data: bytes.subarray(at + 12, at + 12 + length) });
    at += 12 + length;
  }
  return { frames };
}
