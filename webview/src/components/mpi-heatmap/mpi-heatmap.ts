import { html, LitElement, nothing } from 'lit';
import { STATISTICS, type NetTestFile, type Statistic } from '../../../../server/src/perf/net-test-file';
import {
  buildGrid,
  colourOf,
  formatSeconds,
  level,
  type ColourScale,
  type Compare,
  type Grid,
  type Normalization,
  type ValueMapping,
  type Zoom,
} from '../../../../server/src/perf/heatmap-model';
import { heatGeometry, positionAt, type HeatGeometry } from './heatmap-geometry';
import { heatmapStyles } from './mpi-heatmap.styles';

const STAT_NAMES: Record<Statistic, string> = {
  min: 'minimum',
  median: 'median',
  mean: 'mean',
  stddev: 'standard deviation',
};

/**
 * The net-test heatmaps (after PARUS network_viewer): one matrix of delays from row rank to column rank per
 * message length and statistic, ranks ordered by host so each host is a block; global or local
 * normalization, grey or colour; drag a rectangle to zoom into a sub-matrix (normalized on its own); hover
 * for a cell's value; with a second run, side by side or as a ratio.
 */
export class MpiHeatmap extends LitElement {
  static override styles = heatmapStyles;
  static override properties = {
    runs: { attribute: false },
    names: { attribute: false },
    stat: { state: true },
    lengthIndex: { state: true },
    normalization: { state: true },
    scale: { state: true },
    mapping: { state: true },
    compare: { state: true },
    zoom: { state: true },
    readout: { state: true },
  };

  runs: readonly NetTestFile[] = [];
  names: readonly string[] = [];
  stat: Statistic = 'median';
  lengthIndex = 0;
  normalization: Normalization = 'global';
  scale: ColourScale = 'colour';
  mapping: ValueMapping = 'log';
  compare: Compare = 'single';
  zoom: Zoom | undefined;
  private readout = 'Hover a cell for its delay; drag a rectangle to zoom into a sub-matrix.';
  /** What is drawn, per map, for hover and hit tests (and tests reading the page). */
  grids: Grid[] = [];
  private geometries: HeatGeometry[] = [];
  private drag: { map: number; from: [number, number]; to: [number, number] } | undefined;
  private resize = new ResizeObserver(() => this.draw());

  override connectedCallback(): void {
    super.connectedCallback();
    this.resize.observe(this);
  }

  override disconnectedCallback(): void {
    this.resize.disconnect();
    super.disconnectedCallback();
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('runs')) {
      if (this.runs.length < 2) this.compare = 'single';
      else if (this.compare === 'single') this.compare = 'side-by-side';
      this.lengthIndex = Math.min(this.lengthIndex, Math.max(0, (this.runs[0]?.results.length ?? 1) - 1));
      this.zoom = undefined;
    }
    const maps = this.compare === 'side-by-side' ? this.runs.length : Math.min(1, this.runs.length);
    this.grids = [];
    for (let k = 0; k < maps; k++)
      this.grids.push(
        buildGrid(this.runs, k, this.compare, this.stat, this.lengthIndex, this.normalization, this.zoom),
      );
  }

  protected override render() {
    const first = this.runs[0];
    if (first === undefined) return html`<div class="readout">No net-test result to show.</div>`;
    const lengths = first.results.map((r) => r.length);
    const titles = this.grids.map((_, k) =>
      this.compare === 'ratio'
        ? `${this.names[0] ?? 'run 1'} ÷ ${this.names[1] ?? 'run 2'}`
        : (this.names[k] ?? `run ${k + 1}`),
    );
    return html`<div class="bar">
        <label
          >Statistic
          <select
            id="stat"
            @change=${(e: Event) => (this.stat = (e.target as HTMLSelectElement).value as Statistic)}
          >
            ${STATISTICS.map((s) => html`<option value=${s} ?selected=${s === this.stat}>${STAT_NAMES[s]}</option>`)}
          </select></label
        >
        <label
          >Message length
          <select
            id="length"
            @change=${(e: Event) => (this.lengthIndex = Number((e.target as HTMLSelectElement).value))}
          >
            ${lengths.map(
              (l, k) => html`<option value=${k} ?selected=${k === this.lengthIndex}>${l} bytes</option>`,
            )}
          </select></label
        >
        <label
          >Normalization
          <select
            id="normalization"
            @change=${(e: Event) =>
              (this.normalization = (e.target as HTMLSelectElement).value as Normalization)}
          >
            <option value="global" ?selected=${this.normalization === 'global'}>global (every length)</option>
            <option value="local" ?selected=${this.normalization === 'local'}>local (this matrix)</option>
          </select></label
        >
        <label
          >Scale
          <select
            id="scale"
            @change=${(e: Event) => (this.scale = (e.target as HTMLSelectElement).value as ColourScale)}
          >
            <option value="colour" ?selected=${this.scale === 'colour'}>colour</option>
            <option value="grey" ?selected=${this.scale === 'grey'}>grey</option>
          </select></label
        >
        <label
          >Values
          <select
            id="mapping"
            @change=${(e: Event) => (this.mapping = (e.target as HTMLSelectElement).value as ValueMapping)}
          >
            <option value="log" ?selected=${this.mapping === 'log'}>logarithmic</option>
            <option value="linear" ?selected=${this.mapping === 'linear'}>linear</option>
          </select></label
        >
        ${
          this.runs.length > 1
            ? html`<label
                >Two runs
                <select
                  id="compare"
                  @change=${(e: Event) => {
                    this.compare = (e.target as HTMLSelectElement).value as Compare;
                    this.zoom = undefined;
                  }}
                >
                  <option value="side-by-side" ?selected=${this.compare === 'side-by-side'}>
                    side by side
                  </option>
                  <option value="ratio" ?selected=${this.compare === 'ratio'}>ratio (first ÷ second)</option>
                </select></label
              >`
            : nothing
        }
        <button id="unzoom" ?disabled=${this.zoom === undefined} @click=${() => (this.zoom = undefined)}>
          Whole matrix
        </button>
      </div>
      <div class="maps">
        ${this.grids.map(
          (g, k) =>
            html`<div class="map">
              <div class="title">${titles[k]}</div>
              <div class="box">
                <canvas
                  data-map=${k}
                  role="img"
                  aria-label=${this.describe(g, k)}
                  @pointerdown=${this.onDown}
                  @pointermove=${this.onMove}
                  @pointerup=${this.onUp}
                  @pointerleave=${() => (this.drag = undefined)}
                ></canvas>
              </div>
            </div>`,
        )}
      </div>
      <div class="legend">
        <span>${this.formatValue(this.grids[0]?.lo ?? 0)}</span>
        <canvas class="ramp" id="ramp" width="160" height="10"></canvas>
        <span>${this.formatValue(this.grids[0]?.hi ?? 0)}</span>
        <span
          >${this.mapping === 'log' ? 'logarithmic, ' : 'linear, '}${
            this.zoom !== undefined
              ? 'zoomed: normalized over the sub-matrix'
              : this.normalization === 'global'
                ? `normalized over every message length${this.compare === 'side-by-side' ? ' of both runs' : ''}`
                : 'normalized over this matrix'
          }</span
        >
      </div>
      <div class="readout" aria-live="polite">${this.readout}</div>`;
  }

  protected override updated(): void {
    this.draw();
  }

  private formatValue(v: number): string {
    return this.compare === 'ratio' ? `×${v.toPrecision(3)}` : formatSeconds(v);
  }

  private describe(g: Grid, k: number): string {
    const run = this.runs[k] ?? this.runs[0];
    const hosts = new Set(g.rows.map((r) => run?.hosts[r])).size;
    const length = this.runs[0]?.results[this.lengthIndex]?.length ?? 0;
    return `${STAT_NAMES[this.stat]} ${this.compare === 'ratio' ? 'ratio' : 'delay'} at ${length} bytes: ${g.rows.length}×${g.cols.length} ranks on ${hosts} host${hosts === 1 ? '' : 's'}, ${this.zoom ? 'zoomed, ' : ''}${this.zoom ? 'local' : this.normalization} normalization from ${this.formatValue(g.lo)} to ${this.formatValue(g.hi)}`;
  }

  private draw(): void {
    const canvases = this.renderRoot.querySelectorAll<HTMLCanvasElement>('canvas[data-map]');
    const style = getComputedStyle(this);
    const fg = style.getPropertyValue('--vscode-foreground').trim() || '#cccccc';
    const muted = style.getPropertyValue('--vscode-descriptionForeground').trim() || '#9d9d9d';
    const empty = style.getPropertyValue('--vscode-editorWidget-background').trim() || '#2d2d2d';
    this.geometries = [];
    canvases.forEach((canvas, k) => {
      const g = this.grids[k];
      const run = this.runs[k] ?? this.runs[0];
      const box = canvas.parentElement;
      if (g === undefined || run === undefined || box === null) return;
      const { width, height } = box.getBoundingClientRect();
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.max(1, Math.round(width * dpr));
      canvas.height = Math.max(1, Math.round(height * dpr));
      const ctx = canvas.getContext('2d');
      if (ctx === null) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const geo = heatGeometry(g.rows.length, g.cols.length, width, height);
      this.geometries[k] = geo;
      const gap = geo.cell >= 6 ? 1 : 0;
      g.values.forEach((row, a) =>
        row.forEach((v, b) => {
          ctx.fillStyle = v === null ? empty : colourOf(level(v, g.lo, g.hi, this.mapping), this.scale);
          ctx.fillRect(geo.left + b * geo.cell, geo.top + a * geo.cell, geo.cell - gap, geo.cell - gap);
        }),
      );
      // Host blocks: a line where the host changes, and the host's name beside its rows.
      ctx.strokeStyle = fg;
      ctx.lineWidth = 1.5;
      for (const p of g.rowBreaks) {
        ctx.beginPath();
        ctx.moveTo(geo.left - 6, geo.top + p * geo.cell - 0.5);
        ctx.lineTo(geo.left + g.cols.length * geo.cell, geo.top + p * geo.cell - 0.5);
        ctx.stroke();
      }
      for (const p of g.colBreaks) {
        ctx.beginPath();
        ctx.moveTo(geo.left + p * geo.cell - 0.5, geo.top - 6);
        ctx.lineTo(geo.left + p * geo.cell - 0.5, geo.top + g.rows.length * geo.cell);
        ctx.stroke();
      }
      ctx.font = '10px sans-serif';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = muted;
      const starts = [0, ...g.rowBreaks];
      starts.forEach((s, q) => {
        const e = starts[q + 1] ?? g.rows.length;
        ctx.textAlign = 'left';
        const name = run.hosts[g.rows[s] as number] ?? '';
        ctx.fillText(name.slice(0, 9), 2, geo.top + ((s + e) / 2) * geo.cell);
      });
      const every = Math.max(1, Math.ceil(14 / geo.cell));
      ctx.textAlign = 'right';
      for (let a = 0; a < g.rows.length; a += every)
        ctx.fillText(String(g.rows[a]), geo.left - 8, geo.top + (a + 0.5) * geo.cell);
      ctx.textAlign = 'center';
      for (let b = 0; b < g.cols.length; b += every)
        ctx.fillText(String(g.cols[b]), geo.left + (b + 0.5) * geo.cell, geo.top - 12);
      ctx.textAlign = 'left';
      ctx.fillText('to →', geo.left, 6);
      ctx.fillText('from ↓', 2, 6);
      if (this.drag?.map === k) {
        const [r0, r1] = [this.drag.from[0], this.drag.to[0]].sort((x, y) => x - y) as [number, number];
        const [c0, c1] = [this.drag.from[1], this.drag.to[1]].sort((x, y) => x - y) as [number, number];
        ctx.strokeStyle = '#ff4081';
        ctx.lineWidth = 2;
        ctx.strokeRect(
          geo.left + c0 * geo.cell,
          geo.top + r0 * geo.cell,
          (c1 - c0 + 1) * geo.cell,
          (r1 - r0 + 1) * geo.cell,
        );
      }
    });
    const ramp = this.renderRoot.querySelector<HTMLCanvasElement>('#ramp');
    const rctx = ramp?.getContext('2d');
    if (ramp && rctx) {
      for (let x = 0; x < ramp.width; x++) {
        rctx.fillStyle = colourOf(x / (ramp.width - 1), this.scale);
        rctx.fillRect(x, 0, 1, ramp.height);
      }
    }
  }

  private where(e: PointerEvent, clamp: boolean): { map: number; at: [number, number] } | undefined {
    const canvas = e.currentTarget as HTMLCanvasElement;
    const map = Number(canvas.dataset.map);
    const geo = this.geometries[map];
    if (geo === undefined) return undefined;
    const r = canvas.getBoundingClientRect();
    const at = positionAt(geo, e.clientX - r.left, e.clientY - r.top, clamp);
    return at === undefined ? undefined : { map, at };
  }

  private onDown = (e: PointerEvent): void => {
    const w = this.where(e, false);
    if (w === undefined) return;
    this.drag = { map: w.map, from: w.at, to: w.at };
    (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
  };

  private onMove = (e: PointerEvent): void => {
    if (this.drag !== undefined) {
      const w = this.where(e, true);
      if (w !== undefined) this.drag = { ...this.drag, to: w.at };
      this.draw();
    }
    const w = this.where(e, false);
    if (w === undefined) return;
    const g = this.grids[w.map];
    const run = this.runs[w.map] ?? this.runs[0];
    if (g === undefined || run === undefined) return;
    const [a, b] = w.at;
    const i = g.rows[a] as number;
    const j = g.cols[b] as number;
    const v = g.values[a]?.[b] ?? null;
    const length = run.results[this.lengthIndex]?.length ?? 0;
    this.readout = `rank ${i} (${run.hosts[i]}) → rank ${j} (${run.hosts[j]}), ${length} bytes, ${STAT_NAMES[this.stat]}: ${v === null ? 'not measured' : this.formatValue(v)}`;
  };

  private onUp = (e: PointerEvent): void => {
    const d = this.drag;
    this.drag = undefined;
    if (d === undefined) return;
    const w = this.where(e, true);
    const to = w?.at ?? d.to;
    const r0 = Math.min(d.from[0], to[0]);
    const r1 = Math.max(d.from[0], to[0]);
    const c0 = Math.min(d.from[1], to[1]);
    const c1 = Math.max(d.from[1], to[1]);
    // A click (one cell) is not a zoom; any larger rectangle is, relative to what is shown now.
    if (r0 === r1 && c0 === c1) {
      this.draw();
      return;
    }
    const base = this.zoom ?? { r0: 0, r1: 0, c0: 0, c1: 0 };
    this.zoom = { r0: base.r0 + r0, r1: base.r0 + r1, c0: base.c0 + c0, c1: base.c0 + c1 };
  };
}

customElements.define('mpi-heatmap', MpiHeatmap);

declare global {
  interface HTMLElementTagNameMap {
    'mpi-heatmap': MpiHeatmap;
  }
}
