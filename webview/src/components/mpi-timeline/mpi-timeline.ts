import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import type { TimelineStore } from '../../store/timeline-store';
import { describeHit, type HitText } from '../../view/describe-hit';
import { FrameDriver } from '../../view/frame-driver';
import { blockedRanks, drawTimeline, type SpanRef } from '../../view/draw-timeline';
import { hitTest, type Hit } from '../../view/hit-test';
import { layoutLanes, type LaneLayout } from '../../view/lane-layout';
import { resolvePalette, type Palette } from '../../view/palette';
import { Viewport } from '../../view/viewport';
import { timelineSummary } from './timeline-summary';
import { timelineStyles } from './mpi-timeline.styles';

export interface RevealDetail {
  readonly file: string;
  readonly line: number;
}

/**
 * The job on a canvas: one lane per rank, calls as spans, messages as arrows, findings as markers, the
 * deadlock ring in red. Drag pans, the wheel zooms (pans with shift), double-click reveals a call's source
 * line. Keyboard: ←/→ pan, +/- zoom, 0 shows everything. Until the user moves the view it follows the job.
 */
export class MpiTimeline extends LitElement {
  static override styles = timelineStyles;
  static override properties = {
    store: { attribute: false },
    focusFinding: { attribute: false },
    tip: { state: true },
  };

  store: TimelineStore | undefined;
  focusFinding: number | undefined;
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

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('store')) {
      this.frames.watch(this.store);
      this.follow = true;
    }
    if (changed.has('focusFinding')) this.schedule();
  }

  /** Moves the view to a finding's calls and emphasises them. */
  showFinding(id: number): void {
    const f = this.store?.findings.find((x) => x.id === id);
    if (f === undefined || f.times.length === 0) return;
    this.focusFinding = id;
    this.follow = false;
    const lo = Math.min(...f.times);
    const hi = Math.max(this.store?.now ?? lo, ...f.times);
    this.viewport.show(lo, hi);
    const rank = f.locations[0]?.rank ?? 0;
    this.scrollY = Math.max(0, (rank - 1) * this.layout.laneHeight);
    this.schedule();
  }

  /** Shows the whole job and resumes following it. */
  fit(): void {
    this.follow = true;
    this.schedule();
  }

  protected override render() {
    const tip = this.tip;
    return html`
      <canvas
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
    return this.renderRoot.querySelector('canvas');
  }

  private measure(): void {
    const r = this.getBoundingClientRect();
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
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTimeline(ctx, store, {
      viewport: this.viewport,
      layout: this.layout,
      palette: this.palette,
      width,
      selected: this.selected,
      hovered: this.hovered,
      focusFinding: this.focusFinding,
    });
    this.lastDrawMs = performance.now() - t;
    if (this.drawnVersion !== store.version) {
      this.drawnVersion = store.version;
      canvas.setAttribute('aria-label', timelineSummary(store));
    }
  }

  private local(e: MouseEvent): [number, number] {
    const r = this.getBoundingClientRect();
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
        this.follow = false;
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
    return { x: left, y: top, text };
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
    this.follow = false;
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
    const w = this.viewport.width;
    const actions: Record<string, () => void> = {
      ArrowLeft: () => this.viewport.panBy(w / 8),
      ArrowRight: () => this.viewport.panBy(-w / 8),
      ArrowUp: () => (this.scrollY -= this.layout.laneHeight),
      ArrowDown: () => (this.scrollY += this.layout.laneHeight),
      '+': () => this.viewport.zoomAt(w / 2, 0.7),
      '=': () => this.viewport.zoomAt(w / 2, 0.7),
      '-': () => this.viewport.zoomAt(w / 2, 1 / 0.7),
      '0': () => (this.follow = true),
    };
    const act = actions[e.key];
    if (act === undefined) return;
    e.preventDefault();
    if (e.key !== '0') this.follow = false;
    act();
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
