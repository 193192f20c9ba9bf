import type { RecordColumns } from '../protocol/columns';
import type { EngineFinding, RankEvent, RankState, SkippedCheck } from './model/types';
import type { MessageQueues } from './point-to-point/message-queues';

/**
 * The engine as the session sees it. Pure: no clock, no I/O. The session feeds every decoded event in
 * arrival order (each rank's events in that rank's order; ranks interleaved arbitrarily) and asks for
 * findings.
 */
export interface Engine {
  /**
   * Feed one binary frame of one rank, as the shim sent it: the engine decodes it into its own columns (one row
   * per call, typed arrays, no object per record) with a decoder per rank, since a call may straddle two frames,
   * and runs every whole call. Throws DecodeError when the frame breaks the format; nothing of that frame is
   * fed then, and that rank must not be fed again (close its connection). Findings it makes certain
   * (mismatches, misuse…) become available from takeFindings().
   */
  pushRecords(rank: number, frame: Uint8Array): void;
  /**
   * Feed calls already decoded into columns (rows from..to-1, every rank's rows in that rank's order), for a
   * caller that decodes itself (the session, which also writes the timeline from the rows). The engine reads
   * them during the call only: the caller may clear and refill the columns afterwards.
   */
  pushColumns(cols: RecordColumns, from?: number, to?: number): void;
  /**
   * Feed one event object (tests' synthetic streams, the session's END for a connection closed without one):
   * it becomes a row (protocol/append-event.ts) and takes the same path as pushRecords. Not for the hot path.
   */
  push(event: RankEvent): void;
  /** Findings made since the last call. */
  takeFindings(): EngineFinding[];
  /**
   * Is there a set of blocked ranks that nothing can release, given everything pushed so far? The session
   * calls this when the job has been quiet for a short while; the engine must not report a rank that an
   * already-posted operation (a pending send, a running rank that could still send) can release. When it finds
   * one, findings held to be merged across ranks until the end of the run (thread-level call-order) become
   * available from takeFindings(), since the job is ended without finish().
   */
  findDeadlock(): EngineFinding | undefined;
  /** End-of-run checks (unmatched messages, leaks, missing finalize…), once, after every rank ended. */
  finish(): EngineFinding[];
  /**
   * The job is ended without finish() (no progress, or the user stopped it): findings held to be merged across
   * ranks (thread-level call-order) and the one-sided epoch rules broken so far become available from
   * takeFindings(), as complete as they got.
   */
  releaseHeld(): void;
  /** Each rank's current state. */
  rankStates(): RankState[];
  /** Records the shims dropped (their ring was full): the checks that need every record were skipped. */
  lostRecords(): number;
  /**
   * The checks that did not run, or ran on part of the run, and why (records lost, a memory bound reached,
   * threads in MPI at once). Complete after finish(); the session puts it in the report, the JSON and the
   * editor's status, so that no check is silently off.
   */
  skippedChecks(): SkippedCheck[];
  /**
   * Every rank's pending sends, pending receives and unexpected messages now, and who waits for whom (the
   * debugger's message-queue view while the job is paused; point-to-point/message-queues.ts).
   */
  messageQueues(): MessageQueues;
}

/**
 * What the shard coordinator (server/src/shards/router.ts) reads of the model to route a call to the shards
 * that own what it touches, answered from the rows pushed so far. Never changes the model.
 */
export interface EngineRouting {
  /** The world rank that `rank` names `peer` in its communicator handle `comm`, or undefined when either is unknown. */
  peerWorld(rank: number, comm: number, peer: number): number | undefined;
  /** The global identity (`CommInfo.key`) of `rank`'s communicator handle `comm`, or undefined when unknown. */
  commKey(rank: number, comm: number): string | undefined;
}
