import { html, LitElement } from 'lit';
import type { TimelineStore } from '../../store/timeline-store';
import { resolvePalette } from '../../view/palette';
import { FrameDriver } from '../../view/frame-driver';
import { formatBytes } from '../../view/time-format';
import { cellAt, heat, matrixGeometry, type MatrixGeometry } from './matrix-scale';
import { commMatrixStyles } from './mpi-comm-matrix.styles';

/** Bytes sent between every pair of ranks (rows: sender, columns: receiver) as a heat map. */
export class MpiCommMatrix extends LitElement {
  static override styles = commMatrixStyles;
  static override properties = {
    store: { attribute: false },
    readout: { state: true },
  };

  store: TimelineStore | undefined;
  private readout = 'Hover a cell: bytes from the row rank to the column rank.';
  private geometry: MatrixGeometry = matrixGeometry(0, 0, 0);
  private readonly frames = new FrameDriver(this, () => this.draw());

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('store')) this.frames.watch(this.store);
  }

  protected override render() {
    return html`<div class="box">
        <canvas role="img" aria-label=${this.describe()} @pointermove=${this.onMove}></canvas>
      </div>
      <div class="readout" aria-live="polite">${this.readout}</div>`;
  }

  protected override updated(): void {
    this.frames.schedule();
  }

  private describe(): string {
    const s = this.store;
    if (s === undefined) return 'Communication matrix: no data';
    let pairs = 0;
    let total = 0;
    for (const v of s.matrix) {
      if (v > 0) {
        pairs++;
        total += v;
      }
    }
    return `Communication matrix of ${s.ranks} ranks: ${pairs} sender-receiver pairs exchanged ${formatBytes(total)}.`;
  }

  private draw(): void {
    const canvas = this.renderRoot.querySelector('canvas');
    const box = this.renderRoot.querySelector('.box');
    const s = this.store;
    if (canvas === null || box === null || s === undefined) return;
    const { width, height } = box.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    const ctx = canvas.getContext('2d');
    if (ctx === null) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const style = getComputedStyle(this);
    const p = resolvePalette((n) => style.getPropertyValue(n));
    const n = s.ranks;
    const g = (this.geometry = matrixGeometry(n, width, height));
    ctx.clearRect(0, 0, width, height);
    let max = 0;
    for (const v of s.matrix) max = Math.max(max, v);
    ctx.fillStyle = p.laneAlt;
    ctx.fillRect(g.margin, g.margin, g.cell * n, g.cell * n);
    ctx.fillStyle = p.cls[1] ?? p.foreground;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const h = heat(s.matrix[i * n + j] ?? 0, max);
        if (h === 0) continue;
        ctx.globalAlpha = h;
        ctx.fillRect(
          g.margin + j * g.cell,
          g.margin + i * g.cell,
          Math.max(1, g.cell - 1),
          Math.max(1, g.cell - 1),
        );
      }
    }
    ctx.globalAlpha = 1;
    ctx.fillStyle = p.muted;
    ctx.font = `10px ${p.font}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const every = Math.max(1, Math.ceil(14 / g.cell));
    for (let k = 0; k < n; k += every) {
      ctx.fillText(String(k), g.margin + (k + 0.5) * g.cell, g.margin - 9);
      ctx.fillText(String(k), g.margin - 12, g.margin + (k + 0.5) * g.cell);
    }
    ctx.textAlign = 'left';
    ctx.fillText('to →', g.margin, 8);
    ctx.save();
    ctx.translate(8, g.margin);
    ctx.rotate(Math.PI / 2);
    ctx.fillText('from →', 0, 0);
    ctx.restore();
  }

  private onMove = (e: PointerEvent): void => {
    const s = this.store;
    if (s === undefined) return;
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const cell = cellAt(this.geometry, s.ranks, e.clientX - r.left, e.clientY - r.top);
    if (cell === undefined) return;
    const [i, j] = cell;
    this.readout = `rank ${i} → rank ${j}: ${formatBytes(s.matrix[i * s.ranks + j] ?? 0)}`;
  };
}

customElements.define('mpi-comm-matrix', MpiCommMatrix);

declare global {
  interface HTMLElementTagNameMap {
    'mpi-comm-matrix': MpiCommMatrix;
  }
}
