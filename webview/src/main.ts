/**
 * The timeline webview's entry (bundled to dist/webview.js as browser ESM). It owns the store, feeds it the
 * host's TimelineMessages, and turns the components' reveal requests into messages to the host.
 */
import './components/mpi-app/mpi-app';
import type { RevealDetail } from './components/mpi-timeline/mpi-timeline';
import { isOpenTiming } from '../../server/src/timeline/timeline-protocol';
import { HostBridge } from './host/host-bridge';
import { TimelineStore } from './store/timeline-store';

const bridge = new HostBridge();
const store = new TimelineStore();
const app = document.querySelector('mpi-app') ?? document.body.appendChild(document.createElement('mpi-app'));
app.store = store;
app.addEventListener('mpi-reveal', (e) => {
  const { file, line } = (e as CustomEvent<RevealDetail>).detail;
  bridge.post({ type: 'reveal', file, line });
});
// When the page started, loaded, received its first and last data batch and had applied it (ms since the
// epoch), with the host's marks once it posts them: a trace editor's opening as bench/timeline/vscode-open.mjs
// breaks it down. ingestMs sums the store's work on data batches (between arrivals the page may be idle).
const epochNow = (): number => performance.timeOrigin + performance.now();
const timing: Record<string, number> = { pageStart: performance.timeOrigin, loaded: epochNow(), ingestMs: 0 };
bridge.onMessage((data) => {
  if (isOpenTiming(data)) {
    Object.assign(timing, data.marks);
    return;
  }
  const at = epochNow();
  if (!store.apply(data) || (data as { type?: unknown }).type !== 'data') return;
  timing.firstData ??= at;
  timing.lastData = at;
  timing.applied = epochNow();
  timing.ingestMs = (timing.ingestMs ?? 0) + (timing.applied - at);
});
bridge.post({ type: 'ready' });

/** For the dev page and screenshot script: the store and what was asked of the host; for benches, timing. */
(window as unknown as { mpiscope: unknown }).mpiscope = { store, bridge, app, timing };
