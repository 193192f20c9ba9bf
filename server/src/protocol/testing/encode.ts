/**
 * Test-only encoder: the inverse of RankDecoder, so tests and benchmarks can write frames the way the
 * shim does (head record, then EXT records, zero padding) from ordinary RankEvents. It writes the current
 * format (records.json version 2: packed ENTERs and COMPLETEs, a blocking call's COMPLETE and EXIT as one
 * COMPLETE_EXIT with `encodeEvents`), or with `format` 1 what a shim before the packed forms wrote.
 */
import type { RankEvent } from '../../engine/model/types';
import { pushAll } from '../append-event';
import {
  EXT_WORD_OFFSET,
  EXT_WORDS,
  HEAD_WORD_OFFSET,
  COMPLETE_EXIT_CANCELLED,
  COMPLETE_PACKED,
  ENTER_PACKED,
  FORMAT_VERSION,
  HEAD_WORDS,
  KIND,
  layouts,
  PACK_NARROW,
  PACK_WIDE,
  RECORD_SIZE,
} from '../spec';

const TWO_32 = 4294967296;

function setWord(view: DataView, at: number, value: number | bigint): void {
  if (typeof value === 'bigint') {
    view.setBigInt64(at, value, true);
    return;
  }
  const hi = Math.floor(value / TWO_32);
  view.setUint32(at, value - hi * TWO_32, true);
  view.setInt32(at + 4, hi, true);
}

/** The records of one call: a head with the first 5 words, EXT records with 7 words each. */
export function encodeCall(
  head: { kind: number; func?: number; seq: number; time?: number; site?: number; flags?: number },
  words: readonly (number | bigint)[],
  text?: Uint8Array,
): Uint8Array {
  // The word stream as bytes: the words, then (SITE) the raw text and its NUL. Raw bytes cannot go through
  // numbers: a word of eight text bytes exceeds 2^53.
  const textWords = text === undefined ? 0 : Math.ceil((text.length + 1) / 8);
  const stream = new Uint8Array((words.length + textWords) * 8);
  const sv = new DataView(stream.buffer);
  words.forEach((w, i) => setWord(sv, i * 8, w));
  if (text !== undefined) stream.set(text, words.length * 8);
  const total = words.length + textWords;
  const records = 1 + Math.ceil(Math.max(0, total - HEAD_WORDS) / EXT_WORDS);
  const out = new Uint8Array(records * RECORD_SIZE);
  const view = new DataView(out.buffer);
  view.setUint8(0, head.kind);
  view.setUint8(1, head.flags ?? 0);
  view.setUint16(2, head.func ?? 0, true);
  view.setUint32(4, head.seq, true);
  setWord(view, 8, head.time ?? 0);
  setWord(view, 16, head.site ?? 0);
  out.set(stream.subarray(0, HEAD_WORDS * 8), HEAD_WORD_OFFSET);
  for (let r = 1; r < records; r++) {
    const at = r * RECORD_SIZE;
    view.setUint8(at, KIND.EXT);
    view.setUint16(at + 2, head.func ?? 0, true);
    view.setUint32(at + 4, head.seq, true);
    const from = (HEAD_WORDS + (r - 1) * EXT_WORDS) * 8;
    out.set(stream.subarray(from, from + EXT_WORDS * 8), at + EXT_WORD_OFFSET);
  }
  return out;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Two signed 32-bit values as one word (low half first), the way the shim packs them: a bigint, since the
 * word can exceed 2^53. */
function pack2(lo: number, hi: number): bigint {
  return (BigInt(hi | 0) << 32n) | BigInt(lo >>> 0);
}

/** A function's ENTER words (prototype order) in its packed form (records.json packedEnter). */
function packEnter(packed: Uint8Array, words: readonly number[]): (number | bigint)[] {
  const out: (number | bigint)[] = words.filter((_, i) => packed[i] === PACK_WIDE);
  const narrow = words.filter((_, i) => packed[i] === PACK_NARROW);
  for (let i = 0; i < narrow.length; i += 2) out.push(pack2(narrow[i] as number, narrow[i + 1] ?? 0));
  return out;
}

const completeWords = (e: Extract<RankEvent, { type: 'complete' }>): number[] => [
  e.request,
  e.source,
  e.tag,
  e.bytes,
  e.error,
  e.cancelled ? 1 : 0,
];

function exitWordsOf(e: Extract<RankEvent, { type: 'exit' }>): number[] {
  const layout = layouts[e.fn.id];
  if (layout === undefined) throw new Error(`no function ${e.fn.id}`);
  const words = [e.returnCode, ...layout.outHandles.map((name) => num(e.outputs[name]))];
  if (layout.index !== undefined) words.push(num(e.outputs[layout.index]));
  if (layout.outcount !== undefined) {
    words.push(num(e.outputs[layout.outcount]));
    const idx = layout.indices !== undefined ? e.outputs[layout.indices] : undefined;
    if (Array.isArray(idx)) pushAll(words, idx as readonly number[]);
  }
  return words;
}

/**
 * A blocking call's COMPLETE and its EXIT as the one COMPLETE_EXIT record the shim writes (records.json), or
 * undefined when they do not make one (another call's, or an EXIT of more than two words).
 */
export function encodeCompleteExit(c: RankEvent, x: RankEvent): Uint8Array | undefined {
  if (
    c.type !== 'complete' ||
    x.type !== 'exit' ||
    c.seq !== x.seq ||
    c.fn.id !== x.fn.id ||
    c.time !== x.time
  )
    return undefined;
  const xw = exitWordsOf(x);
  if (xw.length > 2) return undefined;
  const flags = (num(x.outputs['flag']) & 1) | (c.cancelled ? COMPLETE_EXIT_CANCELLED : 0);
  return encodeCall({ kind: KIND.COMPLETE_EXIT, func: c.fn.id, seq: c.seq, time: c.time, flags }, [
    c.request,
    pack2(c.source, c.tag),
    c.bytes,
    pack2(c.error, xw[0] as number),
    xw[1] ?? 0,
  ]);
}

/** A rank's events as the shim writes them: encodeEvent each, a COMPLETE and the EXIT after it merged. */
export function encodeEvents(events: readonly RankEvent[], format = FORMAT_VERSION): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as RankEvent;
    const next = events[i + 1];
    const merged = format >= 2 && next !== undefined ? encodeCompleteExit(e, next) : undefined;
    if (merged !== undefined) {
      out.push(merged);
      i++;
    } else out.push(encodeEvent(e, format));
  }
  return out;
}

/** Encodes one event exactly as the shim would; decode(encodeEvent(e)) deep-equals e. */
export function encodeEvent(e: RankEvent, format = FORMAT_VERSION): Uint8Array {
  const base = { seq: e.seq, time: e.time };
  switch (e.type) {
    case 'enter': {
      const layout = layouts[e.fn.id];
      if (layout === undefined) throw new Error(`no function ${e.fn.id}`);
      const words = layout.scalars.map((name) => num(e.args[name]));
      for (const name of layout.arrays) {
        const arr = e.args[name];
        const list = Array.isArray(arr) ? (arr as readonly number[]) : [];
        words.push(list.length);
        pushAll(words, list);
      }
      const flags = (e.otherThread === true ? 2 : 0) | (e.nested === true ? 8 : 0);
      if (format >= 2 && layout.packed !== undefined)
        return encodeCall(
          { ...base, kind: KIND.ENTER, func: e.fn.id, site: e.site, flags: flags | ENTER_PACKED },
          packEnter(layout.packed, words),
        );
      return encodeCall({ ...base, kind: KIND.ENTER, func: e.fn.id, site: e.site, flags }, words);
    }
    case 'exit':
      return encodeCall(
        { ...base, kind: KIND.EXIT, func: e.fn.id, flags: num(e.outputs['flag']) },
        exitWordsOf(e),
      );
    case 'complete': {
      const w = completeWords(e);
      if (format < 2) return encodeCall({ ...base, kind: KIND.COMPLETE, func: e.fn.id }, w);
      return encodeCall({ ...base, kind: KIND.COMPLETE, func: e.fn.id, flags: COMPLETE_PACKED }, [
        w[0] as number,
        pack2(w[1] as number, w[2] as number),
        w[3] as number,
        pack2(w[4] as number, w[5] as number),
      ]);
    }
    case 'comm':
      return encodeCall({ ...base, kind: KIND.COMM }, [
        e.comm,
        e.size,
        e.myRank,
        e.parent,
        e.creatorSeq,
        (e.isInter ? 1 : 0) | (e.sources !== undefined && e.dests !== undefined ? 2 : 0),
        e.remoteMembers.length,
        ...e.members,
        ...e.remoteMembers,
        ...(e.sources !== undefined && e.dests !== undefined
          ? [e.sources.length, e.dests.length, ...e.sources, ...e.dests]
          : []),
      ]);
    case 'datatype': {
      const fixed = [e.datatype, e.size, e.lb, e.extent, e.trueLb, e.trueExtent, e.committed ? 1 : 0];
      const sig = e.signature.flat();
      // With a layout (flags bit2): the signature's length in words, the signature, then the blocks.
      if (e.layout !== undefined)
        return encodeCall({ ...base, kind: KIND.DTYPE, flags: 4 }, [
          ...fixed,
          sig.length,
          ...sig,
          ...e.layout.flat(),
        ]);
      return encodeCall({ ...base, kind: KIND.DTYPE }, [...fixed, ...sig]);
    }
    case 'site':
      return encodeCall(
        { ...base, kind: KIND.SITE },
        [e.address, e.offset],
        new TextEncoder().encode(e.module),
      );
    case 'end': {
      const how = ['', 'finalized', 'exit-without-finalize', 'signal', 'abort'].indexOf(e.how);
      return encodeCall({ ...base, kind: KIND.END }, [how, e.code, e.dropped, e.seq]);
    }
    case 'shim-finding':
      throw new Error('encodeEvent: encode shim findings with encodeCall (the check id is not in the event)');
    case 'lost':
      return encodeCall({ ...base, kind: KIND.LOST }, [e.count]);
    case 'op':
      return encodeCall({ ...base, kind: KIND.OP }, [e.op, e.predefined, e.commute ? 1 : 0]);
    case 'clock':
      return encodeCall({ ...base, kind: KIND.CLOCK }, [e.realtime]);
    case 'bsend':
      return encodeCall({ ...base, kind: KIND.BSEND, func: e.fn.id }, [e.bytes, e.packed]);
  }
}

/** Concatenates calls into one frame. */
export function frameOf(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
