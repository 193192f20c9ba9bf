import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LayerCache } from './layer-cache';

/** A canvas and 2D context that record what is done to them (no DOM in the unit tier). */
function fakes(dpr = 2) {
  const drawn: unknown[][] = [];
  const layerCtx = { setTransform: () => undefined };
  const layer = { width: 0, height: 0, getContext: () => layerCtx };
  const frame = {
    getTransform: () => ({ a: dpr }),
    drawImage: (...args: unknown[]) => void drawn.push(args),
  };
  return {
    layer: layer as unknown as HTMLCanvasElement,
    frame: frame as unknown as CanvasRenderingContext2D,
    layerCtx,
    drawn,
  };
}

describe('LayerCache', () => {
  it('paints a layer once per key and copies it into every frame', () => {
    const f = fakes();
    const cache = new LayerCache(() => f.layer);
    const painted: unknown[] = [];
    const paint = (ctx: CanvasRenderingContext2D): void => void painted.push(ctx);
    cache.draw(f.frame, 'lanes 0-30', 92, 800, paint);
    cache.draw(f.frame, 'lanes 0-30', 92, 800, paint);
    assert.equal(painted.length, 1, 'the same key is not painted again');
    assert.equal(painted[0], f.layerCtx, 'painted offscreen');
    assert.deepEqual([f.layer.width, f.layer.height], [184, 1600], 'at the device pixel ratio');
    assert.deepEqual(f.drawn, [
      [f.layer, 0, 0, 92, 800],
      [f.layer, 0, 0, 92, 800],
    ]);
    cache.draw(f.frame, 'lanes 1-31', 92, 800, paint);
    assert.equal(painted.length, 2, 'a new key paints again');
    cache.draw(f.frame, 'lanes 1-31', 92, 700, paint);
    assert.equal(painted.length, 3, 'so does a new size');
    assert.equal(f.layer.height, 1400);
  });

  it('paints into the frame itself when there is no offscreen context', () => {
    const f = fakes(1);
    const bare = { width: 0, height: 0, getContext: () => null } as unknown as HTMLCanvasElement;
    const cache = new LayerCache(() => bare);
    const painted: unknown[] = [];
    cache.draw(f.frame, 'k', 10, 10, (ctx) => void painted.push(ctx));
    cache.draw(f.frame, 'k', 10, 10, (ctx) => void painted.push(ctx));
    assert.deepEqual(painted, [f.frame, f.frame]);
    assert.deepEqual(f.drawn, []);
  });
});
