import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from '../../../server/src/timeline/synthetic-job';
import { TimelineModel } from '../../../server/src/timeline/timeline-model';
import { busyAlpha, lodRow, packPixel, type LodSurface } from '../view/lod-paint';
import { drawTimeline } from '../view/draw-timeline';
import { layoutLanes } from '../view/lane-layout';
import { minimapPixels, parseColour } from '../view/minimap';
import { resolvePalette } from '../view/palette';
import { Viewport } from '../view/viewport';
import { fineBuckets, LOD_CLASSES, LodPyramid } from './lod';
import { TimelineStore } from './timeline-store';

/** A deterministic pseudo-random sequence (the test must not pass by luck of a seed). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Nanoseconds of [s, e] inside [a, b). */
function overlap(s: number, e: number, a: number, b: number): number {
  return Math.max(0, Math.min(e, b) - Math.max(s, a));
}

const palette = resolvePalette(() => '');
const colours = palette.cls.map(parseColour);

describe('LodPyramid', () => {
  it('holds, at every level and bucket, the time spent per class, through coarsenings as the job grows', () => {
    const lod = new LodPyramid(64);
    lod.grow(2);
    const calls: [number, number, number, number][] = [];
    const next = rng(7);
    let t = 0;
    // Calls from tens of ns to a long one, over a job that outgrows level 0 many times (cover per batch).
    for (let batch = 0; batch < 40; batch++) {
      const batchCalls: [number, number, number, number][] = [];
      for (let i = 0; i < 25; i++) {
        const rank = i % 2;
        const d = next() < 0.05 ? 50_000 * next() : 10 + 400 * next();
        const start = t + 30 * next();
        batchCalls.push([rank, start, start + d, Math.floor(next() * LOD_CLASSES)]);
        t = start + d + 5 * next();
      }
      lod.cover(Math.max(...batchCalls.map((c) => c[2])));
      for (const [rank, s, e, cls] of batchCalls) lod.add(rank, s, e, cls);
      calls.push(...batchCalls);
    }
    assert.ok(lod.shift >= 10, `coarsened ${lod.shift} times`);
    assert.ok(lod.fine * lod.width(0) > t && (lod.fine / 2) * lod.width(0) <= t);
    for (let rank = 0; rank < 2; rank++) {
      for (let j = 0; j < lod.levels; j++) {
        const data = lod.lanes[rank]?.[j];
        assert.ok(data);
        assert.equal(data.length, (lod.fine >> j) * LOD_CLASSES);
        const w = lod.width(j);
        for (let b = 0; b < data.length / LOD_CLASSES; b++) {
          for (let c = 0; c < LOD_CLASSES; c++) {
            let want = 0;
            for (const [r, s, e, cls] of calls)
              if (r === rank && cls === c) want += overlap(s, e, b * w, (b + 1) * w);
            const got = data[b * LOD_CLASSES + c] ?? NaN;
            assert.ok(
              Math.abs(got - want) <= 1e-4 * Math.max(w, want),
              `level ${j} bucket ${b}: ${got} ≠ ${want}`,
            );
          }
        }
      }
    }
  });

  it('coarsens many levels at once to the same sums as one level at a time', () => {
    const once = new LodPyramid(32);
    const steps = new LodPyramid(32);
    for (const lod of [once, steps]) {
      lod.grow(2);
      lod.cover(1000);
      lod.add(0, 3, 700, 1);
      lod.add(1, 100, 990, 2);
      lod.add(1, 0, 40, 4);
    }
    once.cover(5e6);
    for (let t = 2000; t < 5e6; t *= 2) steps.cover(t);
    steps.cover(5e6);
    assert.ok(once.shift - 5 > Math.log2(1000 / 32), 'several levels in one cover');
    assert.equal(once.shift, steps.shift);
    assert.deepEqual(once.lanes, steps.lanes);
  });

  it('picks the coarsest level with buckets no wider than a pixel, none when zoomed in past level 0', () => {
    const lod = new LodPyramid(1024);
    lod.cover(3e9);
    assert.equal(lod.levelFor(lod.width(0) / 2), -1);
    assert.equal(lod.levelFor(lod.width(0)), 0);
    for (const npp of [lod.width(3) * 1.9, lod.width(3), lod.width(4) - 1e-6]) {
      assert.equal(lod.levelFor(npp), 3, `${npp} ns per pixel`);
    }
    assert.equal(lod.levelFor(1e15), lod.levels - 1);
    assert.equal(fineBuckets(64), 4096);
    assert.equal(fineBuckets(100_000), 1024);
    assert.equal(fineBuckets(1), 8192);
  });
});

describe('lodRow', () => {
  const lod = new LodPyramid(1024);
  lod.grow(1);
  lod.cover(10_000);
  // Four blocks of 1280 ns: sends back to back (busy); one recv of 12.8 ns per 128 ns (10 % busy);
  // idle; per 128 ns a wait of 96 ns and a send of 16 (87.5 % busy, wait the busiest).
  for (let s = 0; s < 1280; s += 20) lod.add(0, s, s + 20, 1);
  for (let s = 1280; s < 2560; s += 128) lod.add(0, s, s + 12.8, 2);
  for (let s = 3840; s < 5120; s += 128) {
    lod.add(0, s, s + 96, 4);
    lod.add(0, s + 96, s + 112, 1);
  }
  const alphaOf = (px: number): number => ((px >>> 24) & 255) / 255;

  it('colours each column by its busiest class, shaded by how busy, and leaves idle columns clear', () => {
    const width = 40;
    const level = lod.levelFor(128);
    assert.equal(lod.width(level), 128);
    const row = new Uint32Array(width);
    const painted = lodRow(lod, 0, level, 0, 128, colours, new Float64Array((width + 1) * 6), row);
    assert.equal(painted, 30);
    for (let px = 0; px < 10; px++) assert.equal(row[px], packPixel(colours[1] ?? [], 1), `column ${px}`);
    for (let px = 10; px < 20; px++) assert.equal(row[px], packPixel(colours[2] ?? [], busyAlpha(0.1)));
    for (let px = 20; px < 30; px++) assert.equal(row[px], 0, `idle column ${px}`);
    for (let px = 30; px < 40; px++) assert.equal(row[px], packPixel(colours[4] ?? [], busyAlpha(0.875)));
  });

  it('shares buckets between the columns they straddle when pixels and buckets do not line up', () => {
    const width = 60;
    const npp = 5120 / 55; // 93 ns: buckets of 64 ns straddle column boundaries.
    const level = lod.levelFor(npp);
    assert.equal(lod.width(level), 64);
    const row = new Uint32Array(width);
    lodRow(lod, 0, level, 0, npp, colours, new Float64Array((width + 1) * 6), row);
    const col = (t: number): number => Math.floor(t / npp);
    for (let px = 0; px < col(1280) - 1; px++) assert.equal(row[px], packPixel(colours[1] ?? [], 1));
    for (let px = col(1280) + 1; px < col(2560) - 1; px++) {
      assert.equal((row[px] ?? 0) & 0xffffff, packPixel(colours[2] ?? [], 0) & 0xffffff, `recv at ${px}`);
      assert.ok(Math.abs(alphaOf(row[px] ?? 0) - busyAlpha(0.1)) < 0.08, `column ${px} about 10 % busy`);
    }
    for (let px = col(2560) + 1; px < col(3840); px++) assert.equal(row[px], 0, `idle column ${px}`);
    for (let px = col(3840) + 1; px < col(5120) - 1; px++) {
      assert.equal((row[px] ?? 0) & 0xffffff, packPixel(colours[4] ?? [], 0) & 0xffffff, `wait at ${px}`);
      assert.ok(Math.abs(alphaOf(row[px] ?? 0) - busyAlpha(0.875)) < 0.1, `column ${px} about 88 % busy`);
    }
    for (let px = col(5120) + 2; px < width; px++) assert.equal(row[px], 0);
  });
});

function jobStore(iterations: number): TimelineStore {
  const job = syntheticJob({ ranks: 8, iterations, deadlock: true });
  const model = new TimelineModel(8, '/tmp/halo');
  const store = new TimelineStore();
  store.apply(model.reset());
  job.events.forEach((e, i) => {
    model.push(e);
    if (i % 997 === 996) store.apply(model.takeBatch());
  });
  for (const f of job.findings) model.addFinding(f);
  store.apply(model.takeBatch());
  return store;
}

/** Records the rows put, per y. */
class RecordingSurface implements LodSurface {
  rows = new Map<number, Uint32Array>();
  blits = 0;
  begin(): void {
    this.rows.clear();
  }
  put(row: Uint32Array, y: number): void {
    this.rows.set(y, row.slice());
  }
  blit(): void {
    this.blits++;
  }
}

/** A 2D context that draws nothing: these tests look at what goes to the surface. */
function countingContext(): CanvasRenderingContext2D {
  const target: Record<string, unknown> = {};
  return new Proxy(target, {
    get(t, key: string) {
      if (key in t) return t[key];
      if (key === 'measureText') return (s: string) => ({ width: s.length * 6 });
      return () => undefined;
    },
    set(t, key: string, value) {
      t[key] = value;
      return true;
    },
  }) as unknown as CanvasRenderingContext2D;
}

describe('drawing from the summary', () => {
  it('draws the whole job as a row per lane, a column painted exactly where the rank was in a call', () => {
    const store = jobStore(400);
    const v = new Viewport();
    v.width = 400;
    v.setExtent(...store.extent);
    v.fit();
    const l = layoutLanes(8, 600);
    const surface = new RecordingSurface();
    const stats = drawTimeline(countingContext(), store, {
      viewport: v,
      layout: l,
      palette,
      width: 492,
      lod: surface,
    });
    assert.equal(stats.lodLanes, 8);
    assert.equal(stats.spansVisited, 0, 'no lane visited call by call');
    assert.equal(surface.blits, 1);
    assert.equal(surface.rows.size, 8);
    let checked = 0;
    store.lanes.forEach((lane, rank) => {
      const row = surface.rows.get(l.axisHeight - l.scrollY + rank * l.laneHeight + 3);
      assert.ok(row, `row of rank ${rank}`);
      // Time in calls per column, from the calls themselves; `reach` also counts a bucket either side of the
      // column, as a bucket's time is spread over the columns it straddles.
      const w = store.lod.width(store.lod.levelFor(v.nsPerPixel));
      const busy = new Float64Array(row.length);
      const reach = new Float64Array(row.length);
      for (let i = 0; i < lane.length; i++) {
        const a = lane.start.at(i);
        const b = lane.end.at(i);
        const from = Math.max(0, Math.floor(v.x(a - w)));
        for (let px = from; px <= Math.min(row.length - 1, Math.floor(v.x(b + w))); px++) {
          busy[px] = (busy[px] as number) + overlap(a, b, v.time(px), v.time(px + 1));
          reach[px] = (reach[px] as number) + overlap(a, b, v.time(px) - w, v.time(px + 1) + w);
        }
      }
      for (let px = 1; px < row.length - 1; px++) {
        if ((row[px] ?? 0) !== 0)
          assert.ok((reach[px] as number) > 0, `rank ${rank} column ${px} painted, idle`);
        if ((busy[px] as number) > w)
          assert.notEqual(row[px], 0, `rank ${rank} column ${px} busy, not painted`);
        checked++;
      }
    });
    assert.ok(checked > 3000);
  });

  it('draws call by call when zoomed in past the finest level, or when a lane has few calls in view', () => {
    const store = jobStore(400);
    const v = new Viewport();
    v.width = 400;
    v.setExtent(...store.extent);
    v.fit();
    v.zoomAt(200, 0.0005);
    const surface = new RecordingSurface();
    const stats = drawTimeline(countingContext(), store, {
      viewport: v,
      layout: layoutLanes(8, 600),
      palette,
      width: 492,
      lod: surface,
    });
    assert.equal(stats.lodLanes, 0);
    assert.ok(stats.spansVisited > 0);
    assert.equal(surface.rows.size, 0);
  });
});

describe('minimap from the summary', () => {
  it('matches the minimap built from every call, to within the smearing of one bucket', () => {
    const store = jobStore(400);
    const end = store.extent[1];
    const summary = minimapPixels(store, 300, 36, palette, end);
    // The same store without a pyramid: the minimap is built call by call.
    const pyramid = store.lod;
    store.lod = new LodPyramid(1024);
    const calls = minimapPixels(store, 300, 36, palette, end);
    store.lod = pyramid;
    assert.ok(store.lod.levelFor(end / 300) >= 0, 'the summary was used');
    // A bucket's time is spread evenly over the columns it straddles, so a column's busy share can be off
    // by part of a bucket (a few levels of opacity), and where two classes are nearly even the busiest can
    // differ; the picture must stay the same at a glance.
    let sum = 0;
    let close = 0;
    for (let i = 0; i < calls.length; i++) {
      const d = Math.abs((summary[i] ?? 0) - (calls[i] ?? 0));
      sum += d;
      if (d <= 16) close++;
    }
    assert.ok(sum / calls.length < 4, `mean channel difference ${sum / calls.length}`);
    assert.ok(close / calls.length > 0.95, `${close} of ${calls.length} channels within 16`);
    // And an empty pyramid would not pass: the test compares two real pictures.
    const blank = minimapPixels(new TimelineStore(), 300, 36, palette, end);
    let blankSum = 0;
    for (let i = 0; i < calls.length; i++) blankSum += Math.abs((blank[i] ?? 0) - (calls[i] ?? 0));
    assert.ok(blankSum / calls.length > 20);
  });
});

describe('minimap of calls still in progress', () => {
  /** Two ranks busy in sends until 1 µs; then rank 0 blocks in a receive (deadlock) and rank 1 is idle until 4 µs. */
  function blockedStore(deadlock: boolean): TimelineStore {
    const store = new TimelineStore();
    store.apply({ type: 'reset', ranks: 2, program: '/tmp/blocked' });
    store.apply({
      type: 'data',
      seq: 0,
      ranks: 2,
      now: 4000,
      functions: [
        { id: 1, name: 'MPI_Send', cls: 1 },
        { id: 2, name: 'MPI_Recv', cls: 2 },
      ],
      sites: [],
      spans: { rank: [0, 1], start: [0, 0], end: [1000, 1000], fn: [1, 1], site: [-1, -1], comm: [0, 0] },
      messages: { src: [], sendTime: [], dst: [], recvTime: [], bytes: [], tag: [] },
      findings: deadlock
        ? [
            {
              id: 1,
              kind: 'deadlock',
              severity: 'error',
              message: 'Deadlock: rank 0 waits in MPI_Recv for rank 1',
              locations: [{ rank: 0, file: '', line: 0, call: 'MPI_Recv', detail: '' }],
              times: [1000],
            },
          ]
        : [],
      open: [{ rank: 0, start: 1000, fn: 2, site: -1, comm: 0 }],
      ended: false,
    });
    return store;
  }
  const pixel = (px: Uint8ClampedArray, w: number, row: number, col: number): [number, number, number] => {
    const k = (row * w + col) * 4;
    return [px[k] ?? -1, px[k + 1] ?? -1, px[k + 2] ?? -1];
  };

  it('keeps a blocked call busy up to the end of the job, in the blocked colour, and only on its rank', () => {
    const w = 100;
    const px = minimapPixels(blockedStore(true), w, 36, palette, 4000);
    const blocked = parseColour(palette.blocked);
    const send = colours[1];
    const bg = parseColour(palette.background);
    // Rank 0's rows are 0-17, rank 1's 18-35; 1 µs of 4 is columns 0-24.
    assert.deepEqual(pixel(px, w, 5, 10), send, 'rank 0 sending');
    assert.deepEqual(pixel(px, w, 25, 10), send, 'rank 1 sending');
    for (const col of [30, 60, 99]) {
      assert.deepEqual(pixel(px, w, 5, col), blocked, `rank 0 blocked at column ${col}`);
      assert.deepEqual(pixel(px, w, 25, col), bg, `rank 1 idle at column ${col}`);
    }
  });

  it('draws a call in progress on a rank no deadlock names in its own class', () => {
    const w = 100;
    const px = minimapPixels(blockedStore(false), w, 36, palette, 4000);
    assert.deepEqual(pixel(px, w, 5, 60), colours[2], 'rank 0 in its receive');
  });
});
