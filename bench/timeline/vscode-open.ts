// Opening a million-event trace in VS Code itself (code-server and Chromium, as the e2e suite drives them):
// from the click on the trace's row in the explorer to the first frame the trace editor drew with the whole
// job in its store (the findings follow; trace-open.mjs times their replay). This is what trace-open.mjs
// measures in parts (server, JSON, page), plus what those parts leave out: the extension host, the language
// client's IPC, code-server's websocket to the browser, VS Code's webview hosts and the custom editor's
// start. Medians of --runs, each in a fresh page (the language server and the extension host stay up, as in
// a user's window; the first run also starts them).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
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
    profile: { type: 'boolean', default: false },
    // Where --profile also writes the whole CPU profile (.cpuprofile: Chromium's DevTools open it).
    'profile-out': { type: 'string' },
    // Remove the trace's timeline index (TRACE.timeline, server/src/timeline/trace-index.ts) before each run:
    // every opening decodes the trace, as for a trace without one (and as builds before the index did).
    'no-index': { type: 'boolean', default: false },
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
  /** Batches the store saw missing (a seq skipped), and the last batch's seq. */
  gaps: number;
  lastSeq: number;
  /** The page's timing record (webview/src/main.ts) with the frame's time: ms since the epoch. */
  timing: Record<string, number>;
}

/**
 * The opening's marks (ms since the epoch on every process's clock; webview/src/main.ts keeps them), printed as
 * the time after the click. The steps overlap: the page loads while the language server decodes, and the
 * batches go to the page while the rest is decoded. A mark missing (an older extension) leaves its row out.
 */
const MARKS: readonly (readonly [string, string])[] = [
  ['requested', 'extension host: custom editor resolved, timeline asked for'],
  ['received', 'language server: request received'],
  ['loaded', "page: webview.js ran (editor, webview iframes, the page's script)"],
  ['ready', 'extension host: the page said ready'],
  ['firstBatch', 'extension host: first data batch announced and forwarded'],
  ['firstData', 'page: first data batch arrived'],
  ['decoded', 'language server: whole trace decoded, every batch announced'],
  ['lastBatch', 'extension host: last data batch forwarded'],
  ['delivered', 'extension host: the workbench took the last batch (postMessage settled)'],
  ['lastData', 'page: last data batch arrived'],
  ['lastFetched', "page: last batch's columns fetched (or posted by the host)"],
  ['applied', 'page: last data batch in the store'],
  ['drawn', 'page: first frame with the whole job'],
];

/**
 * CPU time (ms, user + system) of this process and every process under it: code-server, its extension host
 * and the language server, Chromium's processes. Read before the click and at the first whole-job frame,
 * it is the opening's CPU, which the load of a shared machine does not inflate as it does the wall time (two
 * cores: the wall time cannot be under half of it).
 */
function treeCpu(): Map<string, number> {
  const tick = 100; // USER_HZ on Linux
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // Gone meanwhile.
    }
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(f[1]);
    cpu.set(Number(name), ((Number(f[11]) + Number(f[12])) * 1000) / tick);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out = new Map<string, number>();
  const todo = [process.pid];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    out.set(`${pid} ${processLabel(pid)}`, cpu.get(pid) ?? 0);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

const BENCH = 'this bench (Playwright; not counted)';

/** What a process of the tree is, from its command line. */
function processLabel(pid: number): string {
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return 'gone';
  }
  if (pid === process.pid) return BENCH;
  if (/server\.js/.test(cmd) && /mpiscope|extensions/.test(cmd)) return 'language server';
  if (/extensionHost|type=extensionHost/.test(cmd)) return 'extension host';
  if (/chrom/.test(cmd)) {
    const type = /--type=([\w-]+)/.exec(cmd)?.[1];
    return type === undefined ? 'Chromium browser' : `Chromium ${type}`;
  }
  if (/code-server|entry\.js|server-main|bootstrap-fork/.test(cmd)) return 'code-server';
  return cmd.split(' ')[0]?.split('/').pop() ?? 'other';
}

/**
 * Waits (up to 30 s) until the processes under the bench are quiet: less than a tenth of a core over 300 ms.
 * A run does not start while the previous run's findings are still replayed in the language server (the
 * page's close leaves that request running), which would take CPU from this opening.
 */
async function settled(): Promise<void> {
  const busy = (): number => [...treeCpu()].reduce((x, [key, ms]) => (key.endsWith(BENCH) ? x : x + ms), 0);
  const until = performance.now() + 30_000;
  for (let before = busy(); performance.now() < until;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = busy();
    if (now - before < 30) return;
    before = now;
  }
}

/** CPU ms by kind of process between two treeCpu() readings (a process new since the first counts whole). */
function cpuSince(before: Map<string, number>): Map<string, number> {
  const by = new Map<string, number>();
  for (const [key, ms] of treeCpu()) {
    const label = key.slice(key.indexOf(' ') + 1);
    by.set(label, (by.get(label) ?? 0) + ms - (before.get(key) ?? 0));
  }
  return by;
}

/** A CPU profile's functions by self time (ms), the largest first: what the page's thread was busy with. */
function topSelf(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}): [string, number][] {
  const dt = new Map<number, number>();
  (profile.samples ?? []).forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
  const self = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt.get(node.id) ?? 0) / 1000);
  }
  return [...self].sort((a, b) => b[1] - a[1]);
}

/**
 * The same self time by script (the part of the file name before any query), and the V8 pseudo-frames
 * ((program): the browser's own work on that thread, (garbage collector), (idle)): whose code the time went to,
 * ours (webview.js, the service worker's relaying of resources) or the workbench's.
 */
function byScript(top: [string, number][]): [string, number][] {
  const by = new Map<string, number>();
  for (const [key, ms] of top) {
    const [fn = '', where = ''] = key.split(' ', 2);
    const script = where.replace(/[?:].*$/, '');
    const name = script === '' ? (fn.startsWith('(') ? fn : '(no script)') : script;
    by.set(name, (by.get(name) ?? 0) + ms);
  }
  return [...by].sort((a, b) => b[1] - a[1]);
}

/** Starts Chromium's CPU profiler on the workbench page (and the webview frames when they have a process of their own). */
async function startProfile(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return cdp;
}

async function printProfile(cdp: CDPSession, label: string): Promise<void> {
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: Parameters<typeof topSelf>[0] };
  if (values['profile-out'] !== undefined) writeFileSync(values['profile-out'], JSON.stringify(profile));
  const top = topSelf(profile);
  const total = top.reduce((a, [, v]) => a + v, 0);
  console.log(`profile of ${label}: ${total.toFixed(0)} ms sampled, by self time:`);
  for (const [k, v] of top.slice(0, 15)) console.log(`  ${v.toFixed(0).padStart(6)} ms  ${k}`);
  console.log('  by script:');
  for (const [k, v] of byScript(top).slice(0, 10)) console.log(`  ${v.toFixed(0).padStart(6)} ms  ${k}`);
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'mpiscope-bench-vscode-open-'));
  let server: CodeServer | undefined;
  let context: BrowserContext | undefined;
  try {
    const folder = join(tmp, 'workspace');
    mkdirSync(folder);
    const trace = join(folder, 'job.mpitrace');
    // The trace's timeline index goes with it when there is one (`mpiscope run --trace` writes it); an index
    // renamed with its trace still fits it (it names the trace by its size and bytes, not its path).
    const index = (at: string): string => `${at}.timeline`;
    const source = values.trace ?? recordHaloTrace(root, tmp, values.np, values.iterations);
    copyFileSync(source, trace);
    if (existsSync(index(source))) copyFileSync(index(source), index(trace));
    server = await startCodeServer({ paths: paths!, env: {}, vsix, startTimeoutMs: 60_000, tmp });
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmp, 'chromium-')), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const shownMs: number[] = [];
    const hops: number[][] = [];
    const ingestMs: number[] = [];
    /** Per run: frames drawn, their draw time (ms), minimap rebuilds, their time (ms), up to the whole-job frame. */
    const drawCosts: number[][] = [];
    const cpuMs: number[] = [];
    const cpuBy = new Map<string, number[]>();
    let columnsMB = NaN;
    let last: Seen | undefined;
    for (let run = 0; run < runs; run++) {
      if (values['no-index']) rmSync(index(trace), { force: true });
      // Before the workbench opens: once open, it restores the previous run's trace editor if left waiting.
      await settled();
      const page = await context.newPage();
      await openWorkbench(page, server.url, folder);
      let t0 = NaN;
      let clickedAt = NaN;
      let cpu0 = new Map<string, number>();
      await openFromExplorer(page, 'job.mpitrace', () => {
        cpu0 = treeCpu();
        t0 = performance.now();
        clickedAt = Date.now();
      });
      const profiled = values.profile && run === runs - 1 ? await startProfile(page) : undefined;
      const frame = timelineFrame(page);
      let shown = NaN;
      let atShown: Seen | undefined;
      for (;;) {
        // Polled every 100 ms: each poll runs script in the renderer the opening uses (polling as fast as
        // the round trip allowed cost it ~0.3 s of CPU). The time is the page's own: its frame's mark.
        await new Promise((r) => setTimeout(r, 100));
        const seen = await frame
          .locator('mpi-app')
          .evaluate((): Seen => {
            interface Store {
              ended: boolean;
              version: number;
              ranks: number;
              lanes: { length: number }[];
              gaps: number;
              lastSeq: number;
            }
            const g = (
              globalThis as unknown as {
                mpiscope: {
                  store: Store;
                  app: { shadowRoot: { querySelector(s: string): unknown } | null };
                  timing: Record<string, number>;
                };
              }
            ).mpiscope;
            const timeline = g.app.shadowRoot?.querySelector('mpi-timeline') as
              | {
                  drawnStoreVersion: number;
                  drawnAt: number;
                  costs?: { frames: number; drawMs: number; minimaps: number; minimapMs: number };
                }
              | null
              | undefined;
            return {
              shown: g.store.ended && (timeline?.drawnStoreVersion ?? -1) >= g.store.version,
              spans: g.store.lanes.reduce((s, l) => s + l.length, 0),
              gaps: g.store.gaps,
              lastSeq: g.store.lastSeq,
              ranks: g.store.ranks,
              timing: {
                ...g.timing,
                drawn: timeline?.drawnAt ?? NaN,
                frames: timeline?.costs?.frames ?? NaN,
                drawMs: timeline?.costs?.drawMs ?? NaN,
                minimaps: timeline?.costs?.minimaps ?? NaN,
                minimapMs: timeline?.costs?.minimapMs ?? NaN,
              },
            };
          })
          .catch(() => undefined);
        const now = performance.now() - t0;
        if (seen !== undefined && seen.shown && Number.isNaN(shown)) {
          shown = (seen.timing.drawn ?? NaN) - clickedAt;
          atShown = seen;
          const by = cpuSince(cpu0);
          // The bench's own process (Playwright, the polling) is listed, not counted.
          cpuMs.push([...by].reduce((x, [label, ms]) => (label === BENCH ? x : x + ms), 0));
          for (const [label, ms] of by) cpuBy.set(label, [...(cpuBy.get(label) ?? []), ms]);
        }
        // The extension host's marks come after its last batch was delivered: wait for them (up to 5 s),
        // keeping what the page had at the frame with the whole job (the findings may be drawn since).
        if (
          atShown !== undefined &&
          seen !== undefined &&
          (seen.timing.delivered !== undefined || now > shown + 5000 || Number.isNaN(shown))
        ) {
          last = { ...atShown, timing: { ...seen.timing, drawn: atShown.timing.drawn ?? NaN } };
          break;
        }
        if (now > 120_000) throw new Error('the trace editor did not show the whole trace within 120 s');
      }
      if (profiled !== undefined) {
        await printProfile(
          profiled,
          'the workbench page (its process holds the webview frames unless site isolation split them)',
        );
        for (const f of page.frames().filter((x) => x !== page.mainFrame())) {
          const oop = await page
            .context()
            .newCDPSession(f)
            .catch(() => undefined);
          if (oop !== undefined)
            console.log(`frame ${f.url().slice(0, 80)} runs in a process of its own (not profiled)`);
        }
      }
      shownMs.push(shown);
      console.log(
        `run ${run + 1}: whole job drawn ${shown.toFixed(0)} ms after the click (${last?.spans} calls, batches to seq ${last?.lastSeq}, ${last?.gaps} gap(s); columns blocks fetched by the page ${last?.timing.blocksFetched ?? '-'}, posted by the host ${last?.timing.blocksPosted ?? '-'}; timeline ${last?.timing.fromIndex === 1 ? "read from the trace's index" : 'decoded'})`,
      );
      const marks: Record<string, number> = { ...last?.timing };
      hops.push(MARKS.map(([name]) => (marks[name] ?? NaN) - clickedAt));
      ingestMs.push(marks.ingestMs ?? NaN);
      drawCosts.push([
        marks.frames ?? NaN,
        marks.drawMs ?? NaN,
        marks.minimaps ?? NaN,
        marks.minimapMs ?? NaN,
      ]);
      columnsMB = (marks.columnsBytes ?? NaN) / 1e6;
      await page.close();
    }
    const mb = statSync(trace).size / 1e6;
    console.log(
      `trace             ${last?.spans.toLocaleString('en')} calls over ${last?.ranks} ranks in the store, ${mb.toFixed(0)} MB; its timeline's columns ${columnsMB.toFixed(1)} MB as the page fetches them (packed, deflated)`,
    );
    console.log(
      `open in VS Code   median ${median(shownMs).toFixed(0)} ms of ${runs} runs (${shownMs.map((x) => x.toFixed(0)).join(', ')} ms): click in the explorer → first frame with the whole job; target < 2000 ms`,
    );
    console.log(
      `cpu               median ${median(cpuMs).toFixed(0)} ms of ${runs} runs (${cpuMs.map((x) => x.toFixed(0)).join(', ')} ms): code-server, extension host, language server and Chromium, click → that frame (read within 100 ms of it)`,
    );
    for (const [label, xs] of [...cpuBy].sort((x, y) => median(y[1]) - median(x[1])))
      if (median(xs) >= 10) console.log(`  ${median(xs).toFixed(0).padStart(6)}  ${label}`);
    console.log('marks             ms after the click, median of the runs');
    MARKS.forEach(([, what], i) => {
      const xs = hops.map((h) => h[i] ?? NaN).filter((x) => !Number.isNaN(x));
      if (xs.length > 0) console.log(`  ${median(xs).toFixed(0).padStart(6)}  ${what}`);
    });
    console.log(
      `  ${median(ingestMs).toFixed(0).padStart(6)}  ms of the page's own work on the batches (ingest into the store)`,
    );
    const col = (i: number): number => median(drawCosts.map((c) => c[i] ?? NaN));
    console.log(
      `  ${col(1).toFixed(0).padStart(6)}  ms of the page's drawing (${col(0).toFixed(0)} frames), of which ${col(3).toFixed(0)} ms rebuilding the minimap (${col(2).toFixed(0)} times)`,
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
