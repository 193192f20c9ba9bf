import { LOD_CLASSES, type LodPyramid } from '../store/lod';

/**
 * Where a frame's summarised lanes go: one image over the plot, filled row by row and drawn once, so a lane
 * of a million sub-pixel calls costs one row of pixels. The webview backs it with a canvas (CanvasSurface);
 * tests record the rows.
 */
export interface LodSurface {
  /** Starts a frame: `width` × `height` CSS pixels, all transparent. */
  begin(width: number, height: number): void;
  /** Fills rows [y, y + h) with `row` (width pixels, RGBA as little-endian Uint32). */
  put(row: Uint32Array, y: number, h: number): void;
  /** Draws what was put at (x, 0) of ctx; nothing when no row was put. */
  blit(ctx: CanvasRenderingContext2D, x: number): void;
}

/** [r, g, b] and an opacity in [0, 1] as one RGBA pixel of a little-endian Uint32Array over ImageData. */
export function packPixel(rgb: readonly number[], alpha: number): number {
  const a = Math.round(Math.min(1, Math.max(0, alpha)) * 255);
  return ((a << 24) | ((rgb[2] ?? 0) << 16) | ((rgb[1] ?? 0) << 8) | (rgb[0] ?? 0)) >>> 0;
}

/** Opacity of a pixel column by the share of its time the rank spent in MPI: visible however little. */
export function busyAlpha(share: number): number {
  return share <= 0 ? 0 : 0.4 + 0.6 * Math.min(1, share);
}

/**
 * One lane's row of pixels from a pyramid level: each bucket (at most a pixel wide) is shared between the
 * one or two pixel columns it overlaps, in proportion, and a column takes the colour of the class the rank
 * spent most time in there, its opacity from the share of the column's time spent in calls (busyAlpha).
 * Idle columns stay transparent. Returns how many columns were painted.
 */
export function lodRow(
  lod: LodPyramid,
  rank: number,
  level: number,
  t0: number,
  nsPerPixel: number,
  colours: readonly (readonly number[])[],
  acc: Float64Array,
  out: Uint32Array,
): number {
  const data = lod.lanes[rank]?.[level];
  out.fill(0);
  if (data === undefined) return 0;
  const width = out.length;
  const C = LOD_CLASSES;
  acc.fill(0, 0, (width + 1) * C);
  const w = lod.width(level);
  const buckets = data.length / C;
  const b0 = Math.max(0, Math.floor(t0 / w));
  const b1 = Math.min(buckets - 1, Math.floor((t0 + width * nsPerPixel) / w));
  const bw = w / nsPerPixel; // A bucket's width in pixels, ≤ 1.
  for (let b = b0; b <= b1; b++) {
    const x = (b * w - t0) / nsPerPixel;
    const px = Math.floor(x);
    if (px < -1 || px >= width) continue;
    // The part of the bucket left of the next column boundary goes to px, the rest to px + 1.
    const f = Math.min(1, (px + 1 - x) / bw);
    const d = b * C;
    const k = px * C;
    for (let c = 0; c < C; c++) {
      const v = data[d + c] as number;
      if (v === 0) continue;
      if (px >= 0) acc[k + c] = (acc[k + c] as number) + v * f;
      acc[k + C + c] = (acc[k + C + c] as number) + v * (1 - f);
    }
  }
  let painted = 0;
  for (let px = 0; px < width; px++) {
    const k = px * C;
    let total = 0;
    let top = 0;
    let topNs = 0;
    for (let c = 0; c < C; c++) {
      const ns = acc[k + c] as number;
      total += ns;
      if (ns > topNs) {
        topNs = ns;
        top = c;
      }
    }
    if (total <= 0) continue;
    out[px] = packPixel(colours[top] ?? [128, 128, 128], busyAlpha(total / nsPerPixel));
    painted++;
  }
  return painted;
}

/** LodSurface on an offscreen canvas: one putImageData and one drawImage per frame. */
export class CanvasSurface implements LodSurface {
  private canvas: HTMLCanvasElement | undefined;
  private image: ImageData | undefined;
  private pixels = new Uint32Array(0);
  private rows: [number, number] = [Infinity, -Infinity];

  begin(width: number, height: number): void {
    const w = Math.max(1, Math.floor(width));
    const h = Math.max(1, Math.floor(height));
    if (this.image === undefined || this.image.width !== w || this.image.height !== h) {
      this.image = new ImageData(w, h);
      this.pixels = new Uint32Array(this.image.data.buffer);
      this.canvas ??= document.createElement('canvas');
      this.canvas.width = w;
      this.canvas.height = h;
    } else if (this.rows[0] <= this.rows[1]) {
      // Only the rows the previous frame used are dirty.
      this.pixels.fill(0, this.rows[0] * w, (this.rows[1] + 1) * w);
    }
    this.rows = [Infinity, -Infinity];
  }

  put(row: Uint32Array, y: number, h: number): void {
    const image = this.image;
    if (image === undefined) return;
    const w = image.width;
    const from = Math.max(0, Math.floor(y));
    const to = Math.min(image.height, Math.floor(y + h));
    const src = row.length > w ? row.subarray(0, w) : row;
    for (let r = from; r < to; r++) this.pixels.set(src, r * w);
    if (from < to) this.rows = [Math.min(this.rows[0], from), Math.max(this.rows[1], to - 1)];
  }

  blit(ctx: CanvasRenderingContext2D, x: number): void {
    const image = this.image;
    const canvas = this.canvas;
    const [a, b] = this.rows;
    if (image === undefined || canvas === undefined || a > b) return;
    // Only the band of rows in use is uploaded and drawn.
    canvas.getContext('2d')?.putImageData(image, 0, 0, 0, a, image.width, b - a + 1);
    const smoothing = ctx.imageSmoothingEnabled;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(canvas, 0, a, image.width, b - a + 1, x, a, image.width, b - a + 1);
    ctx.imageSmoothingEnabled = smoothing;
  }
}
