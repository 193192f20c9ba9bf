/**
 * The engine's boundary: decoded events in, findings out.
 *
 * The decoder (server/src/protocol) turns binary records into these events; the engine
 * (server/src/engine) consumes them one rank-ordered stream at a time and never sees bytes, sockets,
 * clocks or file paths. Call sites stay raw return addresses here; the session resolves them to
 * file:line (once per distinct address) when it reports a finding.
 */

/** Handle values are the MPI handles themselves widened to a number (pointer or int); 0 is the NULL handle. */
export type Handle = number;

export const ANY_SOURCE = -1;
export const PROC_NULL = -2;
/** MPI_ROOT, as the shim writes it (a rooted collective's root on an intercommunicator's root). */
export const ROOT = -3;
/**
 * The word of a request that MPI handed out already complete (shared between calls), wherever it appears after
 * the call that made it; 0 is MPI_REQUEST_NULL. See RankTrack.earlyDone.
 */
export const DONE_REQUEST = 1;
export const ANY_TAG = -1;

/** One parameter's value: a scalar word, or the elements of an array parameter. */
export type ArgValue = number | readonly number[];

/** Static description of an intercepted MPI function, from native-shim/spec/mpi-api.json. */
export interface FunctionSpec {
  readonly id: number;
  readonly name: string;
  readonly cls: string;
  readonly mode?: string;
  readonly coll?: string;
  /** One-sided calls (classes rma and win_sync): the access (put, get, accumulate…) or synchronization (fence, lock…). */
  readonly rma?: string;
  /** A call that makes a persistent request of a kind the engine does not match (MPI-4 persistent collectives…). */
  readonly persistent?: boolean;
  readonly params: readonly ParamSpec[];
}

export interface ParamSpec {
  readonly ctype: string;
  readonly name: string;
  readonly role: string;
  /** For array parameters: the name of the parameter that holds the length, or "commsize". */
  readonly lengthFrom?: string;
}

interface EventBase {
  readonly rank: number;
  /** Per-rank call sequence number; an enter and its exit share it. */
  readonly seq: number;
  /** Nanoseconds on the rank's monotonic clock. */
  readonly time: number;
}

export interface EnterEvent extends EventBase {
  readonly type: 'enter';
  readonly fn: FunctionSpec;
  readonly site: number;
  /** Argument values by parameter name. */
  readonly args: Readonly<Record<string, ArgValue>>;
  /**
   * The shim saw this call made from a thread other than the one that called MPI_Init / MPI_Init_thread (ENTER
   * flags bit1, records.json). Absent when the shim does not say (before MPI_Init returned, older shims).
   */
  readonly otherThread?: boolean;
  /**
   * The call is made from a user callback MPI ran inside another call of the same thread (an attribute's copy or
   * delete function: ENTER flags bit3), so it nests in that call. Absent when not.
   */
  readonly nested?: boolean;
}

/**
 * The engine's own record of a call's ENTER: its head fields and its argument words, read by role through the
 * spec's tables (fn-roles.ts) — no map of arguments by name. The words are read where the batch's columns hold
 * them (protocol/columns.ts) while the batch is handled; a call still in flight when its batch ends, or kept
 * by a holder (`keepWords`: a persistent request's template, a collective's call), copies them first
 * (model/rank-track.ts `Call`). Words are as records.json's ENTER says: one per scalar parameter in prototype
 * order, then each array section (its length, its elements); NaN for a parameter a synthetic event left out.
 * No time: no check reads it, and a double field is a heap number per call in V8.
 */
export interface CallEnter {
  readonly rank: number;
  /** Per-rank call sequence number; an enter and its exit share it. */
  readonly seq: number;
  readonly fn: FunctionSpec;
  readonly site: number;
  /** Word i of the ENTER, undefined past its last word (NaN: left out by a synthetic event). */
  wordAt(i: number): number | undefined;
  /**
   * The array that holds the words now (throws, as `wordAt`, once they are gone): word i < wordCount is at
   * wordBase + i. For the readers of every operation (fn-roles.ts `RoleReader.at`), which read several words of a
   * call and check that they are readable once, not per word; read `wordBase` after it (keepWords moves them).
   */
  wordArray(): Float64Array;
  readonly wordBase: number;
  readonly wordCount: number;
  /**
   * The words stay readable after the batch that brought them, and the call is never reused for a later call of
   * its rank (model/rank-track.ts Call): every holder that keeps a call past its EXIT calls it.
   */
  keepWords(): void;
  /** ENTER flags bit1 (see EnterEvent.otherThread). */
  readonly otherThread: boolean;
  /** ENTER flags bit3 (see EnterEvent.nested). */
  readonly nested: boolean;
}

/**
 * An EXIT row as the engine's handlers read it, valid during the handler only (the engine reuses one view,
 * pointed at each EXIT row in turn): never keep it.
 */
export interface ExitView extends EventBase {
  readonly fn: FunctionSpec;
  readonly returnCode: number;
  /** flags bit0: a Test* call that found completion. */
  readonly flag: number;
  /** The output word of the parameter with this name (request_out, comm_out, index…), or undefined. */
  out(name: string): number | undefined;
}

export interface ExitEvent extends EventBase {
  readonly type: 'exit';
  readonly fn: FunctionSpec;
  readonly returnCode: number;
  /** New handles by parameter name (request_out, comm_out, …), index/outcount/indices outputs. */
  readonly outputs: Readonly<Record<string, ArgValue>>;
}

/** One operation completed by a call: a blocking receive/send (request 0) or a request. */
export interface CompleteEvent extends EventBase {
  readonly type: 'complete';
  readonly fn: FunctionSpec;
  readonly request: Handle;
  readonly source: number;
  readonly tag: number;
  /** -1 when the status does not say (more than INT_MAX bytes, or a status MPI leaves undefined). */
  readonly bytes: number;
  readonly error: number;
  readonly cancelled: boolean;
}

export interface CommEvent extends EventBase {
  readonly type: 'comm';
  readonly comm: Handle;
  readonly size: number;
  readonly myRank: number;
  readonly parent: Handle;
  /** seq of the call that created it (0 for predefined communicators). */
  readonly creatorSeq: number;
  readonly isInter: boolean;
  /** World ranks of the members, in communicator rank order. */
  readonly members: readonly number[];
  readonly remoteMembers: readonly number[];
  /**
   * This rank's neighbours in the communicator's process topology, as MPI gave them when the communicator was made
   * (communicator ranks in the order of its neighbourhood collectives' blocks, -1 for MPI_PROC_NULL); absent when
   * it has no topology or the shim did not ask.
   */
  readonly sources?: readonly number[];
  readonly dests?: readonly number[];
}

export interface DatatypeEvent extends EventBase {
  readonly type: 'datatype';
  readonly datatype: Handle;
  readonly size: number;
  readonly lb: number;
  readonly extent: number;
  readonly trueLb: number;
  readonly trueExtent: number;
  readonly committed: boolean;
  /** Run-length signature: pairs of (basic type id, repeat). */
  readonly signature: readonly (readonly [number, number])[];
  /**
   * For a committed type with gaps, the memory one element touches: (offset from the true lb, length) blocks
   * in increasing order; undefined when contiguous or not known (too many blocks, too large).
   */
  readonly layout?: readonly (readonly [number, number])[];
}

export interface OpEvent extends EventBase {
  readonly type: 'op';
  readonly op: Handle;
  /** Index into mpi-api.json ops, or -1 for a user-defined op. */
  readonly predefined: number;
  readonly commute: boolean;
}

export interface SiteEvent extends EventBase {
  readonly type: 'site';
  readonly address: number;
  readonly offset: number;
  readonly module: string;
}

export type EndHow = 'finalized' | 'exit-without-finalize' | 'signal' | 'abort' | 'disconnected';

export interface EndEvent extends EventBase {
  readonly type: 'end';
  readonly how: EndHow;
  readonly code: number;
  readonly dropped: number;
}

/** An invalid argument found by the shim before the call reached MPI. */
export interface ShimFindingEvent extends EventBase {
  readonly type: 'shim-finding';
  readonly fn: FunctionSpec;
  readonly site: number;
  readonly check: string;
  readonly message: string;
  readonly param: number;
  readonly values: readonly number[];
}

export interface LostEvent extends EventBase {
  readonly type: 'lost';
  readonly count: number;
}

/** Aligns a rank's monotonic clock (time) with wall-clock time, for the timeline across ranks. */
export interface ClockEvent extends EventBase {
  readonly type: 'clock';
  /** CLOCK_REALTIME in nanoseconds at the instant `time` was read. */
  readonly realtime: number;
  /**
   * The shim's clock alignment (msc_clockalign.c): this rank's clock minus rank 0's lies in [lo, hi] ns, measured
   * by ping-pongs with rank 0 in MPI_Init (phase 1) or MPI_Finalize (phase 2). Absent in the first CLOCK.
   */
  readonly bounds?: { readonly lo: number; readonly hi: number; readonly phase: 1 | 2 };
}

/**
 * The space a buffered send (MPI_Bsend, MPI_Ibsend; MPI_Bsend_init for each Start of its request) takes in the
 * buffer attached with MPI_Buffer_attach, as the shim computed it. Comes between the call's ENTER and EXIT.
 */
export interface BsendEvent extends EventBase {
  readonly type: 'bsend';
  readonly fn: FunctionSpec;
  /** MPI_Pack_size of the message + MPI_BSEND_OVERHEAD of the library. */
  readonly bytes: number;
  /** MPI_Pack_size of the message. */
  readonly packed: number;
}

export type RankEvent =
  | EnterEvent
  | ExitEvent
  | CompleteEvent
  | CommEvent
  | DatatypeEvent
  | OpEvent
  | SiteEvent
  | EndEvent
  | ShimFindingEvent
  | LostEvent
  | ClockEvent
  | BsendEvent;

export type FindingKind =
  | 'deadlock'
  | 'potential-deadlock'
  | 'message-race'
  | 'buffer-overlap'
  | 'send-buffer-modified'
  | 'type-mismatch'
  | 'count-mismatch'
  | 'collective-mismatch'
  | 'resource-leak'
  | 'unmatched-message'
  | 'message-mismatch'
  | 'invalid-argument'
  | 'request-misuse'
  | 'call-order'
  | 'rma-race'
  | 'local-concurrency';

/** SARIF's three levels: error (the program is wrong), warning (wrong on some MPI or some run), note (legal but suspicious). */
export type Severity = 'error' | 'warning' | 'note';

/** Where a finding happened, before the session resolves the call site to file:line. */
export interface RawLocation {
  readonly rank: number;
  /** Return address of the MPI call (0 when unknown). */
  readonly site: number;
  /** The MPI function, e.g. "MPI_Recv". */
  readonly call: string;
  /** What this rank is doing or waiting for, one short phrase: "MPI_Recv from rank 1, tag 7". */
  readonly detail: string;
}

export interface EngineFinding {
  readonly kind: FindingKind;
  readonly severity: Severity;
  /** One or two sentences a person can fix the bug from: ranks, calls, peers, tags, what to change. */
  readonly message: string;
  readonly locations: readonly RawLocation[];
  /** A message race's receive and its senders, for replaying it the other way (message-race only). */
  readonly race?: RaceReplay;
  /**
   * A candidate, not a finding yet: buffers in the callers' stack frames (one per location, by rank), judged by the
   * session against the local variable the caller's debug info puts there (lifecycle/stack-buffer.ts); a
   * location whose variable is not smaller is dropped, and the finding with it when none is left.
   */
  readonly stackBuffer?: readonly StackBufferCandidate[];
  /**
   * MPI's own verdict on a call (its error under MPI_ERRORS_ARE_FATAL, or a crash inside the call;
   * lifecycle/mpi-verdict.ts): the session holds it to the end of the run and reports it only for the locations
   * no other finding names (the same rank and call site), since a finding of ours at that call says more.
   */
  readonly mpiVerdict?: true;
  /**
   * One finding across ranks whose ranks may come after the session took it (a point-to-point call made with the
   * same invalid argument at the same call site on several ranks, lifecycle/shim-findings.ts): each later rank's
   * part comes as a finding of its own with the same key, which the session adds to the first one's locations
   * (session/rank-merge.ts) when its message and resolved call site are the first one's.
   */
  readonly merge?: string;
}

/** A call's buffer in its caller's stack frame, as the shim described it (spec check stack-buffer-frame). */
export interface StackBufferCandidate {
  /** The rank whose location (in the finding's locations) the candidate is about. */
  readonly rank: number;
  /** The buffer's address minus the caller's CFA (negative: locals lie below it). */
  readonly offset: number;
  /** Bytes from the buffer to the end of the last byte the call reads or writes. */
  readonly reach: number;
  /** The first byte touched, from the buffer (a type's true lower bound; usually 0). */
  readonly low: number;
  /** The buffer's parameter ("buf", "sendbuf"…). */
  readonly param: string;
}

/**
 * How to rerun a message race with the other message (`mpiscope run --replay-race ID --sender R`): the
 * receiving world rank, which of its wildcard receives (1-based, counted as the shim counts them: spec
 * replayClasses), the world rank whose message it took and those whose message it could have taken.
 */
export interface RaceReplay {
  /** "RANK.WILDCARD.SENDER": the receive and the first alternative sender (the default of --replay-race). */
  readonly id: string;
  readonly rank: number;
  readonly wildcard: number;
  readonly took: number;
  readonly alternatives: readonly number[];
  /** What taking each alternative does, when the recorded calls decide it without a rerun (by world rank). */
  readonly predicted?: readonly { readonly sender: number; readonly outcome: string }[];
  /** Set on the note of a replay run: the shim forced this receive to this sender. */
  readonly forced?: boolean;
}

/**
 * A check that did not run, or ran on part of the run, and why: reported beside the findings (report, JSON,
 * editor) so that no check is silently off.
 */
export interface SkippedCheck {
  /** What was not checked: finding kinds, with the part concerned when only part of a kind was skipped. */
  readonly checks: readonly string[];
  /** Why, in a sentence a user understands. */
  readonly reason: string;
  /**
   * 'lost-records': the shims dropped records; 'bound': a memory bound of the analyzer was reached; 'threads': MPI
   * called from several threads at once; 'unobserved-ranks': some rank's MPI calls never reached the analyzer.
   */
  readonly cause: 'lost-records' | 'bound' | 'threads' | 'unobserved-ranks';
}

/** What a rank is doing now, for the debug adapter and the timeline. */
export interface RankState {
  readonly rank: number;
  readonly state: 'running' | 'in-call' | 'blocked' | 'finalized' | 'ended';
  /** The current MPI call, when state is in-call or blocked. */
  readonly call?: RawLocation;
  readonly ended?: EndHow;
  /**
   * The call waits on a window whose one-sided epoch rules were broken (MPI_Win_free with an epoch left open…):
   * why it may never return. When every live rank is so, the session need not wait out the no-progress timeout.
   */
  readonly brokenEpoch?: string;
}
