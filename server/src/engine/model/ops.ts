/** The point-to-point operations the engine follows from posting to completion. */
import type { CommInfo } from './comms';
import type { DtypeInfo } from './datatypes';
import type { FunctionSpec } from './types';

interface OpBase {
  /** Global posting order, for the "who was first" questions of matching. */
  readonly order: number;
  /** World rank of the rank that posted it. */
  readonly rank: number;
  readonly comm: CommInfo;
  readonly fn: FunctionSpec;
  readonly seq: number;
  readonly site: number;
  /** Request handle, 0 for a blocking call. */
  request: number;
  /** Reported to the user in a deadlock already: finish() does not report it again. */
  reported: boolean;
  /** MPI_Cancel was called on its request: if it never completes, it may have been cancelled. */
  cancelCalled?: boolean;
  /**
   * The causal-order analyses' facts (causal-order/), kept on the operation so that they cost no lookup and are
   * forgotten with it: its partner in the run's matching; the causal runs whose post of it ran and whose ranks
   * wait for that post (two bits each); a send's vector clock at posting, until its receive took it (its row in
   * the clock run's slab, -1 when none, shared with its rank's other sends between two merges, and its rank's
   * own component then in `doneTime`); a receive's completion on its rank's clock and its step index there.
   */
  peer?: P2pOp;
  ran?: number;
  sentClock: number;
  doneTime?: number;
  doneIndex?: number;
}

export interface SendOp extends OpBase {
  readonly kind: 'send';
  /** Destination: world rank and communicator rank. */
  readonly dest: number;
  readonly destCommRank: number;
  readonly srcCommRank: number;
  readonly tag: number;
  readonly count: number;
  /**
   * The datatype as it was when the send was posted (handles are reused after MPI_Type_free). Not its handle: no
   * check read it, and a handle that is a pointer (Open MPI's) is a heap number per operation.
   */
  readonly dtype: DtypeInfo | undefined;
  /** A receive took it. */
  matched: boolean;
  /** The sender's side completed (blocking call returned, or its request completed). */
  done: boolean;
  /** Where its buffer's bytes start (count × type's true lower bound), NaN when unknown. */
  readonly buf: number;
  /** The engine's order counter (`nextOrder`) when the send completed; -1 while pending. */
  doneOrder: number;
}

export interface RecvOp extends OpBase {
  readonly kind: 'recv' | 'probe' | 'mprobe';
  /** Communicator rank, ANY_SOURCE or PROC_NULL as posted. */
  readonly source: number;
  readonly tag: number;
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
  /** Completed (status known); for probes: returned. */
  done: boolean;
  /** The k-th wildcard receive of its rank (1-based, spec replayClasses), for --replay-race; else absent. */
  wildcard?: number | undefined;
}

export type P2pOp = SendOp | RecvOp;

/**
 * A send's mode ('standard', 'buffered', 'synchronous', 'ready'): its function's (a persistent send's is its
 * MPI_*send_init's), not a field of every operation.
 */
export function sendMode(op: SendOp): string {
  return op.fn.mode ?? 'standard';
}

let order = 0;
/** A fresh posting order number; global so that sends and receives of all ranks interleave consistently. */
export function nextOrder(): number {
  return order++;
}
