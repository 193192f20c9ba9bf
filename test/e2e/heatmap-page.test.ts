// Component tests of the net-test heatmap in Chromium: the standalone page `mpiscope view` writes, driven
// by playwright-core with Debian's /usr/bin/chromium. Screenshots (both normalizations, a zoomed
// sub-matrix, two runs as a ratio) land in test/e2e/.out/. Run by scripts/test-e2e.sh after the workbench.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '../lib/mpiscope-cli';
import { fixture } from './lib/net-test-fixture';

const root = repoRoot();
const out = join(root, 'test', 'e2e', '.out');
const cli = join(root, 'dist', 'cli.js');
const CHROMIUM = '/usr/bin/chromium';

function skipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is not installed (apt-get install chromium)`;
  if (!existsSync(cli)) return 'dist/cli.js is missing; run node scripts/build.mjs';
  return undefined;
}

/** The little of the page that code evaluated in it uses (the test package has no DOM types). */
interface PageGlobals {
  readonly devicePixelRatio?: number;
  readonly mpiscope: {
    readonly heatmap: {
      readonly geometries: readonly ({ left: number; top: number; cell: number } | undefined)[];
      readonly shadowRoot: {
        querySelector(s: string): {
          getContext(
            kind: '2d',
          ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
        } | null;
      };
    };
  };
}

const skip = skipReason();
if (skip !== undefined) console.log(`heatmap page tests skipped: ${skip}`);

describe('net-test heatmap page in Chromium', { skip }, () => {
  let browser: Browser;
  let page: Page;
  let dir: string;
  const errors: string[] = [];

  const view = (files: string[]): string => {
    const html = join(dir, `page${files.length}.html`);
    const r = spawnSync(process.execPath, [cli, 'view', ...files, '--output', html], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return html;
  };
  const label = (k = 0): Promise<string> =>
    page
      .locator(`mpi-heatmap canvas[data-map="${k}"]`)
      .getAttribute('aria-label')
      .then((s) => s ?? '');
  /** The colour drawn at the centre of display cell (row, col) of map k. */
  const pixel = async (row: number, col: number, k = 0): Promise<number[]> =>
    page.evaluate(
      ([row, col, k]) => {
        const g = globalThis as unknown as PageGlobals;
        const el = g.mpiscope.heatmap;
        const canvas = el.shadowRoot.querySelector(`canvas[data-map="${k}"]`);
        const geo = el.geometries[k];
        if (canvas === null || geo === undefined) return [];
        const dpr = g.devicePixelRatio ?? 1;
        const x = Math.round((geo.left + (col + 0.5) * geo.cell) * dpr);
        const y = Math.round((geo.top + (row + 0.5) * geo.cell) * dpr);
        return Array.from(canvas.getContext('2d')?.getImageData(x, y, 1, 1).data ?? []).slice(0, 3);
      },
      [row, col, k] as const,
    );
  const cellCentre = async (row: number, col: number): Promise<{ x: number; y: number }> => {
    const box = await page.locator('mpi-heatmap canvas[data-map="0"]').boundingBox();
    const geo = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).mpiscope.heatmap.geometries[0],
    );
    assert.ok(box && geo);
    return { x: box.x + geo.left + (col + 0.5) * geo.cell, y: box.y + geo.top + (row + 0.5) * geo.cell };
  };

  before(async () => {
    mkdirSync(out, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'mpiscope-heatmap-'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify(fixture()));
    writeFileSync(join(dir, 'slower.json'), JSON.stringify(fixture(2)));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    // The page's CSP has no 'unsafe-inline' (view-command.ts): whatever it refuses is a failure here.
    await page.addInitScript(() => {
      const g = globalThis as unknown as {
        cspViolations: string[];
        addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void;
      };
      g.cspViolations = [];
      g.addEventListener('securitypolicyviolation', (e) =>
        g.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
  });

  after(async () => {
    await browser?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('orders ranks by host so that each host is a block, normalized over every length', async () => {
    await page.goto(pathToFileURL(view([join(dir, 'run.json')])).href);
    await page.locator('mpi-heatmap canvas[data-map="0"]').waitFor();
    const text = await label();
    assert.match(
      text,
      /median delay at 0 bytes: 8×8 ranks on 2 hosts, global normalization from 5\.00 µs to 102 µs/,
    );
    // Display order alpha: 0 2 4 6, beta: 1 3 5 7. Cells within a host are the fast colour; across, slow.
    const intra = await pixel(0, 1); // rank 0 → rank 2
    const inter = await pixel(0, 4); // rank 0 → rank 1
    const intraBeta = await pixel(5, 6); // rank 3 → rank 5
    assert.deepEqual(intra, intraBeta, "both hosts' blocks are painted alike");
    assert.notDeepEqual(intra, inter);
    // Values are placed on a logarithmic scale by default; linear moves the cross-host cells' colour.
    await page.selectOption('mpi-heatmap #mapping', 'linear');
    assert.notDeepEqual(await pixel(0, 4), inter);
    await page.selectOption('mpi-heatmap #mapping', 'log');
    assert.deepEqual(await pixel(0, 4), inter);
    await page.screenshot({ path: join(out, 'heatmap-global.png') });
    assert.deepEqual(errors, []);
    assert.deepEqual(
      await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations),
      [],
      'nothing the page needs is refused by its CSP',
    );
  });

  it('normalizes locally over the one matrix shown, and shows a cell on hover', async () => {
    await page.selectOption('mpi-heatmap #normalization', 'local');
    assert.match(await label(), /local normalization from 5\.00 µs to 51\.0 µs/);
    const { x, y } = await cellCentre(0, 4);
    await page.mouse.move(x, y);
    await assert.doesNotReject(
      page
        .locator('mpi-heatmap .readout', {
          hasText: 'rank 0 (alpha) → rank 1 (beta), 0 bytes, median: 50.0 µs',
        })
        .waitFor({ timeout: 5000 }),
    );
    await page.screenshot({ path: join(out, 'heatmap-local.png') });
  });

  it('zooms into a dragged sub-matrix with its own normalization, and back', async () => {
    await page.selectOption('mpi-heatmap #normalization', 'global');
    await page.selectOption('mpi-heatmap #scale', 'grey');
    const from = await cellCentre(0, 0);
    const to = await cellCentre(3, 3);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 5 });
    await page.mouse.up();
    // The alpha block alone: 5 µs, and 6 µs on rank 6's row, the extremes of this sub-matrix.
    assert.match(await label(), /4×4 ranks on 1 host, zoomed, local normalization from 5\.00 µs to 6\.00 µs/);
    assert.deepEqual(
      await pixel(3, 0),
      [255, 255, 255],
      "rank 6's slower row is the top of the zoom's scale",
    );
    assert.deepEqual(await pixel(0, 1), [0, 0, 0]);
    await page.screenshot({ path: join(out, 'heatmap-zoom.png') });
    await page.click('mpi-heatmap #unzoom');
    assert.match(await label(), /8×8 ranks on 2 hosts, global/);
  });

  it('shows two runs side by side on one scale, or as their ratio', async () => {
    await page.goto(pathToFileURL(view([join(dir, 'slower.json'), join(dir, 'run.json')])).href);
    await page.locator('mpi-heatmap canvas[data-map="1"]').waitFor();
    assert.match(await label(0), /global normalization from 5\.00 µs to 204 µs/);
    assert.match(await label(1), /global normalization from 5\.00 µs to 204 µs/);
    await page.selectOption('mpi-heatmap #compare', 'ratio');
    assert.match(
      await label(0),
      /median ratio at 0 bytes: 8×8 ranks on 2 hosts, global normalization from ×2\.00 to ×2\.00/,
    );
    await page.screenshot({ path: join(out, 'heatmap-ratio.png') });
    assert.deepEqual(errors, []);
  });

  it('refuses a file that is not a net-test result in one line, exit 2', () => {
    writeFileSync(join(dir, 'bad.json'), '{"format":"something-else"}');
    const r = spawnSync(process.execPath, [cli, 'view', join(dir, 'bad.json')], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^mpiscope: .*bad\.json is not a net-test result: not a net-test result/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });
});
