/**
 * A layer of the timeline that changes rarely (the gutter's rank names and state marks), drawn once into an
 * offscreen canvas and copied into each frame while its key is the same. Text is the costly part of a frame
 * drawn by software (fillText was a fifth of the frames' self time with the whole job in view, most of it the
 * gutter's two texts per lane, redrawn at every pan and zoom although they only change with the lanes in
 * view, their state or the theme).
 */
export class LayerCache {
  private canvas: HTMLCanvasElement | undefined;
  private key = '';

  constructor(private readonly create = (): HTMLCanvasElement => document.createElement('canvas')) {}

  /**
   * Copies the layer of `key` into `ctx` at (0, 0), `width` × `height` CSS pixels, drawing it first with
   * `paint` when the key changed. `ctx`'s current transform gives the device pixel ratio.
   */
  draw(
    ctx: CanvasRenderingContext2D,
    key: string,
    width: number,
    height: number,
    paint: (layer: CanvasRenderingContext2D) => void,
  ): void {
    const dpr = ctx.getTransform().a || 1;
    const w = Math.max(1, Math.round(width * dpr));
    const h = Math.max(1, Math.round(height * dpr));
    const full = `${key}|${w}x${h}`;
    this.canvas ??= this.create();
    const layer = this.canvas;
    if (this.key !== full || layer.width !== w || layer.height !== h) {
      layer.width = w;
      layer.height = h;
      const lctx = layer.getContext('2d');
      if (lctx === null) {
        // No offscreen drawing here: paint into the frame itself.
        paint(ctx);
        return;
      }
      lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      paint(lctx);
      this.key = full;
    }
    ctx.drawImage(layer, 0, 0, width, height);
  }
}
