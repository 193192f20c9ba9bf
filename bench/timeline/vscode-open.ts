// Opening a million-event trace in VS Code itself (code-server and Chromium, as the e2e suite drives them):
// from the click on the trace's row in the explorer to the first frame the trace editor drew with the whole
// job in its store (the findings follow; trace-open.mjs times their replay). This is what trace-open.mjs
// measures in parts (server, JSON, page), plus what those parts leave out: the extension host, the language
// client's IPC, code-server's websocket to the browser, VS Code's webview hosts and the custom editor's
// start. Medians of --runs, each in a fresh page (the language server and the extension host stay up, as in
// a user's window; the first run also starts them).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';
import { findCodeServer, startCodeServer, type CodeServer } from '../../test/e2e/lib/code-server';
import { timelineFrame } from '../../test/e2e/lib/timeline-webview';
import { openFromExplorer, openWorkbench } from '../../test/e2e/lib/workbench';
import { recordHaloTrace } from './halo-trace.mjs';

// The bundle runs from dist/bench/.
const root = resolve(__dirname, '..', '..');
const { values } = parseArgs({
  options: {
    trace: { type: 'string' },
    np: { type: 'string', default: '64' },
    iterations: { type: 'string', default: '1250' },
    runs: { type: 'string', default: '3' },
  },
});
const runs = Number(values.runs);
const fail = (why: string): never => {
  console.error(`bench/timeline/vscode-open: ${why}`);
  process.exit(2);
};
if (!Number.isInteger(runs) || runs < 1) fail(`--runs must be a positive count, not '${values.runs}'`);
const vsix = join(root, 'dist', 'mpiscope.vsix');
if (!existsSync(vsix)) fail('dist/mpiscope.vsix is missing; run scripts/package.sh first');
let paths: ReturnType<typeof findCodeServer> | undefined;
try {
  paths = findCodeServer(root);
} catch (err) {
  fail(`${(err as Error).message} (scripts/install-e2e-tools.sh installs it)`);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

interface Seen {
  /** The store holds the whole trace (its last batch says the job ended) and the timeline drew it. */
  shown: boolean;
  spans: number;
  ranks: number;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mpiscope-bench-vscode-open-'));
  let server: CodeServer | undefined;
  let context: BrowserContext | undefined;
  try {
    const folder = join(tmp, 'workspace');
    mkdirSync(folder);
    const trace = join(folder, 'job.mpitrace');
    if (values.trace !== undefined) copyFileSync(values.trace, trace);
    else renameSync(recordHaloTrace(root, tmp, values.np, values.iterations), trace);
    server = await startCodeServer({ paths: paths!, env: {}, vsix, startTimeoutMs: 60_000, tmp });
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmp, 'chromium-')), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const shownMs: number[] = [];
    let last: Seen | undefined;
    for (let run = 0; run < runs; run++) {
      const page = await context.newPage();
      await openWorkbench(page, server.url, folder);
      let t0 = NaN;
      await openFromExplorer(page, 'job.mpitrace', () => (t0 = performance.now()));
      const frame = timelineFrame(page);
      let shown = NaN;
      for (;;) {
        // Polled as fast as the round trip into the webview's nested frames allows (a few ms).
        const seen = await frame
          .locator('mpi-app')
          .evaluate((): Seen => {
            interface Store {
              ended: boolean;
              version: number;
              ranks: number;
              lanes: { length: number }[];
            }
            const g = (
              globalThis as unknown as {
                mpiscope: { store: Store; app: { shadowRoot: { querySelector(s: string): unknown } | null } };
              }
            ).mpiscope;
            const timeline = g.app.shadowRoot?.querySelector('mpi-timeline') as
              { drawnStoreVersion: number } | null | undefined;
            return {
              shown: g.store.ended && (timeline?.drawnStoreVersion ?? -1) >= g.store.version,
              spans: g.store.lanes.reduce((s, l) => s + l.length, 0),
              ranks: g.store.ranks,
            };
          })
          .catch(() => undefined);
        const now = performance.now() - t0;
        if (seen !== undefined && seen.shown && Number.isNaN(shown)) {
          shown = now;
          last = seen;
          break;
        }
        if (now > 120_000) throw new Error('the trace editor did not show the whole trace within 120 s');
      }
      shownMs.push(shown);
      console.log(`run ${run + 1}: whole job drawn ${shown.toFixed(0)} ms after the click`);
      await page.close();
    }
    const mb = statSync(trace).size / 1e6;
    console.log(
      `trace             ${last?.spans.toLocaleString('en')} calls over ${last?.ranks} ranks in the store, ${mb.toFixed(0)} MB`,
    );
    console.log(
      `open in VS Code   median ${median(shownMs).toFixed(0)} ms of ${runs} runs (${shownMs.map((x) => x.toFixed(0)).join(', ')} ms): click in the explorer → first frame with the whole job; target < 2000 ms`,
    );
  } finally {
    await context?.close();
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench/timeline/vscode-open: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
