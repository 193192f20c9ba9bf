/**
 * The message-queue view's page: the ranks as a graph (a circle of ranks, an arrow from each rank to the ranks
 * it waits for, the arrows of a cycle drawn in the error colour and named above), then each rank's pending sends,
 * pending receives and unexpected messages with their call sites. Pure (no vscode import), so it is tested
 * without an editor; the page has no script at all, and its one style element carries the CSP nonce.
 */
import type { MessageQueuesResponse } from './message-queues-request';

/** The command a call-site link runs (registered by extension/src/queue-view.ts): opens FILE at LINE. */
export const OPEN_SITE_COMMAND = 'mpiscope.openQueueSite';

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

const KIND_TITLE = { send: 'Pending sends', receive: 'Pending receives', unexpected: 'Unexpected messages' };

/** Where each rank sits on the circle. */
function layout(n: number, radius: number, c: number): { x: number; y: number }[] {
  return Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / Math.max(n, 1) - Math.PI / 2;
    return { x: c + radius * Math.cos(a), y: c + radius * Math.sin(a) };
  });
}

function graph(q: MessageQueuesResponse): string {
  const n = Math.max(
    q.ranks,
    ...q.entries.map((e) => e.rank + 1),
    ...q.edges.map((e) => Math.max(e.from, e.to) + 1),
  );
  const size = Math.max(240, Math.min(900, 60 * n));
  const c = size / 2;
  const at = layout(n, c - 30, c);
  const node = 14;
  const lines = q.edges.map((e) => {
    const a = at[e.from];
    const b = at[e.to];
    if (a === undefined || b === undefined) return '';
    const cls = `edge ${e.kind}${e.inCycle ? ' cycle' : ''}`;
    if (e.from === e.to)
      return `<circle class="${cls}" cx="${a.x}" cy="${a.y - node - 8}" r="9" fill="none"><title>rank ${e.from} waits for itself</title></circle>`;
    // Stop at the rims, so the arrowheads show.
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const [x1, y1] = [a.x + (dx / len) * node, a.y + (dy / len) * node];
    const [x2, y2] = [b.x - (dx / len) * (node + 4), b.y - (dy / len) * (node + 4)];
    const what = e.kind === 'send' ? 'sends to' : 'receives from';
    return `<line class="${cls}" x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" marker-end="url(#${e.inCycle ? 'head-cycle' : 'head'})"><title>rank ${e.from} waits: ${what} rank ${e.to}${e.inCycle ? ' (in a cycle)' : ''}</title></line>`;
  });
  const inCycle = new Set(q.cycles.flat());
  const nodes = at.map(
    (p, r) =>
      `<g class="rank${inCycle.has(r) ? ' cycle' : ''}"><circle cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" r="${node}"/><text x="${p.x.toFixed(1)}" y="${(p.y + 4).toFixed(1)}" text-anchor="middle">${r}</text></g>`,
  );
  return `<svg role="img" aria-label="Ranks and who waits for whom" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
<defs>
<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="head" d="M0,0 L10,5 L0,10 z"/></marker>
<marker id="head-cycle" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="head cycle" d="M0,0 L10,5 L0,10 z"/></marker>
</defs>
${lines.join('\n')}
${nodes.join('\n')}
</svg>`;
}

function site(file: string, line: number, fn: string): string {
  if (file === '') return '<span class="dim">(no source line)</span>';
  const args = encodeURIComponent(JSON.stringify([{ file, line }]));
  const name = file.split('/').pop() ?? file;
  return `<a href="command:${OPEN_SITE_COMMAND}?${args}" title="${esc(file)}:${line}">${esc(name)}:${line}</a>${fn !== '' ? ` <span class="dim">in ${esc(fn)}</span>` : ''}`;
}

function tables(q: MessageQueuesResponse): string {
  const ranks = [...new Set(q.entries.map((e) => e.rank))].sort((a, b) => a - b);
  if (ranks.length === 0) return '<p>No pending send, pending receive or unexpected message.</p>';
  return ranks
    .map((r) => {
      const mine = q.entries.filter((e) => e.rank === r);
      const parts = (['send', 'receive', 'unexpected'] as const).flatMap((kind) => {
        const list = mine.filter((e) => e.kind === kind);
        if (list.length === 0) return [];
        const rows = list.map(
          (e) =>
            `<tr><td>${esc(e.detail)}</td><td>${e.kind === 'unexpected' ? `from rank ${e.caller}, ` : ''}${site(e.file, e.line, e.function)}</td></tr>`,
        );
        return [`<h3>${KIND_TITLE[kind]} (${list.length})</h3><table>${rows.join('')}</table>`];
      });
      return `<section><h2>Rank ${r}</h2>${parts.join('')}</section>`;
    })
    .join('\n');
}

export function queueGraphHtml(q: MessageQueuesResponse, nonce: string): string {
  const cycles =
    q.cycles.length === 0
      ? '<p>No cycle: no set of ranks waits for each other.</p>'
      : q.cycles
          .map((c) => `<p class="alert">Cycle: ranks ${c.join(' → ')} wait for each other.</p>`)
          .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}';">
<title>MPI message queues</title>
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.dim { color: var(--vscode-descriptionForeground); }
.alert { color: var(--vscode-errorForeground); font-weight: bold; }
svg .rank circle { fill: var(--vscode-editor-background); stroke: var(--vscode-foreground); stroke-width: 1.5; }
svg .rank.cycle circle { stroke: var(--vscode-errorForeground); stroke-width: 3; }
svg text { fill: var(--vscode-foreground); font-size: 12px; }
svg .edge { stroke: var(--vscode-foreground); stroke-width: 1.5; }
svg .edge.send { stroke-dasharray: 5 3; }
svg .edge.cycle { stroke: var(--vscode-errorForeground); stroke-width: 3; }
svg .head { fill: var(--vscode-foreground); }
svg .head.cycle { fill: var(--vscode-errorForeground); }
table { border-collapse: collapse; }
td { padding: 2px 12px 2px 0; vertical-align: top; }
a { color: var(--vscode-textLink-foreground); }
</style>
</head>
<body>
<h1>MPI message queues</h1>
<p class="dim">${q.paused ? 'The job is stopped.' : 'The job is running: this is a snapshot.'} An arrow goes from a rank to the ranks it waits for (solid: a receive, dashed: a send).</p>
${cycles}
${graph(q)}
${tables(q)}
</body>
</html>`;
}
