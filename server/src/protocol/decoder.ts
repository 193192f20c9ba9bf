/**
 * Decodes one rank's binary frames into RankEvents. Stateful per connection: a call (head + EXT records)
 * may straddle two frames, so the decoder keeps the unfinished call until its last word arrives.
 * DataView reads only, no per-record allocation beyond the event itself.
 */
import type { RankEvent } from '../engine/model/types';
import { buildEvent, type CallHead } from './build-event';
import { MAX_ARRAY, wordsNeeded } from './call-words';
import { DecodeError } from './decode-error';
import { EXT_WORD_OFFSET, EXT_WORDS, HEAD_WORD_OFFSET, HEAD_WORDS, KIND, layouts, RECORD_SIZE } from './spec';

const TWO_32 = 4294967296;

export class RankDecoder {
  private head: CallHead = { kind: 0, flags: 0, func: 0, seq: 0, time: 0, site: 0 };
  private words: number[] = [];
  /** Words the pending call needs, -1 when open-ended (DTYPE, SITE), 0 when there is no pending call. */
  private need = 0;
  /** Raw word bytes of a pending SITE call (its module path). */
  private text: Uint8Array | undefined;
  private textLength = 0;
  private recordIndex = 0;

  constructor(readonly rank: number) {}

  /** Decodes a frame; throws DecodeError (and stays unusable) when the frame breaks the format. */
  decode(frame: Uint8Array): RankEvent[] {
    if (frame.byteLength % RECORD_SIZE !== 0) {
      throw new DecodeError(this.rank, -1, `length ${frame.byteLength} is not a multiple of ${RECORD_SIZE}`);
    }
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const out: RankEvent[] = [];
    const n = frame.byteLength / RECORD_SIZE;
    for (let r = 0; r < n; r++) {
      this.recordIndex = r;
      const at = r * RECORD_SIZE;
      const kind = view.getUint8(at);
      if (kind === KIND.EXT) {
        if (this.need === 0) this.fail('EXT record without a head record before it');
        if (view.getUint32(at + 4, true) !== this.head.seq) {
          this.fail(`EXT seq ${view.getUint32(at + 4, true)} differs from its head's ${this.head.seq}`);
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
    if (this.need === -1 && this.head.kind === KIND.DTYPE) this.flushOpen(out);
    return out;
  }

  /** True when a call is still waiting for EXT records (the connection ended mid-call if it closes now). */
  get pending(): boolean {
    return this.need !== 0;
  }

  private startCall(view: DataView, at: number, kind: number): void {
    const h = this.head;
    h.kind = kind;
    h.flags = view.getUint8(at + 1);
    h.func = view.getUint16(at + 2, true);
    h.seq = view.getUint32(at + 4, true);
    h.time = view.getUint32(at + 12, true) * TWO_32 + view.getUint32(at + 8, true);
    h.site = view.getUint32(at + 20, true) * TWO_32 + view.getUint32(at + 16, true);
    if (
      (kind === KIND.ENTER ||
        kind === KIND.EXIT ||
        kind === KIND.COMPLETE ||
        kind === KIND.FINDING ||
        kind === KIND.BSEND) &&
      h.func >= layouts.length
    ) {
      this.fail(`function id ${h.func} out of range (spec has ${layouts.length})`);
    }
    this.words.length = 0;
    this.need = -1;
    if (kind === KIND.SITE) {
      this.text ??= new Uint8Array(256);
      this.textLength = 0;
    }
  }

  private readWords(view: DataView, at: number, count: number): void {
    const w = this.words;
    for (let i = 0; i < count; i++) {
      const o = at + i * 8;
      w.push(view.getInt32(o + 4, true) * TWO_32 + view.getUint32(o, true));
    }
    if (w.length > MAX_ARRAY + 16) this.fail('call longer than any MPI call can be');
    if (this.head.kind === KIND.SITE) this.appendText(view, at, count);
  }

  /** SITE words after the first two are the module path's bytes, copied raw. */
  private appendText(view: DataView, at: number, count: number): void {
    const skip = this.textLength === 0 && this.words.length === count ? 2 : 0;
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

  private emitIfWhole(out: RankEvent[]): void {
    const kind = this.head.kind;
    if (kind === KIND.SITE) {
      if ((this.text as Uint8Array).subarray(0, this.textLength).indexOf(0) >= 0) this.emit(out);
      return;
    }
    const need = wordsNeeded(kind, layouts[this.head.func], this.words);
    if (typeof need === 'string') this.fail(need);
    if (need >= 0 && this.words.length >= need) this.emit(out);
  }

  /** A new head arrived (or the frame ended) while a call was open: it is whole now, or it was cut short. */
  private flushOpen(out: RankEvent[]): void {
    if (this.head.kind !== KIND.DTYPE) {
      this.fail(`${kindName(this.head.kind)} call (seq ${this.head.seq}) cut short: missing EXT records`);
    }
    this.emit(out);
  }

  private emit(out: RankEvent[]): void {
    const text = this.head.kind === KIND.SITE ? this.text?.subarray(0, this.textLength) : undefined;
    const event = buildEvent(this.rank, this.head, this.words, text);
    if (typeof event === 'string') this.fail(event);
    out.push(event);
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
