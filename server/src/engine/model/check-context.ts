/**
 * What a check may read and how it reports: the model of the job (ranks, communicators, groups, datatypes,
 * findings held for merging) and a report function — not the engine's whole state. A subsystem that needs
 * more says so in its own interface, extending this one with exactly the other parts it reads (one-sided's
 * `RmaContext` adds the windows and the replay, deadlock's `DeadlockContext` the matcher and the RMA
 * tracker). `EngineState` satisfies them all; the checks never import it, so no check depends on the state
 * that drives it (the rule `mpiscope/no-import-cycle` keeps it so).
 */
import type { CommRegistry } from './comms';
import type { Datatypes } from './datatypes';
import type { Groups } from './groups';
import type { HeldFindings } from './held-findings';
import type { Ownership } from './ownership';
import type { RankTrack } from './rank-track';
import type { EngineFinding } from './types';

export interface CheckContext {
  readonly comms: CommRegistry;
  readonly dtypes: Datatypes;
  readonly groups: Groups;
  /** Per-rank findings merged across ranks, released at the end of the run or at a deadlock. */
  readonly held: HeldFindings;
  /** Each rank's calls and requests, by rank. */
  readonly tracks: readonly RankTrack[];
  track(rank: number): RankTrack;
  /** MPI_COMM_WORLD's size as known so far. */
  readonly worldSize: number;
  /** Records lost in transit: findings that depend on completeness are softened. */
  readonly lost: number;
  report(f: EngineFinding): void;
  /**
   * Report `f` once `ripe()` says it is complete (every member of a collective has entered it, so every rank
   * that makes the same mistake has added its location), or at the end of the run or a deadlock; until then it
   * is pending (`isPending`) and can take more locations. The session takes findings after every frame, which
   * comes from one rank: a finding reported at once would stay with the first rank's location.
   */
  reportWhen(f: EngineFinding, ripe: () => boolean): void;
  /** The shim stopped running one of its checks on `rank` (its id, e.g. heap-slices-unchecked): the report says so. */
  shimCheckOff(check: string, rank: number): void;
  /** A bound of the engine's made a check partial (its id, e.g. coll-pairs): Engine.skippedChecks names it. */
  boundReached(id: string): void;
  /** The finding was reported and not yet taken by the session: it can still take more locations. */
  isPending(f: EngineFinding): boolean;
  /**
   * A check's own memory for the engine's lifetime (the keys of what it reported once, findings it merges),
   * under the check's name: kept by the engine, so that two engines never share it.
   */
  memory<T>(check: string, make: () => T): T;
  /** What this engine owns when the analysis is sharded (everything when it is alone). */
  readonly owns: Ownership;
  /** Run an owned check: its findings are reported even by a shard that reports nothing else. */
  asOwner(check: () => void): void;
}
