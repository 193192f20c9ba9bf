import type { EngineFinding, RankEvent, RankState, SkippedCheck } from './model/types';

/**
 * The engine as the session sees it. Pure: no clock, no I/O. The session feeds every decoded event in
 * arrival order (each rank's events in that rank's order; ranks interleaved arbitrarily) and asks for
 * findings.
 */
export interface Engine {
  /** Feed one event. Findings it makes certain (mismatches, misuse…) become available from takeFindings(). */
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
   * ranks (thread-level call-order) become available from takeFindings(), as complete as they got.
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
}
