import type { OpenCall, TimelineFinding } from '../../../server/src/timeline/timeline-protocol';
import { LOD_CLASSES } from '../store/lod';
import type { TimelineStore } from '../store/timeline-store';
import { visibleRange } from '../store/search';
import { laneTop, visibleRanks, type LaneLayout } from './lane-layout';
import type { LayerCache } from './layer-cache';
import { lodRow, type LodSurface } from './lod-paint';
import { parseColour } from './minimap';
import type { Palette } from './palette';
import { formatTick, tickStep } from './time-format';
import type { Viewport } from './viewport';

/** Arrows past this many in view are thinned (every k-th drawn): beyond it they are a solid smear anyway. */
export const MAX_ARROWS = 3000;

export interface SpanRef {
  readonly rank: number;
  /** Index in the rank's lane, or -1 for the rank's open call. */
  readonly index: number;
}

export interface TimelineView {
  readonly viewport: Viewport;
  readonly layout: LaneLayout;
  readonly palette: Palette;
  readonly width: number;
  readonly selected?: SpanRef | undefined;
  readonly hovered?: SpanRef | undefined;
  /** A finding whose locations are emphasised (picked in the list). */
  readonly focusFinding?: number | undefined;
  /** Function ids the search matches: their calls are marked, the others dimmed. Empty: no search. */
  readonly match?: ReadonlySet<number> | undefined;
  /**
   * Where lanes whose calls are narrower than a pixel are drawn from the store's level-of-detail pyramid
   * (one row of pixels per lane); without it every lane is drawn call by call.
   */
  readonly lod?: LodSurface | undefined;
  /** Where the gutter (rank names, state marks) is kept between frames; without it, drawn every frame. */
  readonly gutterLayer?: LayerCache | undefined;
}

export interface DrawStats {
  spansVisited: number;
  rects: number;
  arrows: number;
  arrowsInView: number;
  labels: number;
  collectives: number;
  matches: number;
  /** Lanes drawn from the level-of-detail summary instead of call by call. */
  lodLanes: number;
}

/** Per frame: the pyramid level in use and the buffers its rows are built in. */
interface LodFrame {
  readonly surface: LodSurface;
  readonly level: number;
  readonly colours: readonly (readonly number[])[];
  readonly acc: Float64Array;
  readonly row: Uint32Array;
}

let lodBuffers = { acc: new Float64Array(0), row: new Uint32Array(0) };

function lodFrame(store: TimelineStore, v: TimelineView): LodFrame | undefined {
  const surface = v.lod;
  if (surface === undefined) return undefined;
  const level = store.lod.levelFor(v.viewport.nsPerPixel);
  if (level < 0) return undefined;
  const w = Math.max(1, Math.floor(v.width - v.layout.gutter));
  if (lodBuffers.row.length !== w)
    lodBuffers = { acc: new Float64Array((w + 1) * LOD_CLASSES), row: new Uint32Array(w) };
  surface.begin(w, v.layout.height);
  return { surface, level, colours: v.palette.cls.map(parseColour), ...lodBuffers };
}

/** Ranks named by a deadlock finding: their open calls are drawn as blocked. */
export function blockedRanks(findings: readonly TimelineFinding[]): Set<number> {
  const out = new Set<number>();
  for (const f of findings) if (f.kind === 'deadlock') for (const l of f.locations) out.add(l.rank);
  return out;
}

/** Draws the whole timeline for the view. Only the visible ranks and the visible time window are visited. */
export function drawTimeline(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
): DrawStats {
  const stats: DrawStats = {
    spansVisited: 0,
    rects: 0,
    arrows: 0,
    arrowsInView: 0,
    labels: 0,
    collectives: 0,
    matches: 0,
    lodLanes: 0,
  };
  const { layout: l, palette: p } = v;
  ctx.fillStyle = p.background;
  ctx.fillRect(0, 0, v.width, l.height);
  const [r0, r1] = visibleRanks(l);
  for (let r = r0; r < r1; r++) {
    if (r % 2 === 1) {
      ctx.fillStyle = p.laneAlt;
      ctx.fillRect(l.gutter, laneTop(l, r), v.width - l.gutter, l.laneHeight);
    }
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(l.gutter, l.axisHeight, v.width - l.gutter, l.height - l.axisHeight);
  ctx.clip();
  drawGrid(ctx, v);
  const blocked = blockedRanks(store.findings);
  const lod = lodFrame(store, v);
  for (let r = r0; r < r1; r++) drawLane(ctx, store, v, r, stats, lod);
  lod?.surface.blit(ctx, l.gutter);
  if (p.contrast !== '') drawLaneBorders(ctx, v, r0, r1);
  drawCollectives(ctx, store, v, r0, r1, stats);
  if (v.match !== undefined && v.match.size > 0) {
    // Everything dimmed, then the matches drawn again on top: the search reads at any zoom.
    ctx.globalAlpha = 0.6;
    ctx.fillStyle = p.background;
    ctx.fillRect(l.gutter, l.axisHeight, v.width - l.gutter, l.height - l.axisHeight);
    ctx.globalAlpha = 1;
    for (let r = r0; r < r1; r++) drawMatches(ctx, store, v, r, v.match, stats);
  }
  for (const o of store.open)
    if (o.rank >= r0 && o.rank < r1) drawOpen(ctx, store, v, o, blocked.has(o.rank));
  drawMessages(ctx, store, v, r0, r1, stats);
  for (const f of store.findings) drawFinding(ctx, store, v, f, f.id === v.focusFinding);
  if (v.hovered) outline(ctx, store, v, v.hovered, p.foreground, 1);
  if (v.selected) outline(ctx, store, v, v.selected, p.selection, 2);
  ctx.restore();
  drawAxis(ctx, v);
  const layer = v.gutterLayer;
  if (layer === undefined) drawGutter(ctx, store, v, r0, r1, blocked);
  else {
    // What the gutter shows: the lanes in view and where, each lane's state mark, the theme.
    const marks: string[] = [];
    for (let r = r0; r < r1; r++)
      marks.push(blocked.has(r) ? 'b' : store.open.some((o) => o.rank === r) ? 'o' : '');
    const key = [
      r0,
      r1,
      laneTop(l, r0),
      l.laneHeight,
      l.axisHeight,
      l.gutter,
      l.height,
      marks.join(','),
      p.background,
      p.border,
      p.foreground,
      p.blocked,
      p.muted,
      p.font,
    ];
    layer.draw(ctx, key.join('|'), l.gutter, l.height, (g) => drawGutter(g, store, v, r0, r1, blocked));
  }
  return stats;
}

function plotX(v: TimelineView, t: number): number {
  return v.layout.gutter + v.viewport.x(t);
}

function drawGrid(ctx: CanvasRenderingContext2D, v: TimelineView): void {
  const step = tickStep(v.viewport.nsPerPixel);
  ctx.fillStyle = v.palette.grid;
  for (let t = Math.ceil(v.viewport.t0 / step) * step; t <= v.viewport.t1; t += step) {
    ctx.fillRect(Math.round(plotX(v, t)), v.layout.axisHeight, 1, v.layout.height - v.layout.axisHeight);
  }
}

function drawAxis(ctx: CanvasRenderingContext2D, v: TimelineView): void {
  const { layout: l, palette: p } = v;
  ctx.fillStyle = p.background;
  ctx.fillRect(0, 0, v.width, l.axisHeight);
  ctx.fillStyle = p.border;
  ctx.fillRect(0, l.axisHeight - 1, v.width, 1);
  const step = tickStep(v.viewport.nsPerPixel);
  ctx.font = `11px ${p.font}`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let t = Math.ceil(v.viewport.t0 / step) * step; t <= v.viewport.t1; t += step) {
    const x = Math.round(plotX(v, t));
    if (x < l.gutter) continue;
    ctx.fillStyle = p.grid;
    ctx.fillRect(x, l.axisHeight - 6, 1, 6);
    ctx.fillStyle = p.muted;
    ctx.fillText(formatTick(t, step), x + 3, l.axisHeight / 2);
  }
}

function drawGutter(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  r0: number,
  r1: number,
  blocked: ReadonlySet<number>,
): void {
  const { layout: l, palette: p } = v;
  ctx.fillStyle = p.background;
  ctx.fillRect(0, l.axisHeight, l.gutter, l.height - l.axisHeight);
  ctx.fillStyle = p.border;
  ctx.fillRect(l.gutter - 1, 0, 1, l.height);
  ctx.font = `12px ${p.font}`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let r = r0; r < r1; r++) {
    const mid = laneTop(l, r) + l.laneHeight / 2;
    if (mid < l.axisHeight) continue;
    const isBlocked = blocked.has(r);
    ctx.fillStyle = isBlocked ? p.blocked : p.foreground;
    ctx.fillText(`rank ${r}`, 10, mid);
    if (isBlocked) {
      ctx.fillText('●', l.gutter - 18, mid);
    } else if (store.open.some((o) => o.rank === r)) {
      ctx.fillStyle = p.muted;
      ctx.fillText('○', l.gutter - 18, mid);
    }
  }
}

function drawLane(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  rank: number,
  s: DrawStats,
  lod: LodFrame | undefined,
): void {
  const lane = store.lanes[rank];
  if (lane === undefined || lane.length === 0) return;
  const { viewport: vp, layout: l, palette: p } = v;
  const top = laneTop(l, rank) + 3;
  const h = l.laneHeight - 6;
  const starts = lane.start.values;
  const ends = lane.end.values;
  const fns = lane.fn.values;
  const [from, to] = visibleRange(starts, lane.endMax.values, lane.length, vp.t0, vp.t1);
  // More calls than half the pixel columns: calls are narrower than a pixel on average, so the summary
  // draws the same picture (per column: the busiest class, shaded by how busy) at the cost of a row.
  if (lod !== undefined && to - from > lod.row.length / 2) {
    lodRow(store.lod, rank, lod.level, vp.t0, vp.nsPerPixel, lod.colours, lod.acc, lod.row);
    lod.surface.put(lod.row, top, h);
    s.lodLanes++;
    return;
  }
  const gx = l.gutter;
  // Spans thinner than a pixel are merged: one rect per run of the same class, and at most one new rect per
  // pixel column, so a million tiny calls cost a few thousand rects.
  let runCls = -1;
  let runX0 = 0;
  let runX1 = -Infinity;
  let lastFill = '';
  const flush = (): void => {
    if (runCls < 0) return;
    const fill = p.cls[runCls] ?? p.foreground;
    if (fill !== lastFill) {
      ctx.fillStyle = fill;
      lastFill = fill;
    }
    ctx.fillRect(runX0, top, Math.max(1, runX1 - runX0), h);
    s.rects++;
  };
  const labels: number[] = [];
  for (let i = from; i < to; i++) {
    const e = ends[i] ?? 0;
    if (e < vp.t0) continue;
    s.spansVisited++;
    const x0 = gx + vp.x(starts[i] ?? 0);
    const x1 = gx + vp.x(e);
    const cls = store.functions.get(fns[i] ?? 0)?.cls ?? 0;
    if (x1 <= runX1 + 0.5 && x1 - x0 < 1) continue; // Inside a pixel already painted.
    if (cls === runCls && x0 <= runX1 + 0.5) {
      runX1 = Math.max(runX1, x1);
    } else {
      flush();
      runCls = cls;
      runX0 = x0;
      runX1 = Math.max(x1, x0 + 1);
    }
    if (x1 - x0 >= 44) labels.push(i);
  }
  flush();
  if (h < 12) return;
  ctx.font = `11px ${p.font}`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  ctx.fillStyle = p.background;
  for (const i of labels) {
    const x0 = Math.max(gx, gx + vp.x(starts[i] ?? 0));
    const x1 = Math.min(v.width, gx + vp.x(ends[i] ?? 0));
    const name = store.functionName(fns[i] ?? 0).replace(/^MPI_/, '');
    const room = x1 - x0 - 8;
    if (room < 20) continue;
    ctx.fillText(fit(ctx, name, room), x0 + 4, top + h / 2);
    s.labels++;
  }
}

/** High-contrast themes: every lane edged with the theme's contrast border, as VS Code edges its widgets. */
function drawLaneBorders(ctx: CanvasRenderingContext2D, v: TimelineView, r0: number, r1: number): void {
  const { layout: l, palette: p } = v;
  ctx.fillStyle = p.contrast;
  for (let r = r0; r <= r1; r++) ctx.fillRect(l.gutter, laneTop(l, r), v.width - l.gutter, 1);
}

/** Collective instances in view past this many are not joined: beyond it the lines are a solid wall. */
export const MAX_COLLECTIVES = 4000;

/**
 * A collective drawn across its members: the k-th collective of each rank on a communicator is one
 * operation (Lane.coll). Its members' calls are joined by a vertical line where the last member entered
 * (no member can leave before then), with a dot on each member, so a late arrival shows as the line far
 * right of the other members' starts.
 */
function drawCollectives(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  r0: number,
  r1: number,
  s: DrawStats,
): void {
  const { viewport: vp, layout: l, palette: p } = v;
  const groups = new Map<number, { lo: number; hi: number; last: number; n: number }>();
  for (let r = r0; r < r1; r++) {
    const lane = store.lanes[r];
    if (lane === undefined) continue;
    const starts = lane.start.values;
    const ends = lane.end.values;
    const coll = lane.coll.values;
    const comm = lane.comm.values;
    const [from, to] = visibleRange(starts, lane.endMax.values, lane.length, vp.t0, vp.t1);
    for (let i = from; i < to; i++) {
      const k = coll[i] as number;
      if (k < 0 || (ends[i] as number) < vp.t0) continue;
      const key = (comm[i] as number) * 2 ** 32 + k;
      const g = groups.get(key);
      const st = starts[i] as number;
      if (g === undefined) {
        if (groups.size >= MAX_COLLECTIVES) return;
        groups.set(key, { lo: r, hi: r, last: st, n: 1 });
      } else {
        g.hi = r;
        g.n++;
        if (st > g.last) g.last = st;
      }
    }
  }
  const colour = p.cls[3] ?? p.foreground;
  const mid = (r: number): number => laneTop(l, r) + l.laneHeight / 2;
  ctx.fillStyle = colour;
  for (const g of groups.values()) {
    if (g.n < 2) continue;
    // A 2 px vertical line as a rect: pixel-aligned, so the canvas fills it without antialiasing a path
    // (a thousand lanes-high lines at the whole-job zoom).
    const x = Math.round(l.gutter + vp.x(g.last));
    ctx.fillRect(x, mid(g.lo), 2, mid(g.hi) - mid(g.lo));
    s.collectives++;
  }
}

/** The calls of one lane that the search matches, outlined (merged per pixel like drawLane). */
function drawMatches(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  rank: number,
  match: ReadonlySet<number>,
  s: DrawStats,
): void {
  const lane = store.lanes[rank];
  if (lane === undefined || lane.length === 0) return;
  const { viewport: vp, layout: l, palette: p } = v;
  const top = laneTop(l, rank) + 3;
  const h = l.laneHeight - 6;
  const starts = lane.start.values;
  const ends = lane.end.values;
  const fns = lane.fn.values;
  const [from, to] = visibleRange(starts, lane.endMax.values, lane.length, vp.t0, vp.t1);
  let x0 = 0;
  let x1 = -Infinity;
  const rects: number[] = [];
  for (let i = from; i < to; i++) {
    const fn = fns[i] as number;
    if (!match.has(fn) || (ends[i] as number) < vp.t0) continue;
    const a = l.gutter + vp.x(starts[i] as number);
    const b = Math.max(a + 2, l.gutter + vp.x(ends[i] as number));
    s.matches++;
    if (a <= x1 + 1) {
      x1 = Math.max(x1, b);
      continue;
    }
    if (x1 > -Infinity) rects.push(x0, x1);
    x0 = a;
    x1 = b;
  }
  if (x1 > -Infinity) rects.push(x0, x1);
  ctx.strokeStyle = p.selection;
  ctx.lineWidth = 2;
  for (let k = 0; k < rects.length; k += 2) {
    const a = rects[k] as number;
    const b = rects[k + 1] as number;
    ctx.fillStyle = p.match;
    ctx.fillRect(a, top, b - a, h);
    ctx.strokeRect(a - 1, top - 1, b - a + 2, h + 2);
  }
  ctx.lineWidth = 1;
}

function fit(ctx: CanvasRenderingContext2D, text: string, room: number): string {
  if (ctx.measureText(text).width <= room) return text;
  for (let n = text.length - 1; n > 1; n--) {
    const t = `${text.slice(0, n)}…`;
    if (ctx.measureText(t).width <= room) return t;
  }
  return '';
}

function drawOpen(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  o: OpenCall,
  blocked: boolean,
): void {
  const { viewport: vp, layout: l, palette: p } = v;
  const top = laneTop(l, o.rank) + 3;
  const h = l.laneHeight - 6;
  const x0 = l.gutter + vp.x(o.start);
  const x1 = l.gutter + vp.x(store.now);
  const w = Math.max(2, x1 - x0);
  const cls = store.functions.get(o.fn)?.cls ?? 0;
  ctx.fillStyle = blocked ? p.blocked : (p.cls[cls] ?? p.foreground);
  ctx.globalAlpha = blocked ? 0.35 : 0.5;
  ctx.fillRect(x0, top, w, h);
  ctx.globalAlpha = 1;
  if (blocked) {
    // Hatching says "waiting forever" without relying on colour alone.
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, top, w, h);
    ctx.clip();
    ctx.strokeStyle = p.blocked;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    // Only the stripes on screen: zoomed in, a call blocked until now is millions of pixels wide.
    const from = Math.max(x0 - h, x0 - h + Math.floor((l.gutter - x0) / 7) * 7);
    const to = Math.min(x0 + w, v.width + h);
    for (let x = from; x < to; x += 7) {
      ctx.moveTo(x, top + h);
      ctx.lineTo(x + h, top);
    }
    ctx.stroke();
    ctx.restore();
    ctx.strokeStyle = p.blocked;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, top, w, h);
  }
  if (h >= 12 && w > 60) {
    ctx.font = `bold 11px ${p.font}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.fillStyle = p.foreground;
    const name = store.functionName(o.fn).replace(/^MPI_/, '');
    ctx.fillText(
      fit(ctx, blocked ? `${name} — blocked` : `${name} …`, w - 10),
      Math.max(x0, l.gutter) + 5,
      top + h / 2,
    );
  }
}

function drawMessages(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  r0: number,
  r1: number,
  s: DrawStats,
): void {
  const m = store.messages;
  const { viewport: vp, layout: l, palette: p } = v;
  const send = m.sendTime.values;
  const recv = m.recvTime.values;
  const src = m.src.values;
  const dst = m.dst.values;
  const [from, to] = visibleRange(send, m.endMax.values, m.length, vp.t0, vp.t1);
  const inView: number[] = [];
  for (let i = from; i < to; i++) {
    const a = src[i] ?? 0;
    const b = dst[i] ?? 0;
    if (Math.max(send[i] ?? 0, recv[i] ?? 0) < vp.t0) continue;
    if ((a < r0 && b < r0) || (a >= r1 && b >= r1)) continue;
    inView.push(i);
  }
  s.arrowsInView = inView.length;
  const stride = Math.max(1, Math.ceil(inView.length / MAX_ARROWS));
  const heads = inView.length / stride <= 600;
  const mid = (r: number): number => laneTop(l, r) + l.laneHeight / 2;
  ctx.strokeStyle = p.message;
  ctx.fillStyle = p.message;
  ctx.lineWidth = 1;
  ctx.globalAlpha = stride > 1 ? 0.35 : 0.85;
  ctx.beginPath();
  const tips: [number, number, number, number][] = [];
  for (let k = 0; k < inView.length; k += stride) {
    const i = inView[k] ?? 0;
    const x0 = l.gutter + vp.x(send[i] ?? 0);
    const y0 = mid(src[i] ?? 0);
    const x1 = l.gutter + vp.x(recv[i] ?? 0);
    const y1 = mid(dst[i] ?? 0);
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    s.arrows++;
    if (heads && Math.hypot(x1 - x0, y1 - y0) > 14) tips.push([x0, y0, x1, y1]);
  }
  ctx.stroke();
  ctx.beginPath();
  for (const [x0, y0, x1, y1] of tips) arrowHead(ctx, x0, y0, x1, y1, 6);
  ctx.fill();
  ctx.globalAlpha = 1;
}

function arrowHead(
  ctx: CanvasRenderingContext2D,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  size: number,
): void {
  const a = Math.atan2(y1 - y0, x1 - x0);
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - size * Math.cos(a - 0.45), y1 - size * Math.sin(a - 0.45));
  ctx.lineTo(x1 - size * Math.cos(a + 0.45), y1 - size * Math.sin(a + 0.45));
  ctx.closePath();
}

function drawFinding(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  f: TimelineFinding,
  focused: boolean,
): void {
  const { layout: l, palette: p } = v;
  const colour = f.severity === 'error' ? p.error : f.severity === 'warning' ? p.warning : p.muted;
  const points = f.locations.map((loc, i) => ({
    x: plotX(v, f.times[i] ?? 0),
    top: laneTop(l, loc.rank),
    mid: laneTop(l, loc.rank) + l.laneHeight / 2,
  }));
  for (const pt of points) {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.moveTo(pt.x - 6, pt.top);
    ctx.lineTo(pt.x + 6, pt.top);
    ctx.lineTo(pt.x, pt.top + 8);
    ctx.closePath();
    ctx.fill();
    if (focused) {
      ctx.strokeStyle = p.selection;
      ctx.lineWidth = 2;
      ctx.strokeRect(pt.x - 4, pt.top + 1, 8, l.laneHeight - 2);
    }
  }
  if (f.kind !== 'deadlock' || points.length < 2) return;
  // The ring: each blocked rank waits for the next one named; curved arrows just after the blocked calls
  // (which last until now) close the cycle, kept on screen so the cause is visible at a glance.
  const ringX = plotX(v, store.now) + 6;
  if (ringX < l.gutter || ringX > v.width - 16) return;
  ctx.strokeStyle = p.blocked;
  ctx.fillStyle = p.blocked;
  ctx.lineWidth = focused ? 2.5 : 2;
  ctx.setLineDash([5, 3]);
  ctx.beginPath();
  points.forEach((a, i) => {
    const b = points[(i + 1) % points.length] ?? a;
    const bulge = i === points.length - 1 ? 46 : 22;
    ctx.moveTo(ringX, a.mid);
    ctx.bezierCurveTo(ringX + bulge, a.mid, ringX + bulge, b.mid, ringX + 4, b.mid);
  });
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const b of points) {
    ctx.moveTo(ringX, b.mid);
    ctx.lineTo(ringX + 8, b.mid - 5);
    ctx.lineTo(ringX + 8, b.mid + 5);
    ctx.closePath();
  }
  ctx.fill();
  ctx.font = `bold 11px ${p.font}`;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  const top = Math.min(...points.map((pt) => pt.mid));
  const bottom = Math.max(...points.map((pt) => pt.mid));
  ctx.fillText('deadlock', ringX + 54, (top + bottom) / 2);
}

function outline(
  ctx: CanvasRenderingContext2D,
  store: TimelineStore,
  v: TimelineView,
  ref: SpanRef,
  colour: string,
  width: number,
): void {
  const { viewport: vp, layout: l } = v;
  let start: number;
  let end: number;
  if (ref.index < 0) {
    const o = store.open.find((c) => c.rank === ref.rank);
    if (o === undefined) return;
    start = o.start;
    end = store.now;
  } else {
    const lane = store.lanes[ref.rank];
    if (lane === undefined || ref.index >= lane.length) return;
    start = lane.start.at(ref.index);
    end = lane.end.at(ref.index);
  }
  const x0 = l.gutter + vp.x(start);
  const x1 = l.gutter + vp.x(end);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.strokeRect(x0 - 1, laneTop(l, ref.rank) + 2, Math.max(2, x1 - x0) + 2, l.laneHeight - 4);
}
