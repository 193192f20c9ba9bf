/**
 * The timeline webview's entry (bundled to dist/webview.js as browser ESM). It owns the store, feeds it the
 * host's TimelineMessages, and turns the components' reveal requests into messages to the host.
 */
import './components/mpi-app/mpi-app';
import type { RevealDetail } from './components/mpi-timeline/mpi-timeline';
import {
  isBlockReply,
  isOpenTiming,
  type BlockReply,
  type ColumnsAt,
  type TimelineData,
} from '../../server/src/timeline/timeline-protocol';
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
// blocksFetched / blocksPosted: how the trace editor's columns came (fetched by the page, or posted by the host
// after a fetch failed); lastFetched: when the last block's bytes were here.
timing.blocksFetched = 0;
timing.blocksPosted = 0;

/** Blocks asked of the host (a fetch failed), by offset: settled by its BlockReply. */
const asked = new Map<number, (reply: BlockReply) => void>();
let fetchFailed = false;

/**
 * A trace editor's batch names where its columns are (columnsAt): fetched from VS Code's webview resource
 * loading with a Range, so they do not pass through the extension host or a relayed message. Where that
 * fails (an older VS Code, a resource route without ranges), the page says so once and asks the host to
 * post the blocks instead, this one and every later one.
 */
async function columnsOf(at: ColumnsAt): Promise<ArrayBuffer> {
  return inflate(await storedBlock(at));
}

/** The columns file keeps each block deflated (server/src/lsp/packed-files.ts: fewer bytes through the relay). */
async function inflate(block: ArrayBuffer): Promise<ArrayBuffer> {
  return new Response(
    new Blob([block]).stream().pipeThrough(new DecompressionStream('deflate-raw')),
  ).arrayBuffer();
}

/** A block's bytes as stored: fetched, or posted by the host. */
async function storedBlock(at: ColumnsAt): Promise<ArrayBuffer> {
  if (!fetchFailed) {
    try {
      const r = await fetch(at.url, { headers: { Range: `bytes=${at.offset}-${at.offset + at.bytes - 1}` } });
      if (r.status !== 206 && r.status !== 200) throw new Error(`HTTP status ${r.status}`);
      let block = await r.arrayBuffer();
      // A server that ignores the range sends the whole file.
      if (r.status === 200) block = block.slice(at.offset, at.offset + at.bytes);
      if (block.byteLength !== at.bytes) throw new Error(`${block.byteLength} bytes came of ${at.bytes}`);
      timing.blocksFetched = (timing.blocksFetched ?? 0) + 1;
      return block;
    } catch (error) {
      if (!fetchFailed)
        console.warn(
          `mpiscope: fetching the timeline's columns failed (${(error as Error).message}); the host posts them instead`,
        );
      fetchFailed = true;
    }
  }
  const reply = await new Promise<BlockReply>((resolve) => {
    asked.set(at.offset, resolve);
    bridge.post({ type: 'block', offset: at.offset, bytes: at.bytes });
  });
  if (reply.packed === undefined) throw new Error(reply.error ?? 'the host sent no bytes');
  timing.blocksPosted = (timing.blocksPosted ?? 0) + 1;
  return reply.packed;
}

/**
 * The whole job is in the store (or its last batch was given up on): a trace editor's host may delete the
 * columns file and judge the findings now (a live panel ignores it). Said once per page.
 */
let saidLoaded = false;
const sayLoaded = (): void => {
  if (saidLoaded) return;
  saidLoaded = true;
  bridge.post({ type: 'loaded' });
};

/** Applies a message that arrived at `at`; ingestMs adds the store's work on it. */
const apply = (data: unknown, at: number): void => {
  const start = epochNow();
  if (!store.apply(data) || (data as { type?: unknown }).type !== 'data') return;
  if (store.ended) sayLoaded();
  timing.firstData ??= at;
  timing.lastData = at;
  timing.applied = epochNow();
  timing.ingestMs = (timing.ingestMs ?? 0) + (timing.applied - start);
};

// Messages are applied in the order they came; a batch whose columns are being fetched holds the ones after it
// (the fetches themselves all start at once).
let applied: Promise<void> = Promise.resolve();
bridge.onMessage((data) => {
  if (isOpenTiming(data)) {
    Object.assign(timing, data.marks);
    return;
  }
  if (isBlockReply(data)) {
    asked.get(data.offset)?.(data);
    asked.delete(data.offset);
    return;
  }
  const at = epochNow();
  const columnsAt = (data as Partial<TimelineData>).columnsAt;
  if (columnsAt === undefined) {
    applied = applied.then(() => apply(data, at));
    return;
  }
  const block = columnsOf(columnsAt).then((packed) => {
    timing.lastFetched = epochNow();
    return packed;
  });
  applied = applied
    .then(() => block.then((packed) => apply({ ...(data as TimelineData), packed }, at)))
    .catch((error: unknown) => {
      // The store counts the batch as missing (the next one's seq skips it); the rest still draws.
      console.error(`mpiscope: a batch of the timeline is missing: ${(error as Error).message}`);
      // Without its last batch the store never ends; the findings must still come.
      if ((data as Partial<TimelineData>).ended === true) sayLoaded();
    });
});
bridge.post({ type: 'ready' });

/** For the dev page and screenshot script: the store and what was asked of the host; for benches, timing. */
(window as unknown as { mpiscope: unknown }).mpiscope = { store, bridge, app, timing };
