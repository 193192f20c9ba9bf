import { html, LitElement } from 'lit';
import type { TimelineFinding, TimelineLocation } from '../../../../server/src/timeline/timeline-protocol';
import { nextIndex, shortLocation, sortFindings } from './findings-nav';
import { findingsListStyles } from './mpi-findings-list.styles';

/**
 * The findings as a real list (screen readers, keyboard): ↑/↓/Home/End move, Enter or a click on a
 * location reveals it in the editor (`mpi-reveal`), selecting an item shows it on the timeline
 * (`mpi-finding-select`).
 */
export class MpiFindingsList extends LitElement {
  static override styles = findingsListStyles;
  static override properties = {
    findings: { attribute: false },
    selected: { attribute: false },
  };

  findings: readonly TimelineFinding[] = [];
  selected: number | undefined;

  protected override render() {
    const list = sortFindings(this.findings);
    if (list.length === 0) return html`<div class="empty" role="status">No findings so far.</div>`;
    const active = Math.max(
      0,
      list.findIndex((f) => f.id === this.selected),
    );
    return html`<ul
      role="listbox"
      aria-label="Findings (${list.length})"
      @keydown=${(e: KeyboardEvent) => this.onKey(e, list)}
    >
      ${list.map(
        (f, i) =>
          html`<li
            role="option"
            id="finding-${f.id}"
            tabindex=${i === active ? 0 : -1}
            aria-selected=${f.id === this.selected ? 'true' : 'false'}
            @click=${() => this.choose(f)}
            @focus=${() => this.select(f)}
          >
            <div class="head">
              <span class="sev ${f.severity}">${f.severity}</span><span class="kind">${f.kind}</span>
            </div>
            <div class="message">${f.message}</div>
            ${f.locations.map((l) => this.location(l))}
          </li>`,
      )}
    </ul>`;
  }

  private location(l: TimelineLocation) {
    const where = shortLocation(l.file, l.line);
    return html`<div class="loc">
      rank ${l.rank}: ${l.detail}
      ${
        where === ''
          ? ''
          : html`—
              <a
                href="#"
                title="${l.file}:${l.line}"
                @click=${(e: Event) => {
                  e.preventDefault();
                  e.stopPropagation();
                  this.reveal(l);
                }}
                >${where}</a
              >`
      }
    </div>`;
  }

  private onKey(e: KeyboardEvent, list: readonly TimelineFinding[]): void {
    const current = Math.max(
      0,
      list.findIndex((f) => f.id === this.selected),
    );
    if (e.key === 'Enter' || e.key === ' ') {
      const f = list[current];
      if (f !== undefined) this.choose(f);
      e.preventDefault();
      return;
    }
    const next = nextIndex(current, e.key, list.length);
    if (next === undefined) return;
    e.preventDefault();
    const f = list[next];
    if (f === undefined) return;
    this.select(f);
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>(`#finding-${f.id}`)?.focus(),
    );
  }

  private select(f: TimelineFinding): void {
    if (this.selected === f.id) return;
    this.selected = f.id;
    this.dispatchEvent(
      new CustomEvent('mpi-finding-select', { detail: { id: f.id }, bubbles: true, composed: true }),
    );
  }

  /** Click or Enter: select, and reveal the first location that has a source line. */
  private choose(f: TimelineFinding): void {
    this.select(f);
    const l = f.locations.find((x) => x.file !== '');
    if (l !== undefined) this.reveal(l);
  }

  private reveal(l: TimelineLocation): void {
    this.dispatchEvent(
      new CustomEvent('mpi-reveal', {
        detail: { file: l.file, line: l.line },
        bubbles: true,
        composed: true,
      }),
    );
  }
}

customElements.define('mpi-findings-list', MpiFindingsList);

declare global {
  interface HTMLElementTagNameMap {
    'mpi-findings-list': MpiFindingsList;
  }
}
