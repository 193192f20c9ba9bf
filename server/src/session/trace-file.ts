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
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync, writevSync } from 'node:fs';

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

  /**
   * onFail: told once, in a sentence, when a write failed (a full disk: ESyS-Particle's 55 GB trace filled one, and
   * the exception from the socket's close handler ended the analyzer with a stack trace while the job ran on). The
   * trace then ends at its last whole frame and the run goes on without it: the analysis never reads it back.
   */
  constructor(
    readonly path: string,
    private readonly onFail?: (why: string) => void,
  ) {
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
    try {
      // Header and frame in one system call, the frame from the buffer it arrived in (no copy of every frame).
      const written = writevSync(this.fd, [head, payload]);
      // A short write (a signal) leaves the rest: written in order, so the frame is whole or cut last.
      if (written < head.length + payload.length) {
        const rest = Buffer.concat([head, payload]).subarray(written);
        writeSync(this.fd, rest);
      }
    } catch (err) {
      // A frame cut here is where a reader stops (TraceReader): the frames before it stay readable.
      const fd = this.fd;
      this.fd = undefined;
      try {
        if (fd !== undefined) closeSync(fd);
      } catch {
        // The descriptor is released either way; the reason given is the write's.
      }
      this.onFail?.(
        `stopped writing the trace ${this.path}: ${(err as Error).message}; the run goes on, and the trace ends there`,
      );
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

/** Read a whole trace into memory. Throws an Error with a one-line reason when the file is not a trace. */
export function readTrace(path: string): TraceFrame[] {
  return readTraceUpToCut(path).frames;
}

/**
 * Read a whole trace up to its last whole, well-formed frame, and say where it stopped when that is before the
 * end (TraceReader). For small files and tests; a report streams the frames instead (TraceReader.frames).
 */
export function readTraceUpToCut(path: string): { frames: TraceFrame[]; cut?: TraceCut } {
  const reader = new TraceReader(path);
  const frames = [...reader.frames()];
  return reader.cut !== undefined ? { frames, cut: reader.cut } : { frames };
}

/**
 * A trace read frame by frame, a chunk of the file at a time, so that replaying a run holds what the analysis
 * keeps and not the whole file (a ten-minute run at the analyzer's top rate writes gigabytes; Node cannot read
 * a file of more than 2 GiB into one buffer). Reading stops at the last whole, well-formed frame: a trace the
 * analyzer was killed while writing ends mid-frame, and a damaged one has a frame header that makes no sense
 * (an unknown kind, a binary frame that is not whole 64-byte records); `cut` then says where and why. The
 * constructor throws an Error with a one-line reason when the file is not a trace at all.
 *
 * Each frame's data is a view of the chunk it was read in; a chunk is never reused, so a frame stays valid
 * for as long as someone holds it.
 */
export class TraceReader {
  readonly size: number;
  /** Set once frames() stopped before the end of the file. */
  cut?: TraceCut;

  constructor(
    readonly path: string,
    private readonly chunkBytes = 8 << 20,
  ) {
    const fd = openSync(path, 'r');
    try {
      this.size = fstatSync(fd).size;
      const head = Buffer.alloc(16);
      const got = this.size >= 16 ? readSync(fd, head, 0, 16, 0) : 0;
      if (got < 16 || head.toString('ascii', 0, 8) !== TRACE_MAGIC)
        throw new Error(`${path} is not an mpiscope trace (it does not start with ${TRACE_MAGIC})`);
      const version = head.readUInt32LE(8);
      if (version !== TRACE_VERSION)
        throw new Error(
          `${path} is a version ${version} trace; this mpiscope reads version ${TRACE_VERSION}`,
        );
    } finally {
      closeSync(fd);
    }
  }

  /** The frames in file order; may be called again (each call reads the file anew). */
  *frames(): Generator<TraceFrame, void, undefined> {
    this.cut = undefined;
    const fd = openSync(this.path, 'r');
    try {
      let buf = Buffer.alloc(0);
      let pos = 0; // where the next frame starts in buf
      let bufAt = 16; // the file offset of buf[0]
      let fileAt = 16; // the file offset of the next byte to read
      const size = this.size;
      // At least `need` bytes from pos in buf, reading more (into a fresh chunk) when it is not: false at the end.
      const have = (need: number): boolean => {
        if (buf.length - pos >= need) return true;
        if (fileAt >= size) return false;
        const next = Buffer.allocUnsafe(Math.max(this.chunkBytes, need));
        const kept = buf.copy(next, 0, pos);
        let filled = kept;
        while (filled < next.length && fileAt < size) {
          const n = readSync(fd, next, filled, Math.min(next.length - filled, size - fileAt), fileAt);
          if (n <= 0) break;
          filled += n;
          fileAt += n;
        }
        bufAt += pos;
        buf = next.subarray(0, filled);
        pos = 0;
        return filled >= need;
      };
      const stop = (why: string): void => {
        this.cut = { at: bufAt + pos, size, why };
      };
      while (bufAt + pos < size) {
        if (!have(12)) return stop('it ends inside a frame header');
        const rank = buf.readUInt32LE(pos);
        const kindId = buf.readUInt32LE(pos + 4);
        const kind = KIND_NAMES[kindId];
        const length = buf.readUInt32LE(pos + 8);
        if (kind === undefined) return stop(`a frame has an unknown kind ${kindId}`);
        if (bufAt + pos + 12 + length > size)
          return stop(
            `it ends inside a frame of ${length} bytes (${size - bufAt - pos - 12} of them written)`,
          );
        if (kind === 'binary' && length % 64 !== 0)
          return stop(`a binary frame of ${length} bytes is not whole 64-byte records`);
        if (!have(12 + length)) return stop(`it ends inside a frame of ${length} bytes`);
        yield { rank, kind, data: buf.subarray(pos + 12, pos + 12 + length) };
        pos += 12 + length;
      }
    } finally {
      closeSync(fd);
    }
  }
}
