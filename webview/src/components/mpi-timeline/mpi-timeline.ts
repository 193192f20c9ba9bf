import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import type { TimelineStore } from '../../store/timeline-store';
import { describeHit, type HitText } from '../../view/describe-hit';
import { FrameDriver } from '../../view/frame-driver';
import { blockedRanks, drawTimeline, type SpanRef } from '../../view/draw-timeline';
import { hitTest, type Hit } from '../../view/hit-test';
import { layoutLanes, laneTop, type LaneLayout } from '../../view/lane-layout';
import { LayerCache } from '../../view/layer-cache';
import { CanvasSurface } from '../../view/lod-paint';
import { MINIMAP_HEIGHT, minimapPixels } from '../../view/minimap';
import { resolvePalette, type Palette } from '../../view/palette';
import { Viewport } from '../../view/viewport';
import { timelineSummary } from './timeline-summary';
import { timelineStyles } from './mpi-timeline.styles';

export interface RevealDetail {
  readonly file: string;
  readonly line: number;
}

export interface SearchState {
  readonly text: string;
  /** Calls matching, over the whole job. */
  readonly count: number;
}

/**
 * The job on a canvas: one lane per rank, calls as spans, messages as arrows, collectives joined across
 * their members, findings as markers, the deadlock ring in red; above it a minimap of the whole job with
 * the visible window framed (click or drag it to move there). Drag pans, the wheel zooms (pans with shift),
 * double-click reveals a call's source line. Keyboard: ←/→ pan, +/- zoom, ↑/↓ and PageUp/PageDown scroll
 * ranks, Home/End go to the job's start/end, 0 shows everything, f holds or follows the tail, n/N the next
 * or previous search match. While following (the default), the view keeps the whole job, growing live.
 */
export class MpiTimeline extends LitElement {
  static override styles = timelineStyles;
  static override properties = {
    store: { attribute: false },
    focusFinding: { attribute: false },
    search: { attribute: false },
    tip: { state: true },
  };

  store: TimelineStore | undefined;
  focusFinding: number | undefined;
  /** Text to find among call names ("" for none). */
  search = '';
  private match = new Set<number>();
  private matchVersion = -1;
  /** The minimap's pixels as built: for the job's `version`, `width` pixels wide, spanning [0, end]. */
  private minimap: { version: number; width: number; end: number; canvas: HTMLCanvasElement } | undefined;
  private minimapBuiltAt = 0;
  private minimapDrag = false;
  private themeObserver: MutationObserver | undefined;
  private tip: { x: number; y: number; text: HitText } | undefined;

  private readonly viewport = new Viewport();
  private palette: Palette | undefined;
  private layout: LaneLayout = layoutLanes(0, 0);
  private scrollY = 0;
  private follow = true;
  private hovered: SpanRef | undefined;
  private selected: SpanRef | undefined;
  private drag: { x: number; y: number; moved: boolean } | undefined;
  private size = { width: 0, height: 0 };
  private readonly frames = new FrameDriver(
    this,
    () => this.draw(),
    () => this.measure(),
  );
  private drawnVersion = -1;
  /** Last frame's draw time in ms, for the benchmark page. */
  lastDrawMs = 0;
  /**
   * Totals since the page started, for bench/timeline/vscode-open.mjs's breakdown of an opening: frames drawn
   * and their draw time (ms, the minimap's rebuilds included), and the minimap's rebuilds and their time.
   */
  readonly costs = { frames: 0, drawMs: 0, minimaps: 0, minimapMs: 0 };
  /** The store version the last frame drew (the benchmarks wait for the frame with the whole job). */
  get drawnStoreVersion(): number {
    return this.drawnVersion;
  }
  /** When (ms since the epoch) the first frame of the store's current version was drawn. */
  drawnAt = 0;
  /**
   * Lanes of sub-pixel calls drawn from the store's summary (one row of pixels per lane); false draws every
   * lane call by call, which bench/timeline compares against in the same run.
   */
  summaries = true;
  private readonly lodSurface = new CanvasSurface();
  private readonly gutterLayer = new LayerCache();

  override connectedCallback(): void {
    super.connectedCallback();
    // VS Code switches the theme by the body's class (vscode-light, vscode-dark, vscode-high-contrast):
    // the canvas cannot follow CSS variables, so it re-reads them then.
    this.themeObserver = new MutationObserver(() => {
      this.palette = undefined;
      this.minimap = undefined;
      this.schedule();
    });
    this.themeObserver.observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });
    this.themeObserver.observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['class', 'style'],
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.themeObserver?.disconnect();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('store')) {
      this.frames.watch(this.store);
      this.setFollow(true);
      this.minimap = undefined;
    }
    if (changed.has('search')) this.matchVersion = -1;
    if (changed.has('focusFinding')) this.schedule();
  }

  /** Whether the view follows the job (its whole extent, growing); false holds the view where it is. */
  get following(): boolean {
    return this.follow;
  }

  setFollow(on: boolean): void {
    if (on === this.follow) return;
    this.follow = on;
    this.dispatchEvent(
      new CustomEvent('mpi-follow', { detail: { follow: on }, bubbles: true, composed: true }),
    );
    this.schedule();
  }

  /** The search's matches over the whole job (recounted when the job or the text changed). */
  get searchState(): SearchState {
    this.refreshMatch();
    return { text: this.search, count: this.matchCount };
  }

  private matchCount = 0;

  private refreshMatch(): void {
    const store = this.store;
    if (store === undefined || this.matchVersion === store.version) return;
    this.matchVersion = store.version;
    this.match = store.functionsMatching(this.search);
    this.matchCount = store.countCalls(this.match);
  }

  /** Moves to the next (dir 1) or previous (-1) call matching the search, selects it; false when none. */
  findNext(dir: 1 | -1): boolean {
    const store = this.store;
    if (store === undefined) return false;
    this.refreshMatch();
    const span = (ref: SpanRef): [number, number] | undefined => {
      if (ref.index >= 0) {
        const lane = store.lanes[ref.rank];
        return lane === undefined ? undefined : [lane.start.at(ref.index), lane.end.at(ref.index)];
      }
      const o = store.open.find((c) => c.rank === ref.rank);
      return o === undefined ? undefined : [o.start, store.now];
    };
    const current = this.selected !== undefined ? span(this.selected) : undefined;
    const from = current?.[0] ?? (dir === 1 ? this.viewport.t0 : this.viewport.t1);
    let hit = store.nextCall(this.match, from, dir);
    // Past the last match: wrap around to the first (or from the first to the last).
    if (hit === undefined) hit = store.nextCall(this.match, dir === 1 ? -Infinity : Infinity, dir);
    const found = hit === undefined ? undefined : span(hit);
    if (hit === undefined || found === undefined) return false;
    this.setFollow(false);
    this.selected = hit;
    const [a, b] = found;
    // Keep the zoom when the call fits in it; zoom in when it is too thin to see.
    if (
      this.viewport.window > 0 &&
      b - a < this.viewport.window / 4 &&
      this.viewport.nsPerPixel * 3 < b - a
    ) {
      const w = this.viewport.window;
      this.viewport.t0 = a - w / 2;
      this.viewport.t1 = a + w / 2;
    } else this.viewport.show(a, b);
    const top = laneTop(this.layout, hit.rank) + this.layout.scrollY;
    if (
      top < this.scrollY + this.layout.axisHeight ||
      top > this.scrollY + this.layout.height - this.layout.laneHeight
    )
      this.scrollY = Math.max(
        0,
        top - this.layout.axisHeight - (this.layout.height - this.layout.axisHeight) / 2,
      );
    this.schedule();
    return true;
  }

  /** Moves the view to a finding's calls and emphasises them. */
  showFinding(id: number): void {
    const f = this.store?.findings.find((x) => x.id === id);
    if (f === undefined || f.times.length === 0) return;
    this.focusFinding = id;
    this.setFollow(false);
    const lo = Math.min(...f.times);
    const hi = Math.max(this.store?.now ?? lo, ...f.times);
    this.viewport.show(lo, hi);
    const rank = f.locations[0]?.rank ?? 0;
    this.scrollY = Math.max(0, (rank - 1) * this.layout.laneHeight);
    this.schedule();
  }

  /** Shows the whole job and resumes following it. */
  fit(): void {
    this.setFollow(true);
    this.viewport.fit();
    this.schedule();
  }

  protected override render() {
    const tip = this.tip;
    return html`
      <canvas
        class="minimap"
        aria-hidden="true"
        title="The whole job: click or drag to move the view there"
        @pointerdown=${this.onMinimapDown}
        @pointermove=${this.onMinimapMove}
        @pointerup=${this.onMinimapUp}
      ></canvas>
      <canvas
        class="main"
        role="img"
        tabindex="0"
        aria-label=${this.store ? timelineSummary(this.store) : 'Timeline: no job yet'}
        @pointerdown=${this.onDown}
        @pointermove=${this.onMove}
        @pointerup=${this.onUp}
        @pointerleave=${this.onLeave}
        @wheel=${this.onWheel}
        @dblclick=${this.onDoubleClick}
        @keydown=${this.onKey}
      ></canvas>
      ${
        tip
          ? html`<div class="tip" style=${styleMap({ left: `${tip.x}px`, top: `${tip.y}px` })}>
              <b>${tip.text.title}</b>
              ${tip.text.lines.map(
                (line, i) =>
                  html`<div class=${i === tip.text.lines.length - 1 && tip.text.file ? 'where' : ''}>
                    ${line}
                  </div>`,
              )}
            </div>`
          : nothing
      }
    `;
  }

  protected override updated(): void {
    this.schedule();
  }

  private get canvas(): HTMLCanvasElement | null {
    return this.renderRoot.querySelector('canvas.main');
  }

  private get minimapCanvas(): HTMLCanvasElement | null {
    return this.renderRoot.querySelector('canvas.minimap');
  }

  private measure(): void {
    const r = this.canvas?.getBoundingClientRect() ?? this.getBoundingClientRect();
    this.size = { width: Math.floor(r.width), height: Math.floor(r.height) };
    this.palette = undefined; // A resize is also when a theme change is likely noticed.
    this.schedule();
  }

  private schedule(): void {
    this.frames.schedule();
  }

  private draw(): void {
    const canvas = this.canvas;
    const store = this.store;
    if (canvas === null || store === undefined || this.size.width === 0) return;
    const dpr = window.devicePixelRatio || 1;
    const { width, height } = this.size;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    const ctx = canvas.getContext('2d');
    if (ctx === null) return;
    if (this.palette === undefined) {
      const style = getComputedStyle(this);
      this.palette = resolvePalette((name) => style.getPropertyValue(name));
    }
    this.layout = layoutLanes(store.ranks, height, this.scrollY);
    this.scrollY = this.layout.scrollY;
    this.viewport.width = Math.max(1, width - this.layout.gutter);
    const [a, b] = store.extent;
    this.viewport.setExtent(a, b);
    if (this.follow) this.viewport.fit();
    const t = performance.now();
    if (this.search !== '') this.refreshMatch();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTimeline(ctx, store, {
      match: this.search !== '' ? this.match : undefined,
      viewport: this.viewport,
      layout: this.layout,
      palette: this.palette,
      width,
      selected: this.selected,
      hovered: this.hovered,
      focusFinding: this.focusFinding,
      lod: this.summaries ? this.lodSurface : undefined,
      gutterLayer: this.gutterLayer,
    });
    this.drawMinimap(dpr);
    this.lastDrawMs = performance.now() - t;
    this.costs.frames++;
    this.costs.drawMs += this.lastDrawMs;
    if (this.drawnVersion !== store.version) {
      this.drawnVersion = store.version;
      this.drawnAt = performance.timeOrigin + performance.now();
      canvas.setAttribute('aria-label', timelineSummary(store));
    }
  }

  /**
   * The minimap: its pixels are rebuilt when the job grew (at most every 250 ms while it grows, so a live
   * job never spends its frames there; every second while a trace loads) or the width changed; every frame only blits them and frames the
   * visible window.
   */
  private drawMinimap(dpr: number): void {
    const canvas = this.minimapCanvas;
    const store = this.store;
    const palette = this.palette;
    if (canvas === null || store === undefined || palette === undefined) return;
    const width = this.size.width;
    const plot = Math.max(1, width - this.layout.gutter);
    const end = store.extent[1];
    // A trace's load (replay) rebuilds it once a second while the batches come, and at once when the last one
    // came: the frame with the whole job has the whole minimap. (Every 250 ms it was rebuilt at each of the
    // load's paced frames: 7 rebuilds, 141 ms of a million-event opening.)
    const since = performance.now() - this.minimapBuiltAt;
    const due = store.replay ? store.ended || since > 1000 : since > 250;
    const stale =
      this.minimap === undefined ||
      this.minimap.width !== plot ||
      (this.minimap.version !== store.version && due);
    if (stale) {
      const builtAt = performance.now();
      const pixels = minimapPixels(store, plot, MINIMAP_HEIGHT, palette, end);
      const off = this.minimap?.width === plot ? this.minimap.canvas : document.createElement('canvas');
      off.width = plot;
      off.height = MINIMAP_HEIGHT;
      off.getContext('2d')?.putImageData(new ImageData(pixels, plot, MINIMAP_HEIGHT), 0, 0);
      this.minimap = { version: store.version, width: plot, canvas: off, end };
      this.minimapBuiltAt = performance.now();
      this.costs.minimaps++;
      this.costs.minimapMs += this.minimapBuiltAt - builtAt;
    } else if (this.minimap !== undefined && this.minimap.version !== store.version && !store.replay)
      // A frame later, for a live job's last batch. A trace's load needs none: its next batch draws a frame
      // anyway and its last one rebuilds at once (scheduling here drew a frame per animation frame: 56
      // frames instead of 14 for one opening).
      this.schedule();
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(MINIMAP_HEIGHT * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(MINIMAP_HEIGHT * dpr);
    }
    const ctx = canvas.getContext('2d');
    const mm = this.minimap;
    if (ctx === null || mm === undefined) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = palette.background;
    ctx.fillRect(0, 0, width, MINIMAP_HEIGHT);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(mm.canvas, this.layout.gutter, 0);
    ctx.font = `11px ${palette.font}`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = palette.muted;
    ctx.fillText('whole job', 10, MINIMAP_HEIGHT / 2);
    // The visible window, in the minimap's time scale (which is [0, end] as it was built).
    const x0 = this.layout.gutter + (Math.max(0, this.viewport.t0) / mm.end) * plot;
    const x1 = this.layout.gutter + (Math.min(mm.end, this.viewport.t1) / mm.end) * plot;
    ctx.fillStyle = palette.selection;
    ctx.globalAlpha = 0.18;
    ctx.fillRect(x0, 0, Math.max(2, x1 - x0), MINIMAP_HEIGHT);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = palette.selection;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x0, 0.75, Math.max(2, x1 - x0), MINIMAP_HEIGHT - 1.5);
    ctx.fillStyle = palette.border;
    ctx.fillRect(0, MINIMAP_HEIGHT - 1, width, 1);
  }

  private minimapJump(e: PointerEvent): void {
    const canvas = this.minimapCanvas;
    const mm = this.minimap;
    if (canvas === null || mm === undefined) return;
    const x = e.clientX - canvas.getBoundingClientRect().left - this.layout.gutter;
    const t = (Math.max(0, Math.min(mm.width, x)) / mm.width) * mm.end;
    this.setFollow(false);
    const w = this.viewport.window;
    this.viewport.t0 = t - w / 2;
    this.viewport.t1 = t + w / 2;
    this.viewport.panBy(0);
    this.schedule();
  }

  private onMinimapDown = (e: PointerEvent): void => {
    this.minimapDrag = true;
    this.minimapCanvas?.setPointerCapture(e.pointerId);
    this.minimapJump(e);
  };

  private onMinimapMove = (e: PointerEvent): void => {
    if (this.minimapDrag) this.minimapJump(e);
  };

  private onMinimapUp = (e: PointerEvent): void => {
    this.minimapDrag = false;
    this.minimapCanvas?.releasePointerCapture(e.pointerId);
  };

  private local(e: MouseEvent): [number, number] {
    const r = this.canvas?.getBoundingClientRect() ?? this.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  private hit(e: MouseEvent): Hit | undefined {
    if (this.store === undefined) return undefined;
    const [x, y] = this.local(e);
    return hitTest(this.store, this.viewport, this.layout, x, y);
  }

  private onDown = (e: PointerEvent): void => {
    const [x, y] = this.local(e);
    this.drag = { x, y, moved: false };
    this.canvas?.setPointerCapture(e.pointerId);
    this.canvas?.classList.add('dragging');
  };

  private onMove = (e: PointerEvent): void => {
    const [x, y] = this.local(e);
    if (this.drag !== undefined) {
      const dx = x - this.drag.x;
      const dy = y - this.drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) this.drag.moved = true;
      if (this.drag.moved) {
        this.setFollow(false);
        this.viewport.panBy(dx);
        this.scrollY -= dy;
        this.drag.x = x;
        this.drag.y = y;
        this.tip = undefined;
        this.schedule();
        return;
      }
    }
    const hit = this.hit(e);
    this.hovered = hit?.kind === 'span' ? hit.ref : undefined;
    const text = hit && this.store ? describeHit(this.store, hit) : undefined;
    this.tip = text === undefined ? undefined : this.placeTip(x, y, text);
    this.schedule();
  };

  private placeTip(x: number, y: number, text: HitText): { x: number; y: number; text: HitText } {
    const left = x + 430 > this.size.width ? Math.max(0, x - 430) : x + 14;
    const top = y + 110 > this.size.height ? Math.max(0, y - 100) : y + 16;
    // (y is in the main canvas; the tip is placed in the host, below the minimap.)
    return { x: left, y: top + MINIMAP_HEIGHT, text };
  }

  private onUp = (e: PointerEvent): void => {
    const drag = this.drag;
    this.drag = undefined;
    this.canvas?.releasePointerCapture(e.pointerId);
    this.canvas?.classList.remove('dragging');
    if (drag?.moved === true) return;
    const hit = this.hit(e);
    if (hit?.kind === 'span') this.selected = hit.ref;
    if (hit?.kind === 'finding') {
      this.focusFinding = hit.id;
      this.dispatchEvent(
        new CustomEvent('mpi-finding-select', { detail: { id: hit.id }, bubbles: true, composed: true }),
      );
    }
    this.schedule();
  };

  private onLeave = (): void => {
    this.hovered = undefined;
    this.tip = undefined;
    this.schedule();
  };

  private onWheel = (e: WheelEvent): void => {
    e.preventDefault();
    this.setFollow(false);
    const [x] = this.local(e);
    if (e.shiftKey) this.viewport.panBy(-(e.deltaY || e.deltaX));
    else if (!e.ctrlKey && Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.viewport.panBy(-e.deltaX);
    else this.viewport.zoomAt(x - this.layout.gutter, Math.exp(e.deltaY * (e.ctrlKey ? 0.01 : 0.002)));
    this.tip = undefined;
    this.schedule();
  };

  private onDoubleClick = (e: MouseEvent): void => {
    const hit = this.hit(e);
    if (hit === undefined || this.store === undefined) return;
    const text = describeHit(this.store, hit);
    if (text?.file !== undefined) {
      const detail: RevealDetail = { file: text.file, line: text.line ?? 0 };
      this.dispatchEvent(new CustomEvent('mpi-reveal', { detail, bubbles: true, composed: true }));
    }
  };

  private onKey = (e: KeyboardEvent): void => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const w = this.viewport.width;
    const page = Math.max(
      this.layout.laneHeight,
      this.layout.height - this.layout.axisHeight - this.layout.laneHeight,
    );
    const hold = (f: () => void) => (): void => {
      this.setFollow(false);
      f();
    };
    const actions: Record<string, () => void> = {
      ArrowLeft: hold(() => this.viewport.panBy(w / 8)),
      ArrowRight: hold(() => this.viewport.panBy(-w / 8)),
      ArrowUp: () => (this.scrollY -= this.layout.laneHeight),
      ArrowDown: () => (this.scrollY += this.layout.laneHeight),
      PageUp: () => (this.scrollY -= page),
      PageDown: () => (this.scrollY += page),
      '+': hold(() => this.viewport.zoomAt(w / 2, 0.7)),
      '=': hold(() => this.viewport.zoomAt(w / 2, 0.7)),
      '-': hold(() => this.viewport.zoomAt(w / 2, 1 / 0.7)),
      Home: hold(() => this.viewport.panBy(this.viewport.x(Number.MAX_SAFE_INTEGER))),
      End: hold(() => this.viewport.panBy(-this.viewport.x(Number.MAX_SAFE_INTEGER))),
      '0': () => this.fit(),
      f: () => this.setFollow(!this.follow),
      '/': () => this.dispatchEvent(new CustomEvent('mpi-find', { bubbles: true, composed: true })),
      n: () => void this.findNext(1),
      N: () => void this.findNext(-1),
    };
    const act = actions[e.key];
    if (act === undefined) return;
    e.preventDefault();
    act();
    this.tip = undefined;
    this.schedule();
  };

  /** Ranks blocked in a deadlock, for the app's header. */
  get blocked(): ReadonlySet<number> {
    return blockedRanks(this.store?.findings ?? []);
  }
}

customElements.define('mpi-timeline', MpiTimeline);

declare global {
  interface HTMLElementTagNameMap {
    'mpi-timeline': MpiTimeline;
  }
}
