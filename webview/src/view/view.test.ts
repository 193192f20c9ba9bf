import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from '../../../server/src/timeline/synthetic-job';
import { TimelineModel } from '../../../server/src/timeline/timeline-model';
import { TimelineStore } from '../store/timeline-store';
import { describeHit } from './describe-hit';
import { drawTimeline } from './draw-timeline';
import { hitTest, segmentDistance } from './hit-test';
import { laneAt, laneTop, layoutLanes } from './lane-layout';
import { classColorVar, resolvePalette } from './palette';
import { formatDuration, formatTick, tickStep } from './time-format';
import { Viewport } from './viewport';

function jobStore(iterations = 50): TimelineStore {
  const job = syntheticJob({ ranks: 8, iterations, deadlock: true });
  const model = new TimelineModel(8, '/tmp/halo');
  for (const e of job.events) model.push(e);
  for (const f of job.findings) model.addFinding(f);
  const store = new TimelineStore();
  store.apply(model.reset());
  store.apply(model.takeBatch());
  return store;
}

/** A 2D context that only counts what is drawn: enough to check that drawing visits the visible range. */
function countingContext(): { ctx: CanvasRenderingContext2D; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const target: Record<string, unknown> = {};
  const ctx = new Proxy(target, {
    get(t, key: string) {
      if (key in t) return t[key];
      if (key === 'measureText') return (s: string) => ({ width: s.length * 6 });
      return () => calls.set(key, (calls.get(key) ?? 0) + 1);
    },
    set(t, key: string, value) {
      t[key] = value;
      return true;
    },
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

const palette = resolvePalette(() => '');

describe('viewport', () => {
  it('keeps the time under the pointer fixed when zooming, and clamps panning to the job', () => {
    const v = new Viewport();
    v.width = 1000;
    v.setExtent(0, 1e6);
    v.fit();
    const before = v.time(300);
    v.zoomAt(300, 0.5);
    assert.ok(Math.abs(v.time(300) - before) < 1e-6);
    v.panBy(1e9);
    assert.ok(v.t0 >= -v.window * 0.5 - 1);
  });
});

describe('lane layout', () => {
  it('maps lanes to y and back, and fills the height when ranks are few', () => {
    const l = layoutLanes(4, 500);
    assert.equal(l.laneHeight, 46);
    for (let r = 0; r < 4; r++) assert.equal(laneAt(l, laneTop(l, r) + 1), r);
    assert.equal(laneAt(l, 5), -1);
    const many = layoutLanes(1000, 500, 1e9);
    assert.equal(many.laneHeight, 18);
    assert.equal(laneAt(many, many.height - 1), 999);
  });
});

describe('time format', () => {
  it('picks 1-2-5 steps and tick labels that differ between neighbours', () => {
    assert.equal(tickStep(1000, 90), 100_000);
    assert.equal(formatDuration(1500), '1.50 µs');
    assert.equal(formatTick(0, 1e6), '0');
    assert.equal(formatTick(11_150_000, 10_000), '11.15 ms');
    assert.notEqual(formatTick(11_150_000, 10_000), formatTick(11_160_000, 10_000));
    assert.equal(formatTick(3_000_000, 1_000_000), '3 ms');
  });
});

describe('palette', () => {
  it('uses theme variables, falling back to Dark Modern colours', () => {
    assert.equal(classColorVar(1), 'var(--vscode-charts-blue, #3794ff)');
    assert.equal(palette.cls[1], '#3794ff');
    const themed = resolvePalette((n) => (n === '--vscode-charts-blue' ? ' #0000ff ' : ''));
    assert.equal(themed.cls[1], '#0000ff');
  });
});

describe('drawing and hit-testing', () => {
  it('draws at most a few rects per pixel column however many calls are in view', () => {
    const store = jobStore(400);
    const v = new Viewport();
    v.width = 400;
    v.setExtent(...store.extent);
    v.fit();
    const { ctx, calls } = countingContext();
    const stats = drawTimeline(ctx, store, { viewport: v, layout: layoutLanes(8, 600), palette, width: 500 });
    assert.ok(stats.spansVisited > 10_000);
    assert.ok(stats.rects < 8 * 400 * 2, `${stats.rects} rects`);
    assert.ok((calls.get('fillRect') ?? 0) > 0);
    assert.ok(stats.arrows <= 3000);
  });

  it('visits only the calls in a zoomed-in window', () => {
    const store = jobStore(400);
    const v = new Viewport();
    v.width = 400;
    v.setExtent(...store.extent);
    v.fit();
    v.zoomAt(200, 0.001);
    const { ctx } = countingContext();
    const stats = drawTimeline(ctx, store, { viewport: v, layout: layoutLanes(8, 600), palette, width: 500 });
    assert.ok(stats.spansVisited < 200, `${stats.spansVisited} visited`);
  });

  it('finds the call under the pointer and describes it with its source line', () => {
    const store = jobStore();
    const v = new Viewport();
    v.width = 1000;
    v.setExtent(...store.extent);
    const lane = store.lanes[3];
    assert.ok(lane);
    const i = 20;
    v.show(lane.start.at(i), lane.end.at(i));
    const l = layoutLanes(8, 600);
    const x = l.gutter + v.x((lane.start.at(i) + lane.end.at(i)) / 2);
    const hit = hitTest(store, v, l, x, laneTop(l, 3) + l.laneHeight / 2);
    assert.deepEqual(hit, { kind: 'span', ref: { rank: 3, index: i } });
    const text = describeHit(store, hit);
    assert.equal(text?.title, store.functionName(lane.fn.at(i)));
    assert.equal(hitTest(store, v, l, 10, 100), undefined, 'the gutter holds no calls');
  });

  it('hits the deadlocked ranks open calls and the finding markers', () => {
    const store = jobStore();
    const v = new Viewport();
    v.width = 1000;
    v.setExtent(...store.extent);
    const f = store.findings[0];
    assert.ok(f);
    v.show(f.times[0] ?? 0, store.now);
    const l = layoutLanes(8, 600);
    const marker = hitTest(store, v, l, l.gutter + v.x(f.times[1] ?? 0), laneTop(l, 1) + 2);
    assert.deepEqual(marker, { kind: 'finding', id: 0, location: 1 });
    const open = hitTest(store, v, l, l.gutter + v.x(store.now) - 2, laneTop(l, 2) + l.laneHeight / 2);
    assert.deepEqual(open, { kind: 'span', ref: { rank: 2, index: -1 } });
    assert.match(describeHit(store, open)?.lines.join(' ') ?? '', /not returned/);
  });

  it('measures distance to an arrow segment', () => {
    assert.equal(segmentDistance(5, 5, 0, 0, 10, 0), 5);
    assert.equal(segmentDistance(-3, 4, 0, 0, 10, 0), 5);
  });
});
