/** Shortest window a person can zoom into: 50 ns across the whole plot. */
const MIN_WINDOW = 50;
/** Pixels kept free right of the job's end when fitting: room for the deadlock ring and its label. */
const RIGHT_MARGIN = 130;

/**
 * The visible time window [t0, t1] mapped onto `width` pixels of plot. Zoom keeps the time under the
 * pointer fixed; pan moves by pixels; both clamp so the job never scrolls out of sight.
 */
export class Viewport {
  t0 = 0;
  t1 = 1;
  width = 1;
  /** The job's extent [0, end]: limits for pan and zoom-out. */
  private extent: [number, number] = [0, 1];

  get window(): number {
    return this.t1 - this.t0;
  }

  x(t: number): number {
    return ((t - this.t0) / this.window) * this.width;
  }

  time(x: number): number {
    return this.t0 + (x / this.width) * this.window;
  }

  /** Nanoseconds per pixel. */
  get nsPerPixel(): number {
    return this.window / Math.max(1, this.width);
  }

  setExtent(start: number, end: number): void {
    this.extent = [start, Math.max(end, start + 1)];
  }

  /** Shows the whole job, keeping RIGHT_MARGIN pixels free on the right for the deadlock ring. */
  fit(): void {
    const [a, b] = this.extent;
    const plot = Math.max(1, this.width - RIGHT_MARGIN);
    this.t0 = a;
    this.t1 = b + ((b - a) * RIGHT_MARGIN) / plot;
  }

  /** factor < 1 zooms in, > 1 zooms out, around the time at pixel x. */
  zoomAt(x: number, factor: number): void {
    const anchor = this.time(x);
    const span = this.extent[1] - this.extent[0];
    const window = Math.min(Math.max(this.window * factor, MIN_WINDOW), span * 1.5);
    const ratio = x / this.width;
    this.t0 = anchor - ratio * window;
    this.t1 = this.t0 + window;
    this.clamp();
  }

  panBy(dx: number): void {
    const dt = dx * this.nsPerPixel;
    this.t0 -= dt;
    this.t1 -= dt;
    this.clamp();
  }

  /** Centres [a, b] with some context around it (used to jump to a finding). */
  show(a: number, b: number): void {
    const window = Math.max(b - a, MIN_WINDOW) * 2;
    this.t0 = a - window * 0.3;
    this.t1 = this.t0 + window;
    this.clamp();
  }

  private clamp(): void {
    const [a, b] = this.extent;
    const w = this.window;
    const margin = w * 0.5;
    if (this.t0 < a - margin) {
      this.t0 = a - margin;
      this.t1 = this.t0 + w;
    }
    if (this.t1 > b + margin) {
      this.t1 = b + margin;
      this.t0 = this.t1 - w;
    }
  }
}
