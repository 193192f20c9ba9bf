/**
 * The rows of the hot record kinds as the handlers read them. An ENTER becomes the call's one object (`Call`, most
 * often the object of its rank's call CALL_RING seqs back, written over: RankTrack.reusable; its words read in the
 * batch's columns, copied only if it is still in flight when the batch ends, and its state: the call is pending
 * state, kept until it and its request are done). EXIT and COMPLETE rows become nothing: one view each per engine,
 * pointed at the row being handled, read in place.
 */
import type { RecordColumns } from '../protocol/columns';
import { functions, layouts } from '../protocol/spec';
import { Call, type RankTrack, type WordBatch } from './model/rank-track';
import type { CompleteEvent, ExitView, FunctionSpec } from './model/types';

/**
 * The ENTER at `row` as its call, its words read in place until `batch` is over (`Call`).
 */
export function enterOf(
  cols: RecordColumns,
  row: number,
  batch: WordBatch,
  tracks: readonly (RankTrack | undefined)[],
): Call {
  const rank = cols.rank[row] as number;
  const seq = cols.seq[row] as number;
  const fn = functions[cols.func[row] as number] as FunctionSpec;
  // The call CALL_RING seqs back in the slot this one takes, when nothing holds it any more: most calls (a Send,
  // an Isend whose request holds only numbers, a Wait) are nothing to anyone once a later call took their slot,
  // and writing over one is cheaper than filling a new object per ENTER (see the engine README, oprows).
  const old = tracks[rank]?.reusable(seq);
  if (old !== undefined) return old.reuse(cols, row, fn, batch);
  return new Call(
    rank,
    seq,
    fn,
    cols.site[row] as number,
    cols.words,
    cols.wordStart[row] as number,
    cols.wordCount[row] as number,
    cols.flags[row] as number,
    batch,
  );
}

const NO_FN: FunctionSpec = { id: -1, name: '', cls: '', params: [] };

/** One EXIT row in place; `at()` points it at another. Never kept by a handler (ExitView). */
export class ExitRow implements ExitView {
  private cols: RecordColumns | undefined;
  private row = 0;
  rank = 0;
  seq = 0;
  // Doubles from the start (NaN until the first row): the time and the return code read from the columns are
  // doubles, and a field born a small integer that is given one moves its class to a new map; the engine's field
  // holding this view then took another engine's view as a new class, and the code compiled for it was thrown
  // away (--trace-generalization, --trace-deopt: a second engine in the process recompiled pushColumns).
  time = NaN;
  fn: FunctionSpec = NO_FN;
  returnCode = NaN;
  flag = 0;

  at(cols: RecordColumns, row: number): this {
    this.cols = cols;
    this.row = row;
    this.rank = cols.rank[row] as number;
    this.seq = cols.seq[row] as number;
    this.time = cols.time[row] as number;
    this.fn = functions[cols.func[row] as number] as FunctionSpec;
    this.returnCode = cols.word(row, 0);
    this.flag = (cols.flags[row] as number) & 1;
    return this;
  }

  /** Word i of the EXIT (the return code is word 0; FunctionLayout.outWord says where each output is). */
  word(i: number): number {
    return this.cols === undefined ? NaN : this.cols.word(this.row, i);
  }

  out(name: string): number | undefined {
    const i = layouts[this.fn.id]?.outWord.get(name);
    return i === undefined || this.cols === undefined ? undefined : this.cols.word(this.row, i);
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One COMPLETE row in place, as the CompleteEvent the completion handlers take; refilled per row. */
export class CompleteRow {
  readonly event: Mutable<CompleteEvent> = {
    type: 'complete',
    rank: 0,
    seq: 0,
    // Doubles from the start, as ExitRow's (the words are doubles): NaN until the first row.
    time: NaN,
    fn: NO_FN,
    request: NaN,
    source: NaN,
    tag: NaN,
    bytes: NaN,
    error: NaN,
    cancelled: false,
  };

  at(cols: RecordColumns, row: number): CompleteEvent {
    const e = this.event;
    const w = cols.words;
    const s = cols.wordStart[row] as number;
    e.rank = cols.rank[row] as number;
    e.seq = cols.seq[row] as number;
    e.time = cols.time[row] as number;
    e.fn = functions[cols.func[row] as number] as FunctionSpec;
    // COMPLETE always has its six words (check-call.ts).
    e.request = w[s] as number;
    e.source = w[s + 1] as number;
    e.tag = w[s + 2] as number;
    e.bytes = w[s + 3] as number;
    e.error = w[s + 4] as number;
    e.cancelled = w[s + 5] === 1;
    return e;
  }
}
