// Issue 11 §4 and §6, issue 9: files opened from the explorer show as mpiscope's custom editors.
// - A trace written by `mpiscope run --trace` (the ring's deadlock, run for real) opens as its timeline:
//   the minimap and the lanes drawn, the deadlock in the findings list, and in the Problems panel on
//   ring.c:23 for ranks 0, 1, 2 (the language server replayed the trace through the engine).
// - A `*.nettest.json` (what `mpiscope net-test` writes) opens as the heatmap editor.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { fixture } from '../lib/net-test-fixture';
import { expectOneRowPerRank } from '../lib/rank-rows';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import { lanePixels, storeFacts, timelineFrame, waitForTimeline } from '../lib/timeline-webview';
import { openFromExplorer, openProblems, openWorkbench, until, waitForProblems } from '../lib/workbench';
import { copyExample } from '../lib/workspace';

const RECV_LINE = 23;

/** Share of the minimap's pixels that are not its background (from the column at `from` of its width to its
 * right edge): the job drawn at a glance. */
async function minimapDrawn(frame: FrameLocator, from = 0): Promise<number> {
  return frame.locator('mpi-timeline canvas.minimap').evaluate((c: unknown, from: number) => {
    const canvas = c as {
      width: number;
      height: number;
      getContext(
        k: '2d',
      ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
    };
    const ctx = canvas.getContext('2d');
    if (ctx === null || canvas.width === 0) return 0;
    const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const bg = [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0];
    const x0 = Math.floor(from * canvas.width);
    let drawn = 0;
    let seen = 0;
    for (let i = 0; i < d.length; i += 4) {
      if ((i / 4) % canvas.width < x0) continue;
      seen++;
      if (
        Math.abs((d[i] ?? 0) - (bg[0] ?? 0)) +
          Math.abs((d[i + 1] ?? 0) - (bg[1] ?? 0)) +
          Math.abs((d[i + 2] ?? 0) - (bg[2] ?? 0)) >
        30
      )
        drawn++;
    }
    return drawn / Math.max(1, seen);
  }, from);
}

export function traceEditorCheck(suite: Suite): Check {
  return {
    name: 'a trace opened from the explorer shows its timeline and its findings',
    run: async ({ page, shot, log }) => {
      const folder = copyExample(suite, 'deadlock');
      // A real trace: the ring built and run under mpiscope, which ends it at the deadlock (exit status 1).
      execFileSync('mpicc', ['-g', '-O0', '-o', 'ring', 'ring.c'], { cwd: folder });
      try {
        execFileSync(
          process.execPath,
          [join(suite.repoRoot, 'dist', 'cli.js'), 'run', '--trace', 'ring.mpitrace', '-np', '3', './ring'],
          { cwd: folder, stdio: 'pipe', timeout: 120_000 },
        );
      } catch (err) {
        if ((err as { status?: number }).status !== 1) throw err;
      }
      // The run wrote the trace's timeline index as it ended: the editor reads that instead of decoding the trace.
      if (!existsSync(join(folder, 'ring.mpitrace.timeline')))
        throw new Error('mpiscope run --trace wrote no timeline index (ring.mpitrace.timeline)');
      await openWorkbench(page, suite.serverUrl, folder);
      // No C file is open: the custom editor itself activates the extension (onCustomEditor:mpiscope.trace).
      await openFromExplorer(page, 'ring.mpitrace');
      const frame = timelineFrame(page);
      const view = await waitForTimeline(
        frame,
        'the trace editor to show the deadlock',
        (v) => v.findings.some((f) => f.kind === 'deadlock') && /ranks 0, 1, 2 deadlocked/.test(v.summary),
        90_000,
      );
      log(`editor: ${view.stats}; ${view.summary}`);
      const tab = page.locator('.tabs-container .tab.active');
      log(`tab: ${(await tab.getAttribute('aria-label')) ?? '?'}`);
      // The page fetched its columns from the webview resource route itself (code-server serves it with
      // ranges); the host posting them is the fallback for where that fails, not what happens here.
      const via = await frame.locator('mpi-app').evaluate(() => {
        const t = (globalThis as unknown as { mpiscope: { timing: Record<string, number> } }).mpiscope.timing;
        return { fetched: t.blocksFetched ?? 0, posted: t.blocksPosted ?? 0, fromIndex: t.fromIndex };
      });
      log(
        `columns blocks fetched by the page ${via.fetched}, posted by the host ${via.posted}; timeline ${via.fromIndex === 1 ? "read from the trace's index" : 'decoded'}`,
      );
      if (via.fromIndex !== 1)
        throw new Error(
          `the language server decoded the trace (fromIndex ${via.fromIndex}) though its index was there`,
        );
      if (via.fetched === 0 || via.posted !== 0)
        throw new Error(
          `the page fetched ${via.fetched} columns block(s) and was posted ${via.posted}; expected every block fetched`,
        );
      const facts = await storeFacts(frame);
      if (facts.ranks !== 3 || facts.spansPerLane.some((n) => n === 0))
        throw new Error(
          `the trace's timeline has lanes ${facts.spansPerLane.join('/')}, expected 3 with calls`,
        );
      const drawn = await until(
        'the minimap to be drawn',
        async () => {
          const share = await minimapDrawn(frame);
          return share > 0.05 ? share : undefined;
        },
        15_000,
      );
      // Every rank is blocked in its MPI_Recv from the deadlock to the end of the trace: the minimap's right
      // edge is busy on every rank's band (calls in progress count up to the end, not only finished ones).
      const tail = await minimapDrawn(frame, 0.97);
      if (tail < 0.9)
        throw new Error(
          `the minimap's last columns are ${tail.toFixed(2)} drawn; the blocked calls end there`,
        );
      const lanes = await lanePixels(frame, 3);
      log(
        `minimap drawn share ${drawn.toFixed(2)}, last 3 % of its columns ${tail.toFixed(2)}; lanes drawn ${lanes.map((l) => l.drawn.toFixed(2)).join('/')}, blocked pixels ${lanes.map((l) => l.blocked).join('/')}`,
      );
      if (lanes.some((l) => l.blocked === 0)) throw new Error('a deadlocked rank has no blocked call drawn');
      if (!(await frame.locator('mpi-timeline canvas.minimap').isVisible())) throw new Error('no minimap');
      // A trace is a job that ended: it grows no more, so the header offers no Following/Held button.
      const follow = await frame.locator('mpi-app header button', { hasText: /Following|Held/ }).count();
      if (follow !== 0) throw new Error("the trace's header offers to follow a job that ended");
      if ((await frame.locator('mpi-app header button', { hasText: 'Fit' }).count()) !== 1)
        throw new Error("the trace's header has no Fit button");
      await shot('trace-timeline');

      // Search: the calls named MPI_Recv are counted in the header.
      const input = frame.locator('mpi-app .find input');
      await input.fill('Recv');
      const note = await until(
        'the search count',
        async () => {
          const t = (await frame.locator('mpi-app .find .count').innerText()).trim();
          // The three blocked MPI_Recv are calls too (in progress), and so is every other receive.
          const n = Number(/^([\d,]+) calls?/.exec(t)?.[1]?.replace(/,/g, '') ?? NaN);
          return n >= 3 ? t : undefined;
        },
        10_000,
      );
      await input.press('Enter');
      log(`search "Recv": ${note}`);
      await shot('trace-search');

      await openProblems(page);
      const rows = await waitForProblems(page, new RegExp(`at line ${RECV_LINE} and`), 3, 30_000);
      expectOneRowPerRank(rows, [0, 1, 2]);
      await shot('trace-problems');
    },
  };
}

export function netTestEditorCheck(suite: Suite): Check {
  return {
    name: 'a net-test result opened from the explorer shows the heatmap editor',
    run: async ({ page, shot, log }) => {
      const folder = copyExample(suite, 'deadlock');
      writeFileSync(join(folder, 'cluster.nettest.json'), JSON.stringify(fixture()));
      await openWorkbench(page, suite.serverUrl, folder);
      await openFromExplorer(page, 'cluster.nettest.json');
      const frame = timelineFrame(page);
      const label = await until(
        'the heatmap editor to draw the matrix',
        async () => {
          const l = await frame
            .locator('mpi-heatmap canvas[data-map="0"]')
            .getAttribute('aria-label', { timeout: 2_000 })
            .catch(() => null);
          return l !== null && l !== '' ? l : undefined;
        },
        60_000,
      );
      log(`heatmap: ${label}`);
      if (!/8/.test(label)) throw new Error(`the heatmap does not describe the 8-rank matrix: "${label}"`);
      const tab = await page.locator('.tabs-container .tab.active').getAttribute('aria-label');
      log(`tab: ${tab ?? '?'}`);
      await shot('nettest-heatmap');
    },
  };
}
