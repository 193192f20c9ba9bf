/** Call classes summed per bucket (CallClass: other, send, recv, collective, wait, setup). */
export const LOD_CLASSES = 6;

/**
 * Buckets of the finest level per lane, from the rank count: the pyramid holds 2 × fine × 6 floats per lane
 * (4,096 at 64 ranks: 12 MiB), so many ranks get a coarser finest level instead of a bigger one.
 */
export function fineBuckets(ranks: number): number {
  const target = 2 ** 18 / Math.max(1, ranks);
  return 2 ** Math.min(13, Math.max(10, Math.floor(Math.log2(target))));
}

/**
 * Per-lane level-of-detail summary, so a frame with the whole job in view costs the pixels drawn, not the
 * calls in view. Level j of a lane holds, per time bucket of 2^(shift + j) ns and per call class, the
 * nanoseconds that rank spent in calls of that class there. Buckets are absolute ([b·w, (b+1)·w)), so the
 * levels of every lane line up and a coarser level's bucket is exactly two of the finer one's. Level 0 has
 * `fine` buckets and covers [0, fine · 2^shift); when the job outgrows it, every level moves down one
 * (shift + 1: the old level 1 is the new level 0) and a new top level is made, so nothing is rebuilt from
 * the calls and a call is added once, as its batch arrives (a few buckets per level: sub-pixel calls touch
 * one or two).
 */
export class LodPyramid {
  readonly fine: number;
  /** log2 of level 0's bucket width in ns (set it with cover(), which keeps `widths` in step). */
  shift = 0;
  /**
   * widths[j] = width(j), kept as cover() moves the levels: add() needs every level's width for every call
   * of a trace, and 2 ** (shift + j) computed there was a fifth of a million-event trace's ingest.
   */
  private widths: Float64Array;
  /** lanes[rank][level]: Float32Array of (fine >> level) × LOD_CLASSES. */
  lanes: Float32Array[][] = [];
  readonly levels: number;

  constructor(fine: number) {
    this.fine = fine;
    this.levels = Math.log2(fine) + 1;
    this.widths = Float64Array.from({ length: this.levels }, (_, j) => 2 ** j);
  }

  /** Bucket width of a level, in ns. */
  width(level: number): number {
    return 2 ** (this.shift + level);
  }

  /** Makes room for ranks [0, ranks). */
  grow(ranks: number): void {
    while (this.lanes.length < ranks) {
      const lane: Float32Array[] = [];
      for (let j = 0; j < this.levels; j++) lane.push(new Float32Array((this.fine >> j) * LOD_CLASSES));
      this.lanes.push(lane);
    }
  }

  /**
   * Coarsens until level 0 covers [0, t], keeping every sum (a coarse bucket = its two halves): k steps at
   * once, in place. One step makes the old level j + 1 the new level j (same bucket width, the first half of
   * its span); k steps make level j + k the new level j, so each level's array is rewritten once, whatever
   * k. (A step at a time, allocating, made the first batch of a trace, k ≈ 20 from a 1 ns level 0 to
   * seconds, allocate and zero every lane's pyramid 20 times: 0.4 s of a million-event open.) Ascending j
   * reads levels above j, not yet rewritten. The top level's one bucket stays the new top's first bucket.
   */
  cover(t: number): void {
    let k = 0;
    while (t >= this.fine * 2 ** (this.shift + k)) k++;
    if (k === 0) return;
    this.shift += k;
    for (let j = 0; j < this.levels; j++) this.widths[j] = 2 ** (this.shift + j);
    const top = this.levels - 1;
    for (const lane of this.lanes) {
      for (let j = 0; j < top; j++) {
        const to = lane[j] as Float32Array;
        const from = lane[Math.min(j + k, top)] as Float32Array;
        to.set(from);
        to.fill(0, from.length);
      }
    }
  }

  /** Adds one call [start, end] of class cls on rank; the pyramid must cover end (cover()). */
  add(rank: number, start: number, end: number, cls: number): void {
    const lane = this.lanes[rank];
    if (lane === undefined || !(end > start)) return;
    const c = cls >= 0 && cls < LOD_CLASSES ? cls : 0;
    const a = Math.max(0, start);
    const widths = this.widths;
    for (let j = 0; j < this.levels; j++) {
      const data = lane[j] as Float32Array;
      const w = widths[j] as number;
      const last = (this.fine >> j) - 1;
      const b0 = Math.min(last, Math.floor(a / w));
      const b1 = Math.min(last, Math.floor(end / w));
      const k0 = b0 * LOD_CLASSES + c;
      const k1 = b1 * LOD_CLASSES + c;
      if (b0 === b1) {
        data[k0] = (data[k0] as number) + end - a;
        continue;
      }
      data[k0] = (data[k0] as number) + (b0 + 1) * w - a;
      for (let k = k0 + LOD_CLASSES; k < k1; k += LOD_CLASSES) data[k] = (data[k] as number) + w;
      data[k1] = (data[k1] as number) + end - b1 * w;
    }
  }

  /** The coarsest level whose buckets are at most nsPerPixel wide (≥ 1 bucket per pixel); -1 when none. */
  levelFor(nsPerPixel: number): number {
    if (!(nsPerPixel >= this.width(0))) return -1;
    let j = Math.min(this.levels - 1, Math.floor(Math.log2(nsPerPixel)) - this.shift);
    while (j > 0 && this.width(j) > nsPerPixel) j--; // log2's rounding just below a power of two
    return j;
  }
}
