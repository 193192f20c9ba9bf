/**
 * A RankEvent object as a row of the columns: the inverse of eventAt(). The engine reads rows only; this lets
 * what still speaks events (the tests' synthetic streams, the session's END for a closed connection) feed it
 * through the same rows as the decoder's, so both take one path. Not for the hot path.
 */
import type { RankEvent } from '../engine/model/types';
import { END_HOWS, type RecordColumns } from './columns';
import { checks, KIND, layouts } from './spec';

function num(v: unknown, missing: number): number {
  return typeof v === 'number' ? v : missing;
}

/** Appends every value of each list; `push(...list)` passes them as arguments, which overflows the stack at ~10^5. */
export function pushAll(words: number[], ...lists: readonly (readonly number[])[]): void {
  for (const list of lists) for (let i = 0; i < list.length; i++) words.push(list[i]!);
}

export function appendEvent(cols: RecordColumns, e: RankEvent): number {
  const words: number[] = [];
  let kind: number;
  let flags = 0;
  let func = 0;
  let site = 0;
  let module: string | undefined;
  switch (e.type) {
    case 'enter': {
      const layout = layouts[e.fn.id];
      if (layout === undefined) throw new Error(`no function ${e.fn.id}`);
      kind = KIND.ENTER;
      func = e.fn.id;
      site = e.site;
      flags = (e.otherThread === true ? 2 : 0) | (e.nested === true ? 8 : 0);
      // A parameter the event leaves out is NaN: readers then take their fallback, as for a missing key.
      for (const name of layout.scalars) words.push(num(e.args[name], NaN));
      for (const name of layout.arrays) {
        const arr = e.args[name];
        const list = Array.isArray(arr) ? (arr as readonly number[]) : [];
        words.push(list.length);
        pushAll(words, list);
      }
      break;
    }
    case 'exit': {
      const layout = layouts[e.fn.id];
      if (layout === undefined) throw new Error(`no function ${e.fn.id}`);
      kind = KIND.EXIT;
      func = e.fn.id;
      flags = num(e.outputs['flag'], 0) & 1;
      words.push(e.returnCode);
      for (const [name] of layout.outWord) words.push(num(e.outputs[name], 0));
      if (layout.outcount !== undefined && layout.indices !== undefined) {
        const idx = e.outputs[layout.indices];
        if (Array.isArray(idx)) pushAll(words, idx as readonly number[]);
      }
      break;
    }
    case 'complete':
      kind = KIND.COMPLETE;
      func = e.fn.id;
      words.push(e.request, e.source, e.tag, e.bytes, e.error, e.cancelled ? 1 : 0);
      break;
    case 'comm':
      kind = KIND.COMM;
      {
        const topo = e.sources !== undefined && e.dests !== undefined;
        const bits = (e.isInter ? 1 : 0) | (topo ? 2 : 0);
        words.push(e.comm, e.size, e.myRank, e.parent, e.creatorSeq, bits, e.remoteMembers.length);
        pushAll(words, e.members, e.remoteMembers);
        if (topo) {
          words.push(e.sources.length, e.dests.length);
          pushAll(words, e.sources, e.dests);
        }
      }
      break;
    case 'datatype': {
      kind = KIND.DTYPE;
      words.push(e.datatype, e.size, e.lb, e.extent, e.trueLb, e.trueExtent, e.committed ? 1 : 0);
      const sig = e.signature.flat();
      if (e.layout !== undefined) {
        flags = 4;
        words.push(sig.length);
        pushAll(words, sig, e.layout.flat());
      } else {
        pushAll(words, sig);
      }
      break;
    }
    case 'site':
      kind = KIND.SITE;
      words.push(e.address, e.offset);
      module = e.module;
      break;
    case 'end':
      kind = KIND.END;
      words.push(END_HOWS.indexOf(e.how), e.code, e.dropped, e.seq);
      break;
    case 'shim-finding':
      kind = KIND.FINDING;
      func = e.fn.id;
      site = e.site;
      words.push(
        checks.findIndex((c) => c.id === e.check),
        e.param,
        e.values[0] ?? 0,
        e.values[1] ?? 0,
        e.values[2] ?? 0,
      );
      break;
    case 'lost':
      kind = KIND.LOST;
      words.push(e.count);
      break;
    case 'op':
      kind = KIND.OP;
      words.push(e.op, e.predefined, e.commute ? 1 : 0);
      break;
    case 'clock':
      kind = KIND.CLOCK;
      words.push(e.realtime, e.bounds?.lo ?? 0, e.bounds?.hi ?? 0, e.bounds?.phase ?? 0);
      break;
    case 'bsend':
      kind = KIND.BSEND;
      func = e.fn.id;
      words.push(e.bytes, e.packed);
      break;
  }
  const row = cols.add(kind, flags, func, e.rank, e.seq, e.time, site, words, 0, words.length);
  if (module !== undefined) cols.text.set(row, module);
  return row;
}
