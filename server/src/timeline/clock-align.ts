/**
 * Puts every rank's monotonic timestamps on one axis. Each rank sends one CLOCK record (monotonic and
 * realtime read at the same instant); realtime - monotonic is that rank's offset. The origin is the earliest
 * rank's CLOCK when the model knows it (startAt), else the first realtime seen, so times start near 0. Realtime is ~1.7e18 ns, past 2^53, so alignment is good to a few
 * hundred nanoseconds — far below what a person can see on a timeline.
 *
 * A rank whose CLOCK never arrived (synthetic tests, a lost record) keeps offset 0, and the origin is then
 * taken from the first event seen, so such streams still start at 0.
 */
export class ClockAlign {
  private readonly offsets = new Map<number, number>();
  private origin: number | undefined;

  clock(rank: number, monotonic: number, realtime: number): void {
    this.offsets.set(rank, realtime - monotonic);
    if (this.origin === undefined) this.origin = realtime;
  }

  /** Sets time 0 (a realtime in ns), before any event was placed: the earliest rank's CLOCK (see StartHold). */
  startAt(realtime: number): void {
    this.origin = realtime;
  }

  /** The rank's monotonic time as nanoseconds since the origin. */
  toJob(rank: number, monotonic: number): number {
    const t = monotonic + (this.offsets.get(rank) ?? 0);
    if (this.origin === undefined) this.origin = t;
    return t - this.origin;
  }
}
