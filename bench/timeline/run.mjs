#!/usr/bin/env node
// Timeline benchmark (prints numbers; not a test): 1M synthetic events through the model and the webview
// store in Node, then the real page in headless Chromium, timing frames of the visible range.
//
//   node bench/timeline/run.mjs [--ranks 8] [--iterations 10200] [--frames 15]
//
// 8 ranks × 10200 halo iterations ≈ 1M events (ENTER/EXIT/COMPLETE records).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values } = parseArgs({
  options: {
    ranks: { type: 'string', default: '8' },
    iterations: { type: 'string', default: '10200' },
    frames: { type: 'string', default: '15' },
  },
});
const ranks = Number(values.ranks);
const iterations = Number(values.iterations);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t) => `${t.toFixed(1)} ms`;

// Part 1: model and store in Node.
const work = mkdtempSync(join(tmpdir(), 'mpiscope-bench-timeline-'));
try {
  const entry = join(work, 'entry.js');
  await build({
    stdin: {
      contents: `
        export { syntheticJob } from './server/src/timeline/synthetic-job';
        export { TimelineModel } from './server/src/timeline/timeline-model';
        export { TimelineStore } from './webview/src/store/timeline-store';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: entry,
    logLevel: 'warning',
  });
  const { syntheticJob, TimelineModel, TimelineStore } = await import(pathToFileURL(entry).href);
  let t = performance.now();
  const job = syntheticJob({ ranks, iterations, deadlock: true });
  const genMs = performance.now() - t;
  const n = job.events.length;
  const model = new TimelineModel(ranks, 'bench');
  const batches = [model.reset()];
  t = performance.now();
  const heap0 = process.memoryUsage().heapUsed;
  // Batches every 20k events, as a live feed would send them.
  for (let i = 0; i < n; i++) {
    model.push(job.events[i]);
    if (i % 20000 === 19999) batches.push(model.takeBatch());
  }
  for (const f of job.findings) model.addFinding(f);
  batches.push(model.takeBatch());
  const modelMs = performance.now() - t;
  const heapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  const json = batches.reduce((s, b) => s + JSON.stringify(b).length, 0);
  t = performance.now();
  const store = new TimelineStore();
  for (const b of batches) store.apply(JSON.parse(JSON.stringify(b)));
  const storeMs = performance.now() - t;
  console.log(`events            ${n.toLocaleString('en')} (generated in ${ms(genMs)}, not counted)`);
  console.log(
    `model build       ${ms(modelMs)}  = ${(((n / modelMs) * 1000) / 1e6).toFixed(2)} M events/s; heap +${heapMb.toFixed(0)} MiB`,
  );
  console.log(
    `  spans ${model.spanCount.toLocaleString('en')}, messages ${model.messageCount.toLocaleString('en')}, ${batches.length} batches, ${(json / 2 ** 20).toFixed(1)} MiB as JSON`,
  );
  console.log(`store ingest      ${ms(storeMs)} (JSON round trip included)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Part 2: frames in Chromium, on the standalone page with the same job.
execFileSync(process.execPath, [join(root, 'webview', 'dev', 'build-dev.mjs')], { stdio: 'inherit' });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  const url = `${pathToFileURL(join(root, 'webview', 'dev', 'index.html'))}?ranks=${ranks}&iterations=${iterations}&chunk=50000`;
  await page.goto(url);
  await page.waitForFunction(() => window.devReady !== undefined, null, { timeout: 300_000 });
  const inPage = await page.evaluate(() => window.devReady);
  console.log(
    `page: model+store ${ms(inPage.modelMs)} for ${inPage.events.toLocaleString('en')} events (browser)`,
  );
  const box = await page.locator('mpi-timeline').boundingBox();
  /** Redraws `frames` times and returns the median draw time reported by the element. */
  const frames = async () => {
    const times = [];
    for (let i = 0; i < Number(values.frames); i++) {
      await page.mouse.move(box.x + 200 + (i % 2), box.y + 60);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      times.push(
        await page.evaluate(
          () => document.querySelector('mpi-app').shadowRoot.querySelector('mpi-timeline').lastDrawMs,
        ),
      );
    }
    return median(times);
  };
  console.log(`frame, whole job in view (1M events)   ${ms(await frames())} median`);
  await page.mouse.move(box.x + 600, box.y + box.height / 2);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -300);
  console.log(
    `frame, zoomed ×${(1 / Math.exp(-12 * 300 * 0.002)).toFixed(0)}                  ${ms(await frames())} median`,
  );
  for (let i = 0; i < 10; i++) await page.mouse.wheel(0, -300);
  console.log(`frame, zoomed to a few calls         ${ms(await frames())} median`);
} finally {
  await browser.close();
}
