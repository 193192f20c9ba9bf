import type { TimelineStore } from '../store/timeline-store';
import { visibleRange } from '../store/search';
import type { SpanRef } from './draw-timeline';
import { laneAt, laneTop, type LaneLayout } from './lane-layout';
import type { Viewport } from './viewport';

export type Hit =
  | { readonly kind: 'span'; readonly ref: SpanRef }
  | { readonly kind: 'message'; readonly index: number }
  | { readonly kind: 'finding'; readonly id: number; readonly location: number };

/** Pixels of slack around thin targets: a 1-px call or arrow must still be hoverable. */
const SLACK = 3;
/** Arrows examined per hit test at most; at full zoom-out they are thinned on screen anyway. */
const MAX_ARROW_CANDIDATES = 20000;

/**
 * What is under the pointer at (x, y) (canvas pixels), from the typed arrays alone: no DOM per event.
 * Finding markers win over calls, calls over message arrows.
 */
export function hitTest(
  store: TimelineStore,
  vp: Viewport,
  l: LaneLayout,
  x: number,
  y: number,
): Hit | undefined {
  if (x < l.gutter || y < l.axisHeight) return undefined;
  const px = x - l.gutter;
  for (const f of store.findings) {
    for (let i = 0; i < f.locations.length; i++) {
      const loc = f.locations[i];
      if (loc === undefined) continue;
      const mx = vp.x(f.times[i] ?? 0);
      const top = laneTop(l, loc.rank);
      if (Math.abs(px - mx) <= 7 && y >= top && y <= top + 10)
        return { kind: 'finding', id: f.id, location: i };
    }
  }
  const rank = laneAt(l, y);
  const top = rank >= 0 ? laneTop(l, rank) : 0;
  const inBar = rank >= 0 && y >= top + 2 && y <= top + l.laneHeight - 2;
  if (inBar) {
    const span = spanAt(store, vp, rank, px);
    if (span !== undefined) return { kind: 'span', ref: span };
  }
  const msg = messageAt(store, vp, l, px, y);
  return msg === undefined ? undefined : { kind: 'message', index: msg };
}

function spanAt(store: TimelineStore, vp: Viewport, rank: number, px: number): SpanRef | undefined {
  const t = vp.time(px);
  const tol = SLACK * vp.nsPerPixel;
  const open = store.open.find((o) => o.rank === rank);
  if (open !== undefined && t >= open.start - tol && t <= store.now + tol) return { rank, index: -1 };
  const lane = store.lanes[rank];
  if (lane === undefined) return undefined;
  const starts = lane.start.values;
  const ends = lane.end.values;
  const [from, to] = visibleRange(starts, lane.endMax.values, lane.length, t - tol, t + tol);
  let best = -1;
  let bestDist = Infinity;
  for (let i = from; i < to; i++) {
    const s = starts[i] ?? 0;
    const e = ends[i] ?? 0;
    const d = t < s ? s - t : t > e ? t - e : 0;
    if (d <= tol && d < bestDist) {
      best = i;
      bestDist = d;
      if (d === 0) break;
    }
  }
  return best < 0 ? undefined : { rank, index: best };
}

function messageAt(
  store: TimelineStore,
  vp: Viewport,
  l: LaneLayout,
  px: number,
  y: number,
): number | undefined {
  const m = store.messages;
  const t = vp.time(px);
  const tol = SLACK * vp.nsPerPixel;
  const send = m.sendTime.values;
  const recv = m.recvTime.values;
  const [from, to] = visibleRange(send, m.endMax.values, m.length, t - tol, t + tol);
  let best: number | undefined;
  let bestDist = SLACK + 1;
  for (let i = from; i < Math.min(to, from + MAX_ARROW_CANDIDATES); i++) {
    const x0 = vp.x(send[i] ?? 0);
    const x1 = vp.x(recv[i] ?? 0);
    const y0 = laneTop(l, m.src.at(i)) + l.laneHeight / 2;
    const y1 = laneTop(l, m.dst.at(i)) + l.laneHeight / 2;
    const d = segmentDistance(px, y, x0, y0, x1, y1);
    if (d < bestDist) {
      bestDist = d;
      best = i;
    }
  }
  return best;
}

export function segmentDistance(
  px: number,
  py: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): number {
  const dx = x1 - x0;
  const dy = y1 - y0;
  const len2 = dx * dx + dy * dy;
  const u = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - x0) * dx + (py - y0) * dy) / len2));
  return Math.hypot(px - (x0 + u * dx), py - (y0 + u * dy));
}
