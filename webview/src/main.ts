/**
 * The timeline webview's entry (bundled to dist/webview.js as browser ESM). It owns the store, feeds it the
 * host's TimelineMessages, and turns the components' reveal requests into messages to the host.
 */
import './components/mpi-app/mpi-app';
import type { RevealDetail } from './components/mpi-timeline/mpi-timeline';
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
bridge.onMessage((data) => store.apply(data));
bridge.post({ type: 'ready' });

/** For the dev page and screenshot script: the store and what was asked of the host. */
(window as unknown as { mpiscope: unknown }).mpiscope = { store, bridge, app };
