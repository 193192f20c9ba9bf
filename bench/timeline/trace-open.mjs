#!/usr/bin/env node
// Opening a trace in VS Code (prints numbers; not a test). The trace editor asks the language server for
// mpiscope/traceTimeline, which decodes the trace into the TimelineModel (no engine) and resolves the call
// sites; the webview draws those batches; then mpiscope/traceFindings replays the trace through the engine
// (as `mpiscope report` does) and adds the findings to the timeline and the Problems panel. Measured:
//   replay    replayTrace alone (read, decode, engine analysis), what any report of the trace costs;
//   timeline  the server's part of mpiscope/traceTimeline (openTraceTimeline), in-process, on the code the
//             language server bundles: wall and this process's CPU time (user + system);
//   indexed   the same part when the trace has its timeline index (TRACE.timeline, trace-index.ts; written
//             first if missing): the batches read, packed, instead of decoded;
//   json      the batches serialized and parsed as they travel: the language server's JSON-RPC response
//             (stringify), the extension host reading it (parse) and posting it on (stringify); the page's
//             parse is in "page";
//   page      in headless Chromium, the real webview page: from the first batch posted to the first frame
//             drawn with the whole job (as bench/timeline/run.mjs "open");
//   open      timeline + json + page: from the custom editor's open to the first drawn frame, without
//             VS Code's own IPC hops (the same bytes copied between processes);
//   findings  mpiscope/traceFindings after it (the engine's replay, off the path that opens the editor);
//   one pass  traceTimeline, the timeline and findings in one request, as the editor opened traces before.
// Medians of --runs.
//
//   node bench/timeline/trace-open.mjs [--trace FILE] [--np 4] [--iterations 20000] [--runs 3] [--no-page]
// Without --trace, the halo exchange of halo-trace.mjs is recorded (run scripts/build.mjs first): 4 ranks ×
// 20,000 iterations make about 400,000 calls, 1.2 M events, 118 MB; `--np 64 --iterations 1250` about as many
// events over 64 ranks. The page needs /usr/bin/chromium and
// playwright-core (scripts/install-e2e-tools.sh).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { recordHaloTrace } from './halo-trace.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values } = parseArgs({
  options: {
    trace: { type: 'string' },
    np: { type: 'string', default: '4' },
    iterations: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
    'no-page': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const work = mkdtempSync(join(tmpdir(), 'mpiscope-bench-trace-open-'));
try {
  let trace = values.trace;
  if (trace === undefined) trace = recordHaloTrace(root, work, values.np, values.iterations);
  const entry = join(work, 'entry.cjs');
  await build({
    stdin: {
      contents: `
        export { openTraceTimeline, traceTimeline } from './server/src/timeline/trace-timeline';
        export { openIndexedTimeline, writeTraceIndex } from './server/src/timeline/trace-index';
        export { replayTrace } from './server/src/session/replay';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: entry,
    logLevel: 'warning',
  });
  const { openTraceTimeline, traceTimeline, replayTrace, openIndexedTimeline, writeTraceIndex } = (
    await import(pathToFileURL(entry).href)
  ).default;
  // The trace's timeline index (a trace recorded before it was written has none): the "indexed" row reads it.
  if (!(await openIndexedTimeline(trace, () => undefined)).fromIndex && !(await writeTraceIndex(trace)))
    console.log(`(no timeline index could be written next to ${trace}: the "indexed" row decodes)`);

  const timed = async (f) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const value = await f();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { value, wall, cpu: (cpu.user + cpu.system) / 1000 };
  };
  const rows = { replay: [], timeline: [], indexed: [], json: [], findings: [], onePass: [] };
  let events = 0;
  let spans = 0;
  let ranks = 0;
  let texts = [];
  let found = 0;
  for (let run = 0; run < runs; run++) {
    let n = 0;
    const r = await timed(() => replayTrace(trace, undefined, { events: (batch) => (n += batch.length) }));
    events = n;
    ranks = r.value.start.ranks;
    rows.replay.push(r);
    const t = await timed(() => openTraceTimeline(trace));
    rows.timeline.push(t);
    let fromIndex = 0;
    const x = await timed(() =>
      openIndexedTimeline(trace, (m) => (fromIndex += m.type === 'data' ? m.packed.byteLength : 0)),
    );
    rows.indexed.push(x);
    const j = await timed(() => {
      const response = JSON.stringify(t.value.messages);
      return JSON.parse(response).map((m) => JSON.stringify(m));
    });
    rows.json.push(j);
    texts = j.value;
    const f = await timed(() => t.value.findings());
    found = f.value.result.findings.length;
    rows.findings.push(f);
    spans = t.value.messages.reduce((s, m) => s + (m.spans?.rank.length ?? 0), 0);
    const o = await timed(() => traceTimeline(trace));
    rows.onePass.push(o);
    console.log(
      `run ${run + 1}: replay ${r.wall.toFixed(0)} ms (cpu ${r.cpu.toFixed(0)}), timeline ${t.wall.toFixed(0)} ms (cpu ${t.cpu.toFixed(0)}), indexed ${x.wall.toFixed(0)} ms (cpu ${x.cpu.toFixed(0)}, ${x.value.fromIndex ? `${(fromIndex / 1e6).toFixed(1)} MB of columns read from the index` : 'decoded'}), json ${j.wall.toFixed(0)} ms, findings ${f.wall.toFixed(0)} ms (cpu ${f.cpu.toFixed(0)}), one pass ${o.wall.toFixed(0)} ms (cpu ${o.cpu.toFixed(0)})`,
    );
  }
  const pages = values['no-page'] ? [] : await pageOpens(texts, ranks);
  const mb = statSync(trace).size / 1e6;
  const mib = texts.reduce((s, x) => s + x.length, 0) / 2 ** 20;
  console.log(
    `trace             ${events.toLocaleString('en')} events over ${ranks} ranks, ${spans.toLocaleString('en')} calls, ${mb.toFixed(0)} MB; ${texts.length} batches, ${mib.toFixed(1)} MiB of JSON; ${found} finding(s)`,
  );
  const med = (xs, k) => median(xs.map((x) => x[k]));
  const line = (name, xs, what = '') =>
    console.log(
      `${name.padEnd(18)}median ${med(xs, 'wall').toFixed(0)} ms wall, ${med(xs, 'cpu').toFixed(0)} ms CPU of ${xs.length} runs${what}`,
    );
  line('replay', rows.replay);
  line('timeline', rows.timeline, ' (server: read, decode, model, batches)');
  line('indexed', rows.indexed, " (server: the same batches read from the trace's index, packed)");
  line('json', rows.json, ' (stringify, parse, stringify)');
  if (pages.length > 0) {
    console.log(
      `page              median ${med(pages, 'wall').toFixed(0)} ms wall, ${med(pages, 'busy').toFixed(0)} ms renderer busy of ${pages.length} runs (${pages.map((x) => x.wall.toFixed(0)).join(', ')} ms): first batch posted to first frame`,
    );
    const wall = med(rows.timeline, 'wall') + med(rows.json, 'wall') + med(pages, 'wall');
    const cpu = med(rows.timeline, 'cpu') + med(rows.json, 'cpu') + med(pages, 'busy');
    console.log(
      `open              ${wall.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU (timeline + json + page); target < 2000 ms`,
    );
  }
  line('findings', rows.findings, ' (after the first frame: engine replay, placed on the timeline)');
  line('one pass', rows.onePass, ' (traceTimeline: what opening waited for before)');
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The page's part of each run, in a fresh headless Chromium (bench/timeline/run.mjs "open"). */
async function pageOpens(texts, ranks) {
  const { chromium } = await import('playwright-core');
  execFileSync(process.execPath, [join(root, 'webview', 'dev', 'build-dev.mjs')], { stdio: 'inherit' });
  const dataFile = join(work, 'batches.js');
  writeFileSync(dataFile, `window.BENCH_BATCHES = ${JSON.stringify(texts)};`);
  const out = [];
  for (let run = 0; run < runs; run++) {
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
      // The renderer main thread's busy time (CDP TaskDuration), which load on the machine inflates less
      // than the wall time.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      const busy = async () =>
        (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ??
        NaN;
      await page.goto(`${pathToFileURL(join(root, 'webview', 'dev', 'index.html'))}?job=none&ranks=${ranks}`);
      await page.waitForFunction(() => window.devReady !== undefined);
      await page.addScriptTag({ path: dataFile });
      const busy0 = await busy();
      const wall = await page.evaluate(async () => {
        const { store, app } = window.mpiscope;
        const timeline = app.shadowRoot.querySelector('mpi-timeline');
        const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
        const texts = window.BENCH_BATCHES;
        const before = store.version;
        const t0 = performance.now();
        for (const s of texts) window.postMessage(JSON.parse(s), '*');
        await new Promise((resolve) => {
          const check = () => (store.version - before >= texts.length ? resolve() : setTimeout(check, 0));
          check();
        });
        // The first frame that drew the store with every batch in it.
        while (timeline.drawnStoreVersion < store.version) await frame();
        return performance.now() - t0;
      });
      out.push({ wall, busy: (await busy()) * 1000 - busy0 * 1000 });
    } finally {
      await browser.close();
    }
  }
  return out;
}
