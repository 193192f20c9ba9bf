import { html, LitElement } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import { CALL_CLASS_NAMES } from '../../../../server/src/timeline/timeline-protocol';
import type { TimelineStore } from '../../store/timeline-store';
import { blockedRanks } from '../../view/draw-timeline';
import { classColorVar } from '../../view/palette';
import { formatDuration } from '../../view/time-format';
import '../mpi-comm-matrix/mpi-comm-matrix';
import '../mpi-findings-list/mpi-findings-list';
import '../mpi-timeline/mpi-timeline';
import type { MpiTimeline } from '../mpi-timeline/mpi-timeline';
import { appStyles } from './mpi-app.styles';

/** Colour classes shown in the legend, in the order a person reads a p2p program. */
const LEGEND = [1, 2, 4, 3, 5];

/** The panel: a header with the job's numbers and the legend, the timeline, then findings and the matrix. */
export class MpiApp extends LitElement {
  static override styles = appStyles;
  static override properties = {
    store: { attribute: false },
    selected: { state: true },
    version: { state: true },
  };

  store: TimelineStore | undefined;
  private selected: number | undefined;
  private version = 0;
  private unsubscribe: (() => void) | undefined;
  private pending = 0;

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unsubscribe?.();
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('store')) {
      this.unsubscribe?.();
      // The DOM parts (header, findings list) re-render at most once a frame, however fast batches come.
      this.unsubscribe = this.store?.onChange(() => {
        if (this.pending !== 0) return;
        this.pending = requestAnimationFrame(() => {
          this.pending = 0;
          this.version = this.store?.version ?? 0;
        });
      });
    }
  }

  protected override render() {
    const s = this.store;
    const blocked = [...blockedRanks(s?.findings ?? [])].sort((a, b) => a - b);
    const program = s?.program ? (s.program.split('/').pop() ?? s.program) : 'no job yet';
    const state = s === undefined ? '' : s.ended ? 'ended' : blocked.length > 0 ? 'deadlocked' : 'running';
    return html`
      <header>
        <h1>${program}</h1>
        <span class="stats">
          ${s?.ranks ?? 0} ranks · ${formatDuration(s?.now ?? 0)} ·
          ${(s?.spanCount ?? 0).toLocaleString('en')} calls ·
          ${(s?.messages.length ?? 0).toLocaleString('en')} messages ·
          <span class=${blocked.length > 0 ? 'bad' : ''}
            >${state}${blocked.length > 0 ? ` (ranks ${blocked.join(', ')})` : ''}</span
          >
        </span>
        <ul class="legend" aria-label="Legend">
          ${LEGEND.map(
            (c) =>
              html`<li>
                <span class="chip" style=${styleMap({ background: classColorVar(c) })}></span
                >${CALL_CLASS_NAMES[c]}
              </li>`,
          )}
          <li><span class="chip blocked"></span>blocked</li>
          <li><span class="chip arrow"></span>message</li>
        </ul>
        <span class="spacer"></span>
        <span class="hint">drag to pan · wheel to zoom · double-click a call for its source</span>
        <button @click=${() => this.timeline?.fit()} title="Show the whole job (0)">Fit</button>
      </header>
      <mpi-timeline .store=${s} .focusFinding=${this.selected}></mpi-timeline>
      <div class="bottom">
        <section aria-labelledby="findings-title">
          <h2 id="findings-title">Findings (${s?.findings.length ?? 0})</h2>
          <mpi-findings-list
            .findings=${s?.findings ?? []}
            .selected=${this.selected}
            @mpi-finding-select=${this.onSelect}
          ></mpi-findings-list>
        </section>
        <section aria-labelledby="matrix-title">
          <h2 id="matrix-title">Bytes sent (row → column)</h2>
          <mpi-comm-matrix .store=${s}></mpi-comm-matrix>
        </section>
      </div>
    `;
  }

  private get timeline(): MpiTimeline | null {
    return this.renderRoot.querySelector('mpi-timeline');
  }

  private onSelect = (e: CustomEvent<{ id: number }>): void => {
    this.selected = e.detail.id;
    this.timeline?.showFinding(e.detail.id);
  };
}

customElements.define('mpi-app', MpiApp);

declare global {
  interface HTMLElementTagNameMap {
    'mpi-app': MpiApp;
  }
}
