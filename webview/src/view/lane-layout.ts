/** Vertical geometry: the time axis on top, then one lane per rank, the rank names in a left gutter. */
export interface LaneLayout {
  readonly axisHeight: number;
  readonly gutter: number;
  readonly laneHeight: number;
  /** Pixels scrolled down (many ranks do not fit). */
  readonly scrollY: number;
  readonly ranks: number;
  readonly height: number;
}

export const AXIS_HEIGHT = 26;
export const GUTTER = 92;
const MIN_LANE = 18;
const MAX_LANE = 46;

/** Lanes fill the height when few, and keep a readable minimum (then scroll) when many. */
export function layoutLanes(ranks: number, height: number, scrollY = 0): LaneLayout {
  const avail = Math.max(0, height - AXIS_HEIGHT);
  const laneHeight = Math.max(MIN_LANE, Math.min(MAX_LANE, Math.floor(avail / Math.max(1, ranks))));
  const maxScroll = Math.max(0, ranks * laneHeight - avail);
  return {
    axisHeight: AXIS_HEIGHT,
    gutter: GUTTER,
    laneHeight,
    scrollY: Math.max(0, Math.min(scrollY, maxScroll)),
    ranks,
    height,
  };
}

export function laneTop(l: LaneLayout, rank: number): number {
  return l.axisHeight + rank * l.laneHeight - l.scrollY;
}

/** The rank whose lane holds y, or -1 (axis, or below the last lane). */
export function laneAt(l: LaneLayout, y: number): number {
  if (y < l.axisHeight) return -1;
  const r = Math.floor((y - l.axisHeight + l.scrollY) / l.laneHeight);
  return r >= 0 && r < l.ranks ? r : -1;
}

/** Ranks with at least one pixel on screen. */
export function visibleRanks(l: LaneLayout): [number, number] {
  const first = Math.max(0, Math.floor(l.scrollY / l.laneHeight));
  const last = Math.min(l.ranks, Math.ceil((l.scrollY + l.height - l.axisHeight) / l.laneHeight));
  return [first, last];
}
