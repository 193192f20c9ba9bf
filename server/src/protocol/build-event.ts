/**
 * Turns one whole call (its head fields and all its words) into a RankEvent, validating every field.
 * Returns a string (the reason) for a call that breaks the spec; the decoder wraps it in a DecodeError.
 */
import type { ArgValue, EndHow, RankEvent } from '../engine/model/types';
import { basicTypes, checks, KIND, layouts, ops } from './spec';

export interface CallHead {
  kind: number;
  flags: number;
  func: number;
  seq: number;
  time: number;
  site: number;
}

const END_HOW: readonly (EndHow | undefined)[] = [
  undefined,
  'finalized',
  'exit-without-finalize',
  'signal',
  'abort',
];

function isFlag(v: number | undefined): boolean {
  return v === 0 || v === 1;
}

export function buildEvent(
  rank: number,
  h: CallHead,
  w: readonly number[],
  text: Uint8Array | undefined,
): RankEvent | string {
  const { seq, time } = h;
  const layout = layouts[h.func];
  switch (h.kind) {
    case KIND.ENTER: {
      if (layout === undefined) return `function id ${h.func} out of range`;
      const args: Record<string, ArgValue> = {};
      const scalars = layout.scalars;
      for (let i = 0; i < scalars.length; i++) args[scalars[i] as string] = w[i] ?? 0;
      let at = scalars.length;
      for (const name of layout.arrays) {
        const len = w[at] ?? 0;
        args[name] = w.slice(at + 1, at + 1 + len);
        at += 1 + len;
      }
      // flags bit1: the shim saw the call come from a thread other than MPI_Init's (records.json). Two
      // literals, not a spread of an optional part: this runs for every call of every rank.
      if ((h.flags & 2) !== 0)
        return { type: 'enter', rank, seq, time, fn: layout.spec, site: h.site, args, otherThread: true };
      return { type: 'enter', rank, seq, time, fn: layout.spec, site: h.site, args };
    }
    case KIND.EXIT: {
      if (layout === undefined) return `function id ${h.func} out of range`;
      const outputs: Record<string, ArgValue> = {};
      let at = 1;
      for (const name of layout.outHandles) outputs[name] = w[at++] ?? 0;
      if (layout.index !== undefined) outputs[layout.index] = w[at++] ?? 0;
      if (layout.outcount !== undefined) {
        const count = w[at++] ?? 0;
        outputs[layout.outcount] = count;
        if (layout.indices !== undefined) outputs[layout.indices] = w.slice(at, at + Math.max(count, 0));
      }
      // flags bit0: a Test* call that found completion; exposed as the 'flag' output for the engine.
      outputs['flag'] = h.flags & 1;
      return { type: 'exit', rank, seq, time, fn: layout.spec, returnCode: w[0] ?? 0, outputs };
    }
    case KIND.COMPLETE: {
      if (layout === undefined) return `function id ${h.func} out of range`;
      const cancelled = w[5];
      if (!isFlag(cancelled)) return `COMPLETE cancelled flag ${cancelled} is not 0 or 1`;
      const bytes = w[3] ?? 0;
      if (bytes < 0) return `COMPLETE byte count ${bytes} is negative`;
      return {
        type: 'complete',
        rank,
        seq,
        time,
        fn: layout.spec,
        request: w[0] ?? 0,
        source: w[1] ?? 0,
        tag: w[2] ?? 0,
        bytes,
        error: w[4] ?? 0,
        cancelled: cancelled === 1,
      };
    }
    case KIND.COMM: {
      const size = w[1] ?? 0;
      const myRank = w[2] ?? 0;
      if (myRank < 0 || myRank >= size) return `COMM: my rank ${myRank} not in 0..${size - 1}`;
      const inter = w[5] === 1;
      const members = w.slice(7, 7 + size);
      const remoteMembers = inter ? w.slice(7 + size, 7 + size + (w[6] ?? 0)) : [];
      for (const m of members) if (m < 0 || !Number.isInteger(m)) return `COMM: member world rank ${m}`;
      for (const m of remoteMembers) if (m < 0 || !Number.isInteger(m)) return `COMM: remote world rank ${m}`;
      return {
        type: 'comm',
        rank,
        seq,
        time,
        comm: w[0] ?? 0,
        size,
        myRank,
        parent: w[3] ?? 0,
        creatorSeq: w[4] ?? 0,
        isInter: inter,
        members,
        remoteMembers,
      };
    }
    case KIND.DTYPE: {
      if (w.length < 7) return `DTYPE has ${w.length} words, needs at least 7`;
      const size = w[1] ?? 0;
      if (size < 0) return `DTYPE size ${size} is negative`;
      if (!isFlag(w[6])) return `DTYPE committed flag ${w[6]} is not 0 or 1`;
      // flags bit2: a layout follows the signature, whose length in words then comes first (records.json).
      const withLayout = (h.flags & 4) !== 0;
      const sigEnd = withLayout ? 8 + (w[7] ?? 0) : w.length;
      if (withLayout && (sigEnd > w.length || sigEnd < 8 || sigEnd % 2 !== 0))
        return `DTYPE signature length ${w[7]} does not fit its ${w.length} words`;
      const signature: [number, number][] = [];
      for (let i = withLayout ? 8 : 7; i + 1 < sigEnd; i += 2) {
        const id = w[i] ?? 0;
        const repeat = w[i + 1] ?? 0;
        if (repeat === 0 && id === 0) continue; // zero padding at the end of the last EXT record
        if (id < 0 || id >= basicTypes.length) return `DTYPE basic type id ${id} out of range`;
        if (repeat < 0) return `DTYPE repeat ${repeat} is negative`;
        signature.push([id, repeat]);
      }
      const blocks: [number, number][] = [];
      for (let i = sigEnd; withLayout && i + 1 < w.length; i += 2) {
        const offset = w[i] ?? 0;
        const length = w[i + 1] ?? 0;
        if (length === 0 && offset === 0) continue; // padding, as above
        const last = blocks[blocks.length - 1];
        if (
          offset < 0 ||
          length <= 0 ||
          offset + length > (w[5] ?? 0) ||
          (last && offset <= last[0] + last[1])
        )
          return `DTYPE layout block (${offset}, ${length}) is out of order or outside the true extent`;
        blocks.push([offset, length]);
      }
      return {
        type: 'datatype',
        rank,
        seq,
        time,
        datatype: w[0] ?? 0,
        size,
        lb: w[2] ?? 0,
        extent: w[3] ?? 0,
        trueLb: w[4] ?? 0,
        trueExtent: w[5] ?? 0,
        committed: w[6] === 1,
        signature,
        ...(blocks.length > 0 ? { layout: blocks } : {}),
      };
    }
    case KIND.SITE: {
      if (text === undefined) return 'SITE without text';
      const nul = text.indexOf(0);
      if (nul < 0) return 'SITE module path is not NUL-terminated';
      const module = new TextDecoder('utf-8', { fatal: false }).decode(text.subarray(0, nul));
      return { type: 'site', rank, seq, time, address: w[0] ?? 0, offset: w[1] ?? 0, module };
    }
    case KIND.END: {
      const how = END_HOW[w[0] ?? 0];
      if (how === undefined) return `END how ${w[0]} is not 1..4`;
      return { type: 'end', rank, seq, time, how, code: w[1] ?? 0, dropped: w[2] ?? 0 };
    }
    case KIND.FINDING: {
      if (layout === undefined) return `function id ${h.func} out of range`;
      const check = checks[w[0] ?? -1];
      if (check === undefined) return `FINDING check id ${w[0]} out of range`;
      return {
        type: 'shim-finding',
        rank,
        seq,
        time,
        fn: layout.spec,
        site: h.site,
        check: check.id,
        message: check.message,
        param: w[1] ?? -1,
        values: [w[2] ?? 0, w[3] ?? 0, w[4] ?? 0],
      };
    }
    case KIND.LOST: {
      const count = w[0] ?? 0;
      if (count < 0) return `LOST count ${count} is negative`;
      return { type: 'lost', rank, seq, time, count };
    }
    case KIND.OP: {
      const predefined = w[1] ?? -1;
      if (predefined < -1 || predefined >= ops.length) return `OP predefined id ${predefined} out of range`;
      if (!isFlag(w[2])) return `OP commute flag ${w[2]} is not 0 or 1`;
      return { type: 'op', rank, seq, time, op: w[0] ?? 0, predefined, commute: w[2] === 1 };
    }
    case KIND.CLOCK:
      return { type: 'clock', rank, seq, time, realtime: w[0] ?? 0 };
    case KIND.BSEND: {
      if (layout === undefined) return `function id ${h.func} out of range`;
      const bytes = w[0] ?? 0;
      const packed = w[1] ?? 0;
      if (packed < 0 || bytes < packed) return `BSEND sizes ${bytes}, ${packed} are not bytes >= packed >= 0`;
      return { type: 'bsend', rank, seq, time, fn: layout.spec, bytes, packed };
    }
    default:
      return `unknown record kind ${h.kind}`;
  }
}
