import { html, LitElement, nothing } from 'lit';
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
    search: { state: true },
    following: { state: true },
    searchNote: { state: true },
  };

  store: TimelineStore | undefined;
  private selected: number | undefined;
  private version = 0;
  private unsubscribe: (() => void) | undefined;
  private pending = 0;
  private search = '';
  private following = true;
  private searchNote = '';

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
        <span class="find" role="search">
          <input
            type="search"
            placeholder="Find call (e.g. Allreduce)"
            aria-label="Find calls by MPI function name; Enter for the next, Shift+Enter for the previous"
            .value=${this.search}
            @input=${this.onSearchInput}
            @keydown=${this.onSearchKey}
          />
          <span class="count" aria-live="polite">${this.searchNote}</span>
        </span>
        <span class="hint"
          >drag to pan · wheel or +/- to zoom${s?.ended ? '' : ' · f holds the view'} · double-click a call
          for its source</span
        >
        ${
          s?.ended
            ? nothing
            : // A job that ended grows no more (a trace, a finished run): nothing to follow or hold.
              html`<button
                class="follow"
                aria-pressed=${this.following ? 'true' : 'false'}
                @click=${() => this.timeline?.setFollow(!this.following)}
                title="Follow the job as it grows, or hold the view where it is (f)"
              >
                ${this.following ? 'Following' : 'Held'}
              </button>`
        }
        <button @click=${() => this.timeline?.fit()} title="Show the whole job (0)">Fit</button>
      </header>
      <mpi-timeline
        .store=${s}
        .focusFinding=${this.selected}
        .search=${this.search}
        @mpi-find=${() => this.renderRoot.querySelector<HTMLInputElement>('.find input')?.focus()}
        @mpi-follow=${(e: CustomEvent<{ follow: boolean }>) => (this.following = e.detail.follow)}
      ></mpi-timeline>
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

  private onSearchInput = (e: Event): void => {
    this.search = (e.target as HTMLInputElement).value;
    void this.updateComplete.then(() => this.noteMatches());
  };

  private noteMatches(): void {
    const state = this.timeline?.searchState;
    if (state === undefined || state.text.trim() === '') this.searchNote = '';
    else this.searchNote = `${state.count.toLocaleString('en')} call${state.count === 1 ? '' : 's'}`;
  }

  private onSearchKey = (e: KeyboardEvent): void => {
    if (e.key === 'Enter') {
      e.preventDefault();
      this.noteMatches();
      if (this.timeline?.findNext(e.shiftKey ? -1 : 1) === false && this.search.trim() !== '')
        this.searchNote = 'no call matches';
    } else if (e.key === 'Escape') {
      this.search = '';
      this.searchNote = '';
      this.timeline?.renderRoot.querySelector<HTMLCanvasElement>('canvas.main')?.focus();
    }
  };

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
