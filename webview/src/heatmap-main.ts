/**
 * The net-test heatmap page's entry (bundled to dist/netview.js as browser ESM). Its data comes either
 * inline, in `<script type="application/json" id="mpiscope-net-test">` (the standalone page written by
 * `mpiscope view`), or from the VS Code custom editor as a `{type: 'net-test', names, texts}` message.
 * Every file is checked with the CLI's own validator before it is drawn.
 */
import './components/mpi-heatmap/mpi-heatmap';
import { NetTestFormatError, readNetTestText, type NetTestFile } from '../../server/src/perf/net-test-file';

interface Payload {
  readonly names: readonly string[];
  readonly texts: readonly string[];
}

const view =
  document.querySelector('mpi-heatmap') ?? document.body.appendChild(document.createElement('mpi-heatmap'));

function show(p: Payload): void {
  try {
    const runs: NetTestFile[] = p.texts.map((t) => readNetTestText(t));
    view.names = p.names;
    view.runs = runs;
  } catch (err) {
    const why = err instanceof NetTestFormatError ? err.message : String(err);
    view.replaceWith(
      Object.assign(document.createElement('p'), { textContent: `Cannot show this file: ${why}` }),
    );
  }
}

function isPayload(v: unknown): v is Payload {
  const p = v as Partial<Payload> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    Array.isArray(p.names) &&
    Array.isArray(p.texts) &&
    p.texts.length > 0 &&
    p.texts.length <= 2 &&
    p.texts.every((t) => typeof t === 'string') &&
    p.names.every((n) => typeof n === 'string')
  );
}

const inline = document.getElementById('mpiscope-net-test');
if (inline !== null) {
  const data: unknown = JSON.parse(inline.textContent ?? 'null');
  if (isPayload(data)) show(data);
} else if (typeof acquireVsCodeApi === 'function') {
  const api = acquireVsCodeApi();
  window.addEventListener('message', (e: MessageEvent<unknown>) => {
    const m = e.data as { type?: unknown } | null;
    if (m !== null && typeof m === 'object' && m.type === 'net-test' && isPayload(m)) show(m);
  });
  api.postMessage({ type: 'ready' });
}

/** For the component tests: the element and what it draws. */
(window as unknown as { mpiscope: unknown }).mpiscope = { heatmap: view };
