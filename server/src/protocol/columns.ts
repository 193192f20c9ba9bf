/**
 * Decoded calls as columns: one row per whole call (a head record and its EXT records; a COMPLETE_EXIT record of
 * record format 2 gives two rows, its COMPLETE and its EXIT, as format 1's two records did), each field in a
 * preallocated typed array, the words of every row in one shared word column. The decoder writes rows, the
 * engine reads fields by row index (and arguments by role through the spec's tables, `call-words.ts`), so
 * decoding and dispatching a batch allocates nothing per record. A batch is reused: `clear()` and fill again.
 *
 * Rows hold what the records say, validated. Two values exist only inside the analyzer: END how
 * `END_DISCONNECTED` (the session's own END for a connection that closed without one), and NaN words, which
 * `appendEvent` (tests' synthetic events) writes for parameters an event leaves out, so that reading such an
 * argument gives the reader's fallback as reading a missing key of the old argument map did.
 */

import { grown } from './grown';

/** END how codes (records.json END), index = code; 5 is the analyzer's own "connection closed without END". */
export const END_HOWS = [
  undefined,
  'finalized',
  'exit-without-finalize',
  'signal',
  'abort',
  'disconnected',
] as const;
export const END_DISCONNECTED = 5;

export class RecordColumns {
  /** Rows in use. */
  length = 0;
  kind: Uint8Array;
  flags: Uint8Array;
  func: Uint16Array;
  rank: Int32Array;
  seq: Uint32Array;
  /** Nanoseconds on the rank's monotonic clock (u64 read as a double: exact below 2^53 ns, 104 days). */
  time: Float64Array;
  site: Float64Array;
  /** Where the row's words start in `words`, and how many it has. */
  wordStart: Uint32Array;
  wordCount: Uint32Array;
  /** Every row's words (i64 read as doubles: handles and addresses below 2^53, as the decoder always did). */
  words: Float64Array;
  wordsUsed = 0;
  /** SITE rows' module paths, by row: the only text records carry (one per distinct call site of a run). */
  readonly text = new Map<number, string>();

  constructor(rows = 1024) {
    this.kind = new Uint8Array(rows);
    this.flags = new Uint8Array(rows);
    this.func = new Uint16Array(rows);
    this.rank = new Int32Array(rows);
    this.seq = new Uint32Array(rows);
    this.time = new Float64Array(rows);
    this.site = new Float64Array(rows);
    this.wordStart = new Uint32Array(rows);
    this.wordCount = new Uint32Array(rows);
    this.words = new Float64Array(rows * 8);
  }

  /** Empties the batch; its arrays are kept for the next one. */
  clear(): void {
    this.length = 0;
    this.wordsUsed = 0;
    if (this.text.size > 0) this.text.clear();
  }

  /** Appends one row whose words are `n` values of `from` starting at `at`; returns its index. */
  add(
    kind: number,
    flags: number,
    func: number,
    rank: number,
    seq: number,
    time: number,
    site: number,
    from: ArrayLike<number>,
    at: number,
    n: number,
  ): number {
    const start = this.wordsUsed;
    const words = this.reserve(start + n);
    for (let i = 0; i < n; i++) words[start + i] = from[at + i] as number;
    return this.addWritten(kind, flags, func, rank, seq, time, site, n);
  }

  /**
   * The word column with room for `need` words (the decoder writes a call's words past `wordsUsed` as they arrive,
   * then `addWritten` makes them a row): grown by doubling, the words past `wordsUsed` kept.
   */
  reserve(need: number): Float64Array {
    if (need > this.words.length) this.growWords(need);
    return this.words;
  }

  /**
   * Appends one row whose `n` words were written in place from `wordsUsed` on (after `reserve`); returns its
   * index. No copy: the decoder writes a call's words where its row will read them.
   */
  addWritten(
    kind: number,
    flags: number,
    func: number,
    rank: number,
    seq: number,
    time: number,
    site: number,
    n: number,
  ): number {
    const row = this.length;
    if (row === this.kind.length) this.growRows();
    // A row may claim more words than were written (a call whose length says more than its records held).
    if (this.wordsUsed + n > this.words.length) this.growWords(this.wordsUsed + n);
    this.kind[row] = kind;
    this.flags[row] = flags;
    this.func[row] = func;
    this.rank[row] = rank;
    this.seq[row] = seq;
    this.time[row] = time;
    this.site[row] = site;
    const start = this.wordsUsed;
    this.wordStart[row] = start;
    this.wordCount[row] = n;
    // A small integer whatever `n` is: a count the decoder computed from the words (doubles) came as a heap number,
    // which turned this field into a double field at some row of the first engine, a new map for RecordColumns,
    // and the code compiled against the old one thrown away (`--trace-generalization`: wordsUsed s->d).
    this.wordsUsed = (start + n) | 0;
    this.length = row + 1;
    return row;
  }

  /** Word i of a row; NaN past its end (a reader's fallback then applies). */
  word(row: number, i: number): number {
    return i < (this.wordCount[row] as number)
      ? (this.words[(this.wordStart[row] as number) + i] as number)
      : NaN;
  }

  /** Words i..i+n of a row, copied (for what outlives the batch). */
  slice(row: number, i: number, n: number): number[] {
    const out: number[] = [];
    const count = this.wordCount[row] as number;
    const start = this.wordStart[row] as number;
    for (let k = i; k < i + n && k < count; k++) out.push(this.words[start + k] as number);
    return out;
  }

  private growRows(): void {
    const n = this.kind.length * 2;
    this.kind = grown(this.kind, n);
    this.flags = grown(this.flags, n);
    this.func = grown(this.func, n);
    this.rank = grown(this.rank, n);
    this.seq = grown(this.seq, n);
    this.time = grown(this.time, n);
    this.site = grown(this.site, n);
    this.wordStart = grown(this.wordStart, n);
    this.wordCount = grown(this.wordCount, n);
  }

  private growWords(need: number): void {
    let n = this.words.length * 2;
    while (n < need) n *= 2;
    const b = new Float64Array(n);
    // All of it: a call being decoded may have words written past wordsUsed (reserve).
    b.set(this.words);
    this.words = b;
  }
}
