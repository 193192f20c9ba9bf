/**
 * Decodes one rank's binary frames into rows of `RecordColumns` (one row per whole call). Stateful per
 * connection: a call (head + EXT records) may straddle two frames, so the decoder keeps the unfinished call's
 * words until its last word arrives. DataView reads into a reused word buffer, then one copy into the columns:
 * nothing is allocated per record. `decode()` builds `RankEvent` objects from those rows, for the timeline and
 * tests; the engine reads the rows themselves.
 */
import type { RankEvent } from '../engine/model/types';
import { eventAt } from './build-event';
import { checkCall } from './check-call';
import { MAX_ARRAY, wordsNeeded } from './call-words';
import { RecordColumns } from './columns';
import { DecodeError } from './decode-error';
import { EXT_WORD_OFFSET, EXT_WORDS, HEAD_WORD_OFFSET, HEAD_WORDS, KIND, layouts, RECORD_SIZE } from './spec';
import { utf8 } from './utf8';

const TWO_32 = 4294967296;

export class RankDecoder {
  private kind = 0;
  private flags = 0;
  private func = 0;
  private seq = 0;
  private time = 0;
  private site = 0;
  /** The pending call's words so far. */
  private words = new Float64Array(64);
  private count = 0;
  /** Words the pending call needs, -1 when open-ended (DTYPE, SITE), 0 when there is no pending call. */
  private need = 0;
  /** Raw word bytes of a pending SITE call (its module path). */
  private text: Uint8Array | undefined;
  private textLength = 0;
  private recordIndex = 0;
  /** Scratch rows for decode(). */
  private scratch: RecordColumns | undefined;

  constructor(readonly rank: number) {}

  /**
   * Decodes a frame and appends its whole calls to `out` (a call cut by the frame's end is appended when the
   * frame that finishes it arrives). Throws DecodeError (and stays unusable) when the frame breaks the format;
   * rows appended from that frame are then removed again, so a bad frame feeds nothing.
   */
  decodeInto(frame: Uint8Array, out: RecordColumns): void {
    const rows = out.length;
    const used = out.wordsUsed;
    try {
      this.decodeFrame(frame, out);
    } catch (e) {
      out.length = rows;
      out.wordsUsed = used;
      throw e;
    }
  }

  /** Decodes a frame into events (the timeline's and the tests' form of the same rows). */
  decode(frame: Uint8Array): RankEvent[] {
    const cols = (this.scratch ??= new RecordColumns(256));
    cols.clear();
    this.decodeInto(frame, cols);
    const out: RankEvent[] = [];
    for (let row = 0; row < cols.length; row++) out.push(eventAt(cols, row));
    return out;
  }

  private decodeFrame(frame: Uint8Array, out: RecordColumns): void {
    if (frame.byteLength % RECORD_SIZE !== 0) {
      throw new DecodeError(this.rank, -1, `length ${frame.byteLength} is not a multiple of ${RECORD_SIZE}`);
    }
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const n = frame.byteLength / RECORD_SIZE;
    for (let r = 0; r < n; r++) {
      this.recordIndex = r;
      const at = r * RECORD_SIZE;
      const kind = view.getUint8(at);
      if (kind === KIND.EXT) {
        if (this.need === 0) this.fail('EXT record without a head record before it');
        if (view.getUint32(at + 4, true) !== this.seq) {
          this.fail(`EXT seq ${view.getUint32(at + 4, true)} differs from its head's ${this.seq}`);
        }
        this.readWords(view, at + EXT_WORD_OFFSET, EXT_WORDS);
      } else {
        if (this.need !== 0) this.flushOpen(out);
        this.startCall(view, at, kind);
        this.readWords(view, at + HEAD_WORD_OFFSET, HEAD_WORDS);
      }
      this.emitIfWhole(out);
    }
    // Open-ended calls (DTYPE) end with the frame: the shim never splits one across frames.
    if (this.need === -1 && this.kind === KIND.DTYPE) this.flushOpen(out);
  }

  /** True when a call is still waiting for EXT records (the connection ended mid-call if it closes now). */
  get pending(): boolean {
    return this.need !== 0;
  }

  private startCall(view: DataView, at: number, kind: number): void {
    this.kind = kind;
    this.flags = view.getUint8(at + 1);
    this.func = view.getUint16(at + 2, true);
    this.seq = view.getUint32(at + 4, true);
    this.time = view.getUint32(at + 12, true) * TWO_32 + view.getUint32(at + 8, true);
    this.site = view.getUint32(at + 20, true) * TWO_32 + view.getUint32(at + 16, true);
    if (
      (kind === KIND.ENTER ||
        kind === KIND.EXIT ||
        kind === KIND.COMPLETE ||
        kind === KIND.FINDING ||
        kind === KIND.BSEND) &&
      this.func >= layouts.length
    ) {
      this.fail(`function id ${this.func} out of range (spec has ${layouts.length})`);
    }
    this.count = 0;
    this.need = -1;
    if (kind === KIND.SITE) {
      this.text ??= new Uint8Array(256);
      this.textLength = 0;
    }
  }

  private readWords(view: DataView, at: number, count: number): void {
    if (this.count + count > this.words.length) {
      const bigger = new Float64Array(this.words.length * 2);
      bigger.set(this.words);
      this.words = bigger;
    }
    const w = this.words;
    let k = this.count;
    for (let i = 0; i < count; i++) {
      const o = at + i * 8;
      w[k++] = view.getInt32(o + 4, true) * TWO_32 + view.getUint32(o, true);
    }
    this.count = k;
    if (k > MAX_ARRAY + 16) this.fail('call longer than any MPI call can be');
    if (this.kind === KIND.SITE) this.appendText(view, at, count);
  }

  /** SITE words after the first two are the module path's bytes, copied raw. */
  private appendText(view: DataView, at: number, count: number): void {
    const skip = this.textLength === 0 && this.count === count ? 2 : 0;
    const bytes = new Uint8Array(view.buffer, view.byteOffset + at + skip * 8, (count - skip) * 8);
    let text = this.text as Uint8Array;
    if (this.textLength + bytes.length > text.length) {
      if (text.length >= 65536) this.fail('SITE module path longer than 64 KiB');
      const bigger = new Uint8Array(text.length * 2);
      bigger.set(text.subarray(0, this.textLength));
      text = this.text = bigger;
    }
    text.set(bytes, this.textLength);
    this.textLength += bytes.length;
  }

  private emitIfWhole(out: RecordColumns): void {
    const kind = this.kind;
    if (kind === KIND.SITE) {
      if ((this.text as Uint8Array).subarray(0, this.textLength).indexOf(0) >= 0) this.emit(out);
      return;
    }
    const need = wordsNeeded(kind, layouts[this.func], this.words, this.count);
    if (typeof need === 'string') this.fail(need);
    if (need >= 0 && this.count >= need) this.emit(out);
  }

  /** A new head arrived (or the frame ended) while a call was open: it is whole now, or it was cut short. */
  private flushOpen(out: RecordColumns): void {
    if (this.kind !== KIND.DTYPE) {
      this.fail(`${kindName(this.kind)} call (seq ${this.seq}) cut short: missing EXT records`);
    }
    this.emit(out);
  }

  private emit(out: RecordColumns): void {
    const bad = checkCall(this.kind, this.flags, this.func, this.words, this.count);
    if (bad !== undefined) this.fail(bad);
    let module: string | undefined;
    if (this.kind === KIND.SITE) {
      const text = (this.text as Uint8Array).subarray(0, this.textLength);
      module = utf8(text.subarray(0, text.indexOf(0)));
    }
    // Words past a call's own length (the zero padding of its last EXT record) are not the call's.
    const need = wordsNeeded(this.kind, layouts[this.func], this.words, this.count);
    const n = this.kind === KIND.SITE ? 2 : typeof need === 'number' && need >= 0 ? need : this.count;
    const row = out.add(
      this.kind,
      this.flags,
      this.func,
      this.rank,
      this.seq,
      this.time,
      this.site,
      this.words,
      0,
      n,
    );
    if (module !== undefined) out.text.set(row, module);
    this.need = 0;
  }

  private fail(reason: string): never {
    this.need = 0;
    throw new DecodeError(this.rank, this.recordIndex, reason);
  }
}

function kindName(kind: number): string {
  for (const [name, id] of Object.entries(KIND)) if (id === kind) return name;
  return `kind ${kind}`;
}
