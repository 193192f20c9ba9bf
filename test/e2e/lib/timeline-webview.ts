// Reads the mpiscope timeline panel (a webview: two nested iframes, the lit components inside) the way
// a user and a screen reader see it: the header's job line, the findings list, the canvas's accessible
// description, and the canvas's pixels lane by lane. Playwright's CSS selectors pierce lit's open shadow roots.
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { until } from './workbench';

/** The page inside the newest webview (the outer iframe is VS Code's host, #active-frame the page). */
export function timelineFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
}

export interface ShownFinding {
  readonly kind: string;
  readonly message: string;
  /** One per location row: "rank 0: MPI_Recv from rank 2 … — ring.c:23". */
  readonly locations: readonly string[];
}

export interface TimelineView {
  /** The header's job line, e.g. "3 ranks · 1.2 s · 9 calls · 0 messages · deadlocked (ranks 0, 1, 2)". */
  readonly stats: string;
  /** The canvas's aria-label (timeline-summary.ts). */
  readonly summary: string;
  readonly findings: readonly ShownFinding[];
}

/** The little of the DOM that code evaluated in the webview uses (the test package has no DOM types). */
interface El {
  readonly textContent: string | null;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}

export function findingOptions(frame: FrameLocator): Locator {
  return frame.locator('mpi-findings-list li[role="option"]');
}

export async function readTimeline(frame: FrameLocator): Promise<TimelineView> {
  const text = (l: Locator): Promise<string> =>
    l.innerText({ timeout: 2_000 }).then((t) => t.replace(/\s+/g, ' ').trim());
  const stats = await text(frame.locator('mpi-app header .stats'));
  const summary = (await frame.locator('mpi-timeline canvas.main').getAttribute('aria-label')) ?? '';
  const findings = await findingOptions(frame).evaluateAll((items: El[]) =>
    items.map((li) => {
      const clean = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();
      return {
        kind: clean(li.querySelector('.kind')?.textContent),
        message: clean(li.querySelector('.message')?.textContent),
        locations: Array.from(li.querySelectorAll('.loc')).map((l) => clean(l.textContent)),
      };
    }),
  );
  return { stats, summary, findings };
}

/** Waits until the panel shows what `accept` wants, and returns that view; the failure says what was seen last. */
export async function waitForTimeline(
  frame: FrameLocator,
  what: string,
  accept: (view: TimelineView) => boolean,
  timeoutMs: number,
  alsoCheck?: () => Promise<void>,
): Promise<TimelineView> {
  let last: TimelineView | undefined;
  return until(
    what,
    async () => {
      await alsoCheck?.();
      last = await readTimeline(frame).catch(() => undefined);
      return last !== undefined && accept(last) ? last : undefined;
    },
    timeoutMs,
    () => Promise.resolve(JSON.stringify(last ?? 'the webview is not loaded')),
  );
}

/** What the page's store holds (main.ts exposes it as window.mpiscope for the dev page and these checks). */
export interface StoreFacts {
  readonly ranks: number;
  /** The job's time so far, ns since its origin. */
  readonly now: number;
  /** Completed calls per lane. */
  readonly spansPerLane: readonly number[];
  /** Start of each lane's first completed call (MPI_Init), ns since the origin; NaN for an empty lane. */
  readonly firstStartPerLane: readonly number[];
  /** Ranks with a call in progress, sorted. */
  readonly openRanks: readonly number[];
}

interface StoreLike {
  readonly ranks: number;
  readonly now: number;
  readonly lanes: readonly { readonly length: number; readonly start: { at(i: number): number } }[];
  readonly open: readonly { readonly rank: number }[];
}

export async function storeFacts(frame: FrameLocator): Promise<StoreFacts> {
  return frame.locator('mpi-app').evaluate(() => {
    const store = (globalThis as unknown as { mpiscope: { store: StoreLike } }).mpiscope.store;
    return {
      ranks: store.ranks,
      now: store.now,
      spansPerLane: store.lanes.map((l) => l.length),
      firstStartPerLane: store.lanes.map((l) => (l.length > 0 ? l.start.at(0) : NaN)),
      openRanks: store.open.map((o) => o.rank).sort((a, b) => a - b),
    };
  });
}

interface CanvasEl {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d', opts?: { willReadFrequently: boolean }): Ctx2d | null;
}

interface Ctx2d {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): { readonly data: ArrayLike<number> };
}

interface PageGlobals {
  readonly devicePixelRatio?: number;
  readonly document: { createElement(tag: 'canvas'): CanvasEl };
  getComputedStyle(el: unknown): { getPropertyValue(name: string): string };
}

export interface LanePixels {
  /** Share of the lane's plot area (right of the rank gutter) drawn in anything but the background and lane stripe. */
  readonly drawn: number;
  /** Pixels in the theme's blocked colour (--vscode-charts-red): the deadlocked call and the ring. */
  readonly blocked: number;
}

/**
 * Reads the canvas lane by lane. The geometry is lane-layout.ts's: a 26 px axis on top, a 92 px gutter,
 * lanes of equal height; the colours are the theme variables palette.ts draws with.
 */
export async function lanePixels(frame: FrameLocator, ranks: number): Promise<LanePixels[]> {
  return frame.locator('mpi-timeline canvas.main').evaluate(
    (c: CanvasEl, args: { ranks: number; axis: number; gutter: number }) => {
      const g = globalThis as unknown as PageGlobals;
      const ctx = c.getContext('2d');
      const dpr = g.devicePixelRatio ?? 1;
      if (ctx === null || c.width === 0) return [];
      // Resolve a theme variable to RGB by painting it: the variables may be any CSS colour syntax.
      const probe = g.document.createElement('canvas').getContext('2d', { willReadFrequently: true });
      const host = (c as unknown as { getRootNode(): { host: unknown } }).getRootNode().host;
      const style = g.getComputedStyle(host);
      const rgb = (name: string, fallback: string): number[] => {
        if (probe === null) return [0, 0, 0];
        probe.fillStyle = style.getPropertyValue(name).trim() || fallback;
        probe.fillRect(0, 0, 1, 1);
        return Array.from(probe.getImageData(0, 0, 1, 1).data).slice(0, 3);
      };
      const background = rgb('--vscode-editor-background', '#1f1f1f');
      const stripe = rgb('--vscode-list-hoverBackground', '#2a2d2e');
      const red = rgb('--vscode-charts-red', '#f14c4c');
      const near = (d: ArrayLike<number>, i: number, c3: number[], tol: number): boolean =>
        Math.abs((d[i] ?? 0) - (c3[0] ?? 0)) <= tol &&
        Math.abs((d[i + 1] ?? 0) - (c3[1] ?? 0)) <= tol &&
        Math.abs((d[i + 2] ?? 0) - (c3[2] ?? 0)) <= tol;

      const cssHeight = c.height / dpr;
      const lane = Math.max(18, Math.min(46, Math.floor((cssHeight - args.axis) / Math.max(1, args.ranks))));
      const x0 = Math.round(args.gutter * dpr);
      const w = c.width - x0;
      const out: { drawn: number; blocked: number }[] = [];
      for (let r = 0; r < args.ranks; r++) {
        const y0 = Math.round((args.axis + r * lane) * dpr);
        const h = Math.round(lane * dpr);
        if (w <= 0 || y0 + h > c.height) {
          out.push({ drawn: 0, blocked: 0 });
          continue;
        }
        const d = ctx.getImageData(x0, y0, w, h).data;
        let drawn = 0;
        let blocked = 0;
        for (let i = 0; i < d.length; i += 4) {
          if (!near(d, i, background, 6) && !near(d, i, stripe, 6)) drawn++;
          if (near(d, i, red, 40)) blocked++;
        }
        out.push({ drawn: drawn / (d.length / 4), blocked });
      }
      return out;
    },
    { ranks, axis: 26, gutter: 92 },
  );
}
