/**
 * A row of the columns as a RankEvent object: the form the timeline, the trace tools and the tests read.
 * The engine never builds these; it reads the rows. Rows are validated when decoded (check-call.ts).
 */
import type { ArgValue, DatatypeEvent, RankEvent } from '../engine/model/types';
import { END_HOWS, type RecordColumns } from './columns';
import { checks, KIND, layouts } from './spec';

export function eventAt(cols: RecordColumns, row: number): RankEvent {
  const rank = cols.rank[row] as number;
  const seq = cols.seq[row] as number;
  const time = cols.time[row] as number;
  const site = cols.site[row] as number;
  const flags = cols.flags[row] as number;
  const func = cols.func[row] as number;
  const n = cols.wordCount[row] as number;
  const w = (i: number): number => (i < n ? cols.word(row, i) : 0);
  const layout = layouts[func];
  const kind = cols.kind[row] as number;
  switch (kind) {
    case KIND.ENTER: {
      if (layout === undefined) throw new Error(`function id ${func} out of range`);
      const args: Record<string, ArgValue> = {};
      const scalars = layout.scalars;
      for (let i = 0; i < scalars.length; i++) {
        const v = cols.word(row, i);
        // NaN: a parameter a synthetic event left out (columns.ts); it stays out.
        if (v === v) args[scalars[i] as string] = v;
      }
      let at = scalars.length;
      for (const name of layout.arrays) {
        const len = w(at);
        args[name] = cols.slice(row, at + 1, len);
        at += 1 + len;
      }
      // flags bit1: the shim saw the call come from a thread other than MPI_Init's (records.json).
      // flags bit3: made from a callback MPI ran inside another call of the thread.
      if ((flags & 10) !== 0)
        return {
          type: 'enter',
          rank,
          seq,
          time,
          fn: layout.spec,
          site,
          args,
          ...((flags & 2) !== 0 ? { otherThread: true } : {}),
          ...((flags & 8) !== 0 ? { nested: true } : {}),
        };
      return { type: 'enter', rank, seq, time, fn: layout.spec, site, args };
    }
    case KIND.EXIT: {
      if (layout === undefined) throw new Error(`function id ${func} out of range`);
      const outputs: Record<string, ArgValue> = {};
      for (const [name, i] of layout.outWord) outputs[name] = w(i);
      if (layout.outcount !== undefined && layout.indices !== undefined) {
        const at = layout.outWord.get(layout.outcount) as number;
        outputs[layout.indices] = cols.slice(row, at + 1, Math.max(w(at), 0));
      }
      // flags bit0: a Test* call that found completion; exposed as the 'flag' output.
      outputs['flag'] = flags & 1;
      return {
        type: 'exit',
        rank,
        seq,
        time,
        fn: layout.spec,
        returnCode: w(0),
        outputs,
      };
    }
    case KIND.COMPLETE:
      return {
        type: 'complete',
        rank,
        seq,
        time,
        fn: (layout as (typeof layouts)[number]).spec,
        request: w(0),
        source: w(1),
        tag: w(2),
        bytes: w(3),
        error: w(4),
        cancelled: w(5) === 1,
      };
    case KIND.COMM: {
      const size = w(1);
      const inter = (w(5) & 1) === 1;
      // After the members (word 5 bit 1): this rank's neighbours in the communicator's process topology.
      const at = 7 + size + (inter ? w(6) : 0);
      const indeg = w(at);
      const outdeg = w(at + 1);
      const topo =
        (w(5) & 2) !== 0 && n >= at + 2 + indeg + outdeg
          ? {
              sources: cols.slice(row, at + 2, indeg),
              dests: cols.slice(row, at + 2 + indeg, outdeg),
            }
          : {};
      return {
        type: 'comm',
        rank,
        seq,
        time,
        comm: w(0),
        size,
        myRank: w(2),
        parent: w(3),
        creatorSeq: w(4),
        isInter: inter,
        members: cols.slice(row, 7, size),
        remoteMembers: inter ? cols.slice(row, 7 + size, w(6)) : [],
        ...topo,
      };
    }
    case KIND.DTYPE:
      return datatypeAt(cols, row);
    case KIND.SITE:
      return { type: 'site', rank, seq, time, address: w(0), offset: w(1), module: cols.text.get(row) ?? '' };
    case KIND.END:
      return {
        type: 'end',
        rank,
        seq,
        time,
        how: END_HOWS[w(0)] ?? 'disconnected',
        code: w(1),
        dropped: w(2),
      };
    case KIND.FINDING: {
      const check = checks[w(0)];
      return {
        type: 'shim-finding',
        rank,
        seq,
        time,
        fn: (layout as (typeof layouts)[number]).spec,
        site,
        check: check?.id ?? '',
        message: check?.message ?? '',
        param: n > 1 ? w(1) : -1,
        values: [w(2), w(3), w(4)],
      };
    }
    case KIND.LOST:
      return { type: 'lost', rank, seq, time, count: w(0) };
    case KIND.OP:
      return { type: 'op', rank, seq, time, op: w(0), predefined: n > 1 ? w(1) : -1, commute: w(2) === 1 };
    case KIND.CLOCK:
      return {
        type: 'clock',
        rank,
        seq,
        time,
        realtime: w(0),
        ...(w(3) === 1 || w(3) === 2 ? { bounds: { lo: w(1), hi: w(2), phase: w(3) as 1 | 2 } } : {}),
      };
    case KIND.BSEND:
      return {
        type: 'bsend',
        rank,
        seq,
        time,
        fn: (layout as (typeof layouts)[number]).spec,
        bytes: w(0),
        packed: w(1),
      };
    default:
      throw new Error(`unknown record kind ${kind}`);
  }
}

/**
 * A DTYPE row as its event, read straight from the word column: the engine takes DTYPE rows this way (a ScaLAPACK
 * run makes one per MPI_Type_vector and per commit, a third of its records), without eventAt's closure per row and
 * the object spread of its optional layout (~5% of `mpiscope report` of such a run).
 */
export function datatypeAt(cols: RecordColumns, row: number): DatatypeEvent {
  const n = cols.wordCount[row] as number;
  const b = cols.wordStart[row] as number;
  const words = cols.words;
  const w = (i: number): number => (i < n ? (words[b + i] as number) : 0);
  const withLayout = ((cols.flags[row] as number) & 4) !== 0;
  const sigEnd = withLayout ? 8 + w(7) : n;
  const signature: [number, number][] = [];
  for (let i = withLayout ? 8 : 7; i + 1 < sigEnd; i += 2) {
    const id = w(i);
    const repeat = w(i + 1);
    if (id === 0 && repeat === 0) continue; // zero padding at the end of the last EXT record
    signature.push([id, repeat]);
  }
  const blocks: [number, number][] = [];
  for (let i = sigEnd; withLayout && i + 1 < n; i += 2) {
    const offset = w(i);
    const length = w(i + 1);
    if (offset === 0 && length === 0) continue; // padding, as above
    blocks.push([offset, length]);
  }
  const rank = cols.rank[row] as number;
  const seq = cols.seq[row] as number;
  const time = cols.time[row] as number;
  // Two literals rather than a spread of the optional layout: an event without one has no `layout` key.
  return blocks.length > 0
    ? {
        type: 'datatype',
        rank,
        seq,
        time,
        datatype: w(0),
        size: w(1),
        lb: w(2),
        extent: w(3),
        trueLb: w(4),
        trueExtent: w(5),
        committed: w(6) === 1,
        signature,
        layout: blocks,
      }
    : {
        type: 'datatype',
        rank,
        seq,
        time,
        datatype: w(0),
        size: w(1),
        lb: w(2),
        extent: w(3),
        trueLb: w(4),
        trueExtent: w(5),
        committed: w(6) === 1,
        signature,
      };
}
