import type { RankState } from '../engine/model/types';
import type { MessageQueueView, SessionEvents, SessionOptions } from '../session/session-api';

/** Where a raw call site lives in the source, once the session has resolved it. */
export interface SourcePlace {
  /** Absolute path, or "" when unknown (no debug info). */
  readonly file: string;
  /** 1-based; 0 when unknown. */
  readonly line: number;
  readonly function: string;
}

/**
 * What the debug adapter and the language server need from a running session. It is the session
 * class of server/src/session seen through the contract in session-api.ts, plus a few optional
 * controls: code checks for each optional method and degrades (says so) when it is missing, so the
 * adapter works against the session as it is today and gains features as the session grows them.
 */
export interface SessionPort {
  on<K extends keyof SessionEvents>(event: K, listener: SessionEvents[K]): unknown;
  /** End every process of the job; 'end' follows. */
  stop(): void | Promise<void>;
  /** Hold every rank at its next MPI call. */
  pause?(): void;
  /** Release ranks held by pause() or by a break. */
  resume?(): void;
  /**
   * Release one held rank to its next MPI call, where it is held again ('held' with reason 'pause'); the other
   * ranks stay held. Only while the job is paused.
   */
  stepRank?(rank: number): void;
  /**
   * Hold every rank when any rank enters one of these MPI functions (replaces the previous set); those also
   * in `judged` hold only the rank that entered them ('held' follows), until releaseRank or pause.
   */
  breakOn?(functions: readonly string[], judged?: readonly string[]): void;
  /** Let one held rank go on, the other ranks as they are (a judged breakpoint's hit that does not stop). */
  releaseRank?(rank: number): void;
  /** Resolve a call site (RawLocation.site) to file:line. */
  resolveSite?(rank: number, site: number): Promise<SourcePlace | undefined>;
  /** The OS process id of a rank, once it connected. */
  pid?(rank: number): number | undefined;
  /** Deeper frames of a rank's current MPI call, innermost first, when the shim captured them. */
  backtrace?(rank: number): Promise<readonly SourcePlace[]>;
  /** Every rank's pending sends, receives and unexpected messages, with call sites; undefined before the job runs. */
  messageQueues?(): Promise<MessageQueueView | undefined>;
  /** Current state of every rank that has connected. */
  rankStates?(): readonly RankState[];
}

/**
 * Starts a session. It resolves once the job is launched and rejects (UsageError: one line a person
 * can act on) when it cannot be, so a bad launch configuration fails the launch itself.
 */
export type SessionFactory = (options: SessionOptions) => SessionPort | Promise<SessionPort>;
