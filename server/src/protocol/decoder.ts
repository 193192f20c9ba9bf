/**
 * Decodes one rank's binary frames into rows of `RecordColumns` (one row per whole call). Stateful per
 * connection: a call (head + EXT records) may straddle two frames, so the decoder keeps the unfinished call's
 * words until its last word arrives. DataView reads write each word where its row will read it, in the columns'
 * word column past the rows already there (`RecordColumns.reserve`, `addWritten`): no copy and nothing allocated
 * per record. Only a call cut by a frame's end is copied, into the decoder's own buffer, and back into the
 * columns of the next frame. `decode()` builds `RankEvent` objects from those rows, for the timeline and
 * tests; the engine reads the rows themselves.
 *
 * Format 2's one-record forms (records.json: a packed ENTER, a packed COMPLETE, a COMPLETE_EXIT) become the very
 * rows their format-1 records gave — the ENTER's words in prototype order, a COMPLETE's six words, a COMPLETE
 * row then an EXIT row — with the packing flag bits cleared, so nothing after the decoder sees the format.
 */
import type { RankEvent } from '../engine/model/types';
import { eventAt } from './build-event';
import { checkCall } from './check-call';
import { MAX_ARRAY, wordsNeeded } from './call-words';
import { RecordColumns } from './columns';
import { DecodeError } from './decode-error';
import {
  COMPLETE_EXIT_CANCELLED,
  COMPLETE_PACKED,
  ENTER_PACKED,
  EXT_WORD_OFFSET,
  EXT_WORDS,
  HEAD_WORD_OFFSET,
  HEAD_WORDS,
  KIND,
  layouts,
  type FunctionLayout,
  PACK_NARROW,
  PACK_WIDE,
  RECORD_SIZE,
} from './spec';
import { utf8 } from './utf8';

const TWO_32 = 4294967296;

export class RankDecoder {
  private kind = 0;
  private flags = 0;
  private func = 0;
  private seq = 0;
  private time = 0;
  private site = 0;
  /**
   * The pending call's words so far: `w[base…base+count)`, where `w` is the word column of the columns being
   * decoded into (its row will start at `base`), and between two frames the decoder's own `saved`.
   */
  private w: Float64Array = new Float64Array(0);
  private base = 0;
  private count = 0;
  private saved = new Float64Array(64);
  private out: RecordColumns | undefined;
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
      this.resume(out);
      this.decodeFrame(frame, out);
      this.suspend();
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

  /** Decoding into `out` starts: a call cut by the last frame's end gets its words back, where its row will be. */
  private resume(out: RecordColumns): void {
    this.out = out;
    this.base = out.wordsUsed;
    this.w = out.words;
    if (this.need === 0 || this.count === 0) return;
    this.room(0);
    const w = this.w;
    const saved = this.saved;
    const base = this.base;
    for (let i = 0; i < this.count; i++) w[base + i] = saved[i] as number;
  }

  /** The frame ended inside a call: its words so far wait in `saved` for the next frame, into any columns. */
  private suspend(): void {
    if (this.need === 0 || this.count === 0) return;
    if (this.count > this.saved.length) {
      let n = this.saved.length * 2;
      while (n < this.count) n *= 2;
      this.saved = new Float64Array(n);
    }
    const w = this.w;
    const saved = this.saved;
    const base = this.base;
    for (let i = 0; i < this.count; i++) saved[i] = w[base + i] as number;
  }

  /** Room in the word column for `more` words past the pending call's `count`. */
  private room(more: number): void {
    const need = this.base + this.count + more;
    if (need > this.w.length) this.w = (this.out as RecordColumns).reserve(need);
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
        if (
          kind === KIND.COMPLETE_EXIT ||
          (kind === KIND.ENTER && (this.flags & ENTER_PACKED) !== 0) ||
          (kind === KIND.COMPLETE && (this.flags & COMPLETE_PACKED) !== 0)
        ) {
          this.unpack(view, at + HEAD_WORD_OFFSET, out);
          continue;
        }
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
        kind === KIND.BSEND ||
        kind === KIND.COMPLETE_EXIT) &&
      this.func >= layouts.length
    ) {
      this.fail(`function id ${this.func} out of range (spec has ${layouts.length})`);
    }
    this.count = 0;
    this.need = -1;
    // The call's row will start past the rows already decoded (emit appends it there).
    this.base = (this.out as RecordColumns).wordsUsed;
    if (kind === KIND.SITE) {
      this.text ??= new Uint8Array(256);
      this.textLength = 0;
    }
  }

  private readWords(view: DataView, at: number, count: number): void {
    this.room(count);
    const w = this.w;
    let k = this.base + this.count;
    for (let i = 0; i < count; i++) {
      const o = at + i * 8;
      w[k++] = view.getInt32(o + 4, true) * TWO_32 + view.getUint32(o, true);
    }
    this.count = k - this.base;
    if (this.count > MAX_ARRAY + 16) this.fail('call longer than any MPI call can be');
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

  /**
   * A one-record form of format 2 at `at` (the head's words): its rows, as the format-1 records of the same call
   * gave them. Halves are read as the signed 32-bit values they are; a whole word as readWords reads it.
   */
  private unpack(view: DataView, at: number, out: RecordColumns): void {
    // A packed ENTER holds at most two values per head word; a COMPLETE_EXIT writes eight words.
    this.room(2 * HEAD_WORDS + 8);
    const w = this.w;
    const b = this.base;
    const kind = this.kind;
    let flags = this.flags;
    if (kind === KIND.ENTER) {
      const packed = layouts[this.func]?.packed;
      if (packed === undefined) this.fail(`packed ENTER of a function without a packed form`);
      // The wide words first, in prototype order; then the narrow values, two to a word, low half first.
      const wide = wideWords(this.func, packed);
      let nextWide = 0;
      let half = wide * 2;
      for (let i = 0; i < packed.length; i++) {
        const how = packed[i];
        if (how === PACK_WIDE) w[b + i] = whole(view, at, nextWide++);
        else if (how === PACK_NARROW) {
          w[b + i] = (half & 1) === 0 ? lo(view, at, half >> 1) : hi(view, at, half >> 1);
          half++;
        } else w[b + i] = 0;
      }
      if ((half & 1) !== 0 && hi(view, at, half >> 1) !== 0)
        this.fail('packed ENTER with a value above its last one');
      for (let k = (half + 1) >> 1; k < HEAD_WORDS; k++)
        if (whole(view, at, k) !== 0) this.fail('packed ENTER with a word past its last one');
      this.count = packed.length;
      flags &= ~ENTER_PACKED;
    } else {
      w[b] = whole(view, at, 0);
      w[b + 1] = lo(view, at, 1);
      w[b + 2] = hi(view, at, 1);
      w[b + 3] = whole(view, at, 2);
      w[b + 4] = lo(view, at, 3);
      if (kind === KIND.COMPLETE) {
        w[b + 5] = hi(view, at, 3);
        if (whole(view, at, 4) !== 0) this.fail('packed COMPLETE with a fifth word');
        flags &= ~COMPLETE_PACKED;
      } else {
        if ((flags & ~15) !== 0) this.fail(`COMPLETE_EXIT flags ${flags} has unknown bits`);
        w[b + 5] = (flags & COMPLETE_EXIT_CANCELLED) !== 0 ? 1 : 0;
        // The EXIT's words after the COMPLETE's six: the return code and the second word, already where the EXIT
        // row that follows the COMPLETE row will read them.
        w[b + 6] = hi(view, at, 3);
        w[b + 7] = whole(view, at, 4);
        const need = this.mergedExitWords(w[b + 7] as number);
        this.kind = KIND.COMPLETE;
        this.flags = flags & 6;
        this.count = 6;
        this.emit(out);
        this.startExit(need, flags & 1);
        this.emit(out);
        return;
      }
      this.count = 6;
    }
    this.flags = flags;
    this.emit(out);
  }

  /** The words of the EXIT inside a COMPLETE_EXIT (1 or 2), whose second word is `second`. */
  private mergedExitWords(second: number): number {
    const layout = layouts[this.func] as FunctionLayout;
    let need = 1 + layout.outHandles.length + (layout.index !== undefined ? 1 : 0);
    if (layout.outcount !== undefined) {
      // An outcount with indices after it (or past them) does not fit: the shim writes those apart.
      if (need > 1 || second > 0) this.fail(`COMPLETE_EXIT of ${layout.spec.name}: its EXIT needs indices`);
      if (second < -1) this.fail(`outcount ${second} of ${layout.spec.name} out of range`);
      need++;
    }
    if (need > 2) this.fail(`COMPLETE_EXIT of ${layout.spec.name} whose EXIT needs ${need} words`);
    if (need === 1 && second !== 0) this.fail('COMPLETE_EXIT with a second EXIT word its function has not');
    return need;
  }

  /** The EXIT of a COMPLETE_EXIT, whose words follow the COMPLETE row's six (unpack wrote them there). */
  private startExit(n: number, flags: number): void {
    this.base = (this.out as RecordColumns).wordsUsed;
    this.kind = KIND.EXIT;
    this.flags = flags;
    this.count = n;
    this.need = -1;
  }

  private emitIfWhole(out: RecordColumns): void {
    const kind = this.kind;
    if (kind === KIND.SITE) {
      if ((this.text as Uint8Array).subarray(0, this.textLength).indexOf(0) >= 0) this.emit(out);
      return;
    }
    const need = wordsNeeded(kind, layouts[this.func], this.w, this.base, this.count);
    if (typeof need === 'string') this.fail(need);
    if (need >= 0 && this.count >= need) this.emit(out, need);
  }

  /** A new head arrived (or the frame ended) while a call was open: it is whole now, or it was cut short. */
  private flushOpen(out: RecordColumns): void {
    if (this.kind !== KIND.DTYPE) {
      this.fail(`${kindName(this.kind)} call (seq ${this.seq}) cut short: missing EXT records`);
    }
    this.emit(out);
  }

  /** `known`: wordsNeeded's answer for the call as it is, when the caller has it (emitIfWhole). */
  private emit(out: RecordColumns, known?: number): void {
    const bad = checkCall(this.kind, this.flags, this.func, this.w, this.base, this.count);
    if (bad !== undefined) this.fail(bad);
    let module: string | undefined;
    if (this.kind === KIND.SITE) {
      const text = (this.text as Uint8Array).subarray(0, this.textLength);
      module = utf8(text.subarray(0, text.indexOf(0)));
    }
    // Words past a call's own length (the zero padding of its last EXT record) are not the call's.
    const need = known ?? wordsNeeded(this.kind, layouts[this.func], this.w, this.base, this.count);
    const n = this.kind === KIND.SITE ? 2 : typeof need === 'number' && need >= 0 ? need : this.count;
    // The words are in place: the row starts where the call's first word was written (startCall).
    const row = out.addWritten(
      this.kind,
      this.flags,
      this.func,
      this.rank,
      this.seq,
      this.time,
      this.site,
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

/** Each packed function's count of PACK_WIDE words, by function id (-1: not counted yet): counted once. */
const wideCounts = new Int8Array(layouts.length).fill(-1);

function wideWords(func: number, packed: Uint8Array): number {
  let wide = wideCounts[func] as number;
  if (wide < 0) {
    wide = 0;
    for (let i = 0; i < packed.length; i++) if (packed[i] === PACK_WIDE) wide++;
    wideCounts[func] = wide;
  }
  return wide;
}

/** Word i of the record's words at `at`, as readWords reads a word. */
function whole(view: DataView, at: number, i: number): number {
  return view.getInt32(at + i * 8 + 4, true) * TWO_32 + view.getUint32(at + i * 8, true);
}

/** The low and the high half of word i: signed 32-bit values (format 2's packed forms). */
function lo(view: DataView, at: number, i: number): number {
  return view.getInt32(at + i * 8, true);
}

function hi(view: DataView, at: number, i: number): number {
  return view.getInt32(at + i * 8 + 4, true);
}

function kindName(kind: number): string {
  for (const [name, id] of Object.entries(KIND)) if (id === kind) return name;
  return `kind ${kind}`;
}
