/**
 * Puts every rank's monotonic timestamps on one axis. Each rank sends one CLOCK record (monotonic and
 * realtime read at the same instant); realtime - monotonic is that rank's offset. The origin is the earliest
 * rank's CLOCK when the model knows it (startAt), else the first realtime seen, so times start near 0. Realtime is ~1.7e18 ns, past 2^53, so alignment is good to a few
 * hundred nanoseconds — far below what a person can see on a timeline.
 *
 * Realtime is only as good as the hosts' NTP, so the shim also measures each rank's clock against rank 0's by
 * ping-pongs in MPI_Init and MPI_Finalize (native-shim/src/msc_clockalign.c): its clock minus rank 0's lies in
 * [lo, hi]. The realtime alignment is kept where it lies inside (ranks of one host share the clock, and
 * realtime is then exact); otherwise the interval's middle is taken (Cristian's estimate: wrong by at most half
 * the difference between the two directions' latencies, so a message that takes at least as long as the
 * fastest ping-pong's half stays causal). With both phases the offset moves linearly between them (a clock that runs fast or slow
 * drifts); with the first only, it is constant.
 *
 * A rank whose CLOCK never arrived (synthetic tests, a lost record) keeps offset 0, and the origin is then
 * taken from the first event seen, so such streams still start at 0.
 */
interface Measured {
  /** The rank's monotonic time of the measurement and its offset against rank 0 (clamped), per phase. */
  readonly at: number;
  readonly lo: number;
  readonly hi: number;
}

export class ClockAlign {
  /** realtime - monotonic, from each rank's first CLOCK. */
  private readonly offsets = new Map<number, number>();
  private readonly measured = new Map<number, { init?: Measured; fin?: Measured }>();
  private origin: number | undefined;

  clock(
    rank: number,
    monotonic: number,
    realtime: number,
    bounds?: { readonly lo: number; readonly hi: number; readonly phase: 1 | 2 },
  ): void {
    if (!this.offsets.has(rank)) this.offsets.set(rank, realtime - monotonic);
    if (this.origin === undefined) this.origin = realtime;
    if (bounds === undefined || rank === 0 || bounds.lo > bounds.hi) return;
    const m = this.measured.get(rank) ?? {};
    const at = { at: monotonic, lo: bounds.lo, hi: bounds.hi };
    if (bounds.phase === 1) m.init = at;
    else m.fin = at;
    this.measured.set(rank, m);
  }

  /** Sets time 0 (a realtime in ns), before any event was placed: the earliest rank's CLOCK (see StartHold). */
  startAt(realtime: number): void {
    this.origin = realtime;
  }

  /** The rank's monotonic time as nanoseconds since the origin. */
  toJob(rank: number, monotonic: number): number {
    const t = monotonic + this.offsetOf(rank, monotonic);
    if (this.origin === undefined) this.origin = t;
    return t - this.origin;
  }

  /** What to add to the rank's monotonic time `t` to get realtime on rank 0's axis. */
  private offsetOf(rank: number, t: number): number {
    const own = this.offsets.get(rank) ?? 0;
    const m = this.measured.get(rank);
    const zero = this.offsets.get(0);
    if (m === undefined || zero === undefined) return own;
    // The realtime alignment says: this rank's clock minus rank 0's is zero - own; kept when a measurement allows it.
    const byRealtime = zero - own;
    const clamp = (x: Measured) =>
      byRealtime >= x.lo && byRealtime <= x.hi ? byRealtime : (x.lo + x.hi) / 2;
    const { init, fin } = m;
    let rel: number;
    if (init !== undefined && fin !== undefined && fin.at > init.at) {
      const f = (t - init.at) / (fin.at - init.at);
      rel = clamp(init) + (clamp(fin) - clamp(init)) * f;
    } else rel = clamp((init ?? fin) as Measured);
    return zero - rel;
  }
}
