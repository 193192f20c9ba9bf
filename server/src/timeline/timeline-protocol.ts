/**
 * The timeline's wire format: what the language server sends the webview (through the extension host,
 * as the `mpiscope/timeline` LSP notification, then `postMessage`). The model (timeline-model.ts) writes
 * it and the webview (webview/src/store) reads it; this file is the only definition of its shape.
 *
 * Batches are deltas in column form (struct of arrays): plain number arrays in the live notifications (LSP
 * is JSON), typed arrays when a trace's timeline comes packed as binary (packed-columns.ts: the trace
 * editor). The webview copies the columns into its own typed arrays either way.
 *
 * Times are nanoseconds since the job's origin: the first rank clock (CLOCK record) the model saw, with
 * every rank's monotonic clock shifted by its own (realtime - monotonic) offset, so lanes line up.
 */

/** LSP notification method carrying one TimelineMessage (server → client). */
export const TIMELINE_NOTIFICATION = 'mpiscope/timeline';

/** What a call does, for colouring. Stable numbers: the webview indexes palettes with them. */
export const CallClass = {
  other: 0,
  send: 1,
  recv: 2,
  collective: 3,
  wait: 4,
  setup: 5,
} as const;
export type CallClass = (typeof CallClass)[keyof typeof CallClass];
export const CALL_CLASS_NAMES: readonly string[] = ['other', 'send', 'recv', 'collective', 'wait', 'setup'];

/** A column: plain numbers as JSON carries them, or a typed array unpacked from packed-columns.ts. */
export type Column = readonly number[] | Float64Array | Int32Array | Int16Array | Int8Array;

/** Spans completed since the previous batch, in the order their calls returned (per rank: by start). */
export interface SpanColumns {
  readonly rank: Column;
  readonly start: Column;
  readonly end: Column;
  /** Function id (index into mpi-api.json functions); named by TimelineFunction entries. */
  readonly fn: Column;
  /** Site id (TimelineSite.id), -1 when the call site is unknown. */
  readonly site: Column;
  /** Communicator id shared by every rank (same for the same communicator), -1 for calls without one. */
  readonly comm: Column;
}

/** Messages matched since the previous batch: one arrow from (src, sendTime) to (dst, recvTime). */
export interface MessageColumns {
  readonly src: Column;
  /** When the send (or isend, or sendrecv) was entered. */
  readonly sendTime: Column;
  readonly dst: Column;
  /** When the receive completed (the COMPLETE record of the receiving or waiting call). */
  readonly recvTime: Column;
  readonly bytes: Column;
  readonly tag: Column;
}

/** A call that has entered and not returned (yet): drawn up to `now`, hatched when it is blocked. */
export interface OpenCall {
  readonly rank: number;
  readonly start: number;
  readonly fn: number;
  readonly site: number;
  readonly comm: number;
}

export interface TimelineFunction {
  readonly id: number;
  readonly name: string;
  readonly cls: CallClass;
}

/** A call site. file/line arrive later (a second entry with the same id) once the server resolved them. */
export interface TimelineSite {
  readonly id: number;
  readonly rank: number;
  /** Return address, for display when the file is unknown. */
  readonly address: number;
  /** Absolute path, "" while unknown. */
  readonly file: string;
  /** 1-based, 0 while unknown. */
  readonly line: number;
  readonly function: string;
}

export interface TimelineLocation {
  readonly rank: number;
  readonly file: string;
  readonly line: number;
  readonly call: string;
  readonly detail: string;
}

export interface TimelineFinding {
  readonly id: number;
  /** A FindingKind ('deadlock', 'message-race', …). */
  readonly kind: string;
  readonly severity: 'error' | 'warning' | 'note';
  readonly message: string;
  readonly locations: readonly TimelineLocation[];
  /** For each location: where on its rank's lane the finding sits (start of the named call). */
  readonly times: readonly number[];
}

/** Start over: a new job (or a newly opened panel that is about to receive everything again). */
export interface TimelineReset {
  readonly type: 'reset';
  readonly ranks: number;
  /** The program, for the title; "" when unknown. */
  readonly program: string;
  /**
   * The job is read from a trace (the trace editor): its batches come as fast as they are decoded, so a
   * page draws a few frames a second until the last, not one per batch.
   */
  readonly replay?: boolean;
}

export interface TimelineData {
  readonly type: 'data';
  /** Increases by one per data batch of a job, so a receiver can tell a batch went missing. */
  readonly seq: number;
  readonly ranks: number;
  /** Latest time seen on any rank: open calls extend to here. */
  readonly now: number;
  readonly functions: TimelineFunction[];
  readonly sites: TimelineSite[];
  readonly spans: SpanColumns;
  readonly messages: MessageColumns;
  readonly findings: TimelineFinding[];
  /** Every call open now (a full snapshot, not a delta; ranks not listed are outside MPI). */
  readonly open: OpenCall[];
  /** True once every rank ended: nothing more will come for this job. */
  readonly ended: boolean;
  /**
   * The batch's span and message columns as one binary block (packed-columns.ts), the trace editor's form;
   * `spans` and `messages` are then empty.
   */
  readonly packed?: ArrayBuffer;
  /**
   * Where the page fetches `packed` itself (the trace editor): the block [offset, offset + bytes) of the
   * language server's columns file, served by VS Code's webview resource loading at `url`. The bytes then go
   * from code-server to the page without the extension host reading them or a message relaying them.
   */
  readonly columnsAt?: ColumnsAt;
}

/** Where a batch's block is in the columns file: `bytes` bytes at `offset`, raw deflate of the packed columns. */
export interface ColumnsAt {
  readonly url: string;
  readonly offset: number;
  readonly bytes: number;
}

export type TimelineMessage = TimelineReset | TimelineData;

/**
 * When each hop of a trace editor's opening happened (ms since the epoch, every process on one clock): the
 * extension host's and the language server's marks, posted after the timeline's batches. The page keeps them
 * with its own (window.mpiscope.timing), which bench/timeline/vscode-open.mjs prints as a breakdown.
 */
export interface OpenTiming {
  readonly type: 'timing';
  readonly marks: Readonly<Record<string, number>>;
}

export function isOpenTiming(value: unknown): value is OpenTiming {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'timing' &&
    typeof (value as { marks?: unknown }).marks === 'object' &&
    (value as { marks?: unknown }).marks !== null
  );
}

/**
 * Messages from the webview to its host. `block` asks the trace editor's host to post a block of the columns
 * file (the fallback when the page's fetch of `columnsAt` fails); the host answers with a BlockReply.
 * `loaded`: the store holds the whole job (its last batch applied, or given up on when its block could not be
 * had), so the columns file may go and the trace editor asks for the findings (the engine's replay, kept off
 * the CPU while the page takes the batches).
 */
export type WebviewRequest =
  | { readonly type: 'ready' }
  | { readonly type: 'reveal'; readonly file: string; readonly line: number }
  | { readonly type: 'block'; readonly offset: number; readonly bytes: number }
  | { readonly type: 'loaded' };

/** The host's answer to a `block` request: the bytes, or why it could not read them. */
export interface BlockReply {
  readonly type: 'block';
  readonly offset: number;
  readonly packed?: ArrayBuffer;
  readonly error?: string;
}

export function isBlockReply(value: unknown): value is BlockReply {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'block' &&
    typeof (value as { offset?: unknown }).offset === 'number'
  );
}

export function emptySpans(): SpanColumns {
  return { rank: [], start: [], end: [], fn: [], site: [], comm: [] };
}

export function emptyMessages(): MessageColumns {
  return { src: [], sendTime: [], dst: [], recvTime: [], bytes: [], tag: [] };
}

/** Narrowing for messages that crossed a process boundary (the webview trusts nothing it is posted). */
export function isTimelineMessage(value: unknown): value is TimelineMessage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; ranks?: unknown; spans?: unknown; messages?: unknown };
  if (v.type === 'reset') return typeof v.ranks === 'number';
  return (
    v.type === 'data' &&
    typeof v.ranks === 'number' &&
    typeof v.spans === 'object' &&
    v.spans !== null &&
    typeof v.messages === 'object' &&
    v.messages !== null
  );
}
