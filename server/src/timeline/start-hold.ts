import type { RankEvent } from '../engine/model/types';

/** Limits of the wait for slow ranks: a rank that never calls MPI must not hide the others for long. */
const MAX_HELD = 4096;
const MAX_HOLD_NS = 2e9;

/**
 * Holds a job's first events until every rank has been heard from, so that time 0 is the earliest rank's
 * start. Each rank's first record is its CLOCK (taken at its first MPI call), but the ranks' streams arrive
 * in any order: taking the first CLOCK that arrived as the origin put the ranks that started earlier before
 * 0, outside the timeline (seen with the ring: rank 0's MPI_Init at -140 ms, cut off). A rank whose first
 * event is not a CLOCK (synthetic streams) has none coming and counts as heard.
 *
 * Released early by a finding or a rank's end (the model must place them now), when MAX_HELD events wait or
 * the job has run MAX_HOLD_NS past the earliest CLOCK, and at once for a stream without CLOCK records
 * (synthetic jobs, hand-written tests): without clocks there is nothing to align.
 */
export class StartHold {
  private held: RankEvent[] | undefined = [];
  private readonly heard = new Set<number>();
  private earliest: number | undefined;
  private readonly offsets = new Map<number, number>();

  constructor(private readonly ranks: () => number) {}

  get holding(): boolean {
    return this.held !== undefined;
  }

  /** The smallest CLOCK realtime seen before the release: the job's origin. */
  get origin(): number | undefined {
    return this.earliest;
  }

  /** The events to process now: none while holding, everything held at the release, then each as it comes. */
  push(e: RankEvent): readonly RankEvent[] {
    const held = this.held;
    if (held === undefined) return [e];
    if (held.length === 0 && e.type !== 'clock') {
      this.held = undefined;
      return [e];
    }
    held.push(e);
    if (e.type === 'clock') {
      this.earliest = Math.min(this.earliest ?? e.realtime, e.realtime);
      this.offsets.set(e.rank, e.realtime - e.time);
    }
    this.heard.add(e.rank);
    const offset = this.offsets.get(e.rank);
    const late = offset !== undefined && e.time + offset - (this.earliest ?? 0) > MAX_HOLD_NS;
    if (this.heard.size >= this.ranks() || e.type === 'end' || late || held.length >= MAX_HELD)
      return this.release();
    return [];
  }

  /** Stops holding; returns what was held (empty once released). */
  release(): readonly RankEvent[] {
    const held = this.held ?? [];
    this.held = undefined;
    return held;
  }
}
