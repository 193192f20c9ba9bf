// Screenshots of the standalone page with headless Chromium, into webview/dev/.out/:
//   node webview/dev/screenshot.mjs [--ranks 8] [--iterations 250]
// overview (dark), hover tooltip, zoom on the deadlock ring, a finding picked from the list, a search with
// its match selected (collectives joined across ranks), light and high-contrast themes.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '.out');
const { values } = parseArgs({
  options: { ranks: { type: 'string', default: '8' }, iterations: { type: 'string', default: '250' } },
});
execFileSync(process.execPath, [join(here, 'build-dev.mjs')], { stdio: 'inherit' });

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const url = (extra = '') =>
    `${pathToFileURL(join(here, 'index.html'))}?ranks=${values.ranks}&iterations=${values.iterations}${extra}`;
  const load = async (extra) => {
    await page.goto(url(extra));
    await page.waitForFunction(() => window.devReady !== undefined, null, { timeout: 30_000 });
    await page.waitForTimeout(100); // two animation frames for the canvas after the last batch
  };
  await load();
  const stats = await page.evaluate(() => ({
    ...window.devReady,
    spans: window.mpiscope.store.spanCount,
    messages: window.mpiscope.store.messages.length,
    findings: window.mpiscope.store.findings.length,
  }));
  console.log('page:', JSON.stringify(stats));
  await page.screenshot({ path: join(out, 'overview.png') });

  const box = await page.locator('mpi-timeline').boundingBox();
  if (box === null) throw new Error('no timeline on the page');
  // Zoom into the start of the run, then hover a call.
  await page.mouse.move(box.x + 140, box.y + box.height / 2);
  for (let i = 0; i < 14; i++) await page.mouse.wheel(0, -200);
  await page.waitForTimeout(50);
  // Sweep along rank 3's lane until the tooltip shows (a call is under the pointer).
  for (let x = box.x + 100; x < box.x + box.width; x += 15) {
    await page.mouse.move(x, box.y + 26 + 46 * 3 + 20);
    await page.waitForTimeout(20);
    if (await page.locator('mpi-timeline .tip').count()) break;
  }
  await page.screenshot({ path: join(out, 'zoom-hover.png') });

  // Pick the deadlock in the findings list with the keyboard: the timeline jumps to the ring.
  await page.locator('mpi-findings-list li').first().focus();
  await page.keyboard.press('Enter');
  await page.waitForTimeout(80);
  await page.screenshot({ path: join(out, 'deadlock.png') });
  const sent = await page.evaluate(() => window.mpiscope.bridge.sent);
  console.log('host requests:', JSON.stringify(sent));

  // Find MPI_Allreduce: the matches outlined over a dimmed view; Enter steps to the first one.
  await page.locator('mpi-app .find input').fill('Allreduce');
  await page.locator('mpi-app .find input').press('Enter');
  await page.waitForTimeout(80);
  for (let i = 0; i < 6; i++) await page.locator('mpi-timeline canvas.main').press('-');
  await page.waitForTimeout(80);
  console.log('search:', await page.locator('mpi-app .find .count').innerText());
  await page.screenshot({ path: join(out, 'search.png') });

  await load('&theme=light');
  await page.screenshot({ path: join(out, 'light.png') });
  await load('&theme=hc');
  await page.screenshot({ path: join(out, 'high-contrast.png') });
  if (errors.length > 0) {
    console.error('page errors:\n' + errors.join('\n'));
    process.exitCode = 1;
  }
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
}
