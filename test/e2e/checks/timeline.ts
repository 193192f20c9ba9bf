// The timeline panel with a real job: opened before F5 it follows the ring live until the deadlock;
// opened again after the deadlock it is replayed the whole job. Either way it must show the deadlock
// finding with ranks 0, 1, 2, one lane per rank with its calls drawn on one time axis, and a click on the
// finding must reveal the blocking MPI_Recv (ring.c:23) in the editor.
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { contributedCommands, paletteTitle } from '../lib/manifest';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import {
  lanePixels,
  findingOptions,
  storeFacts,
  timelineFrame,
  waitForTimeline,
  type TimelineView,
} from '../lib/timeline-webview';
import {
  editorFor,
  failOnDialog,
  openFile,
  openWorkbench,
  runCommand,
  until,
  waitForExtension,
} from '../lib/workbench';
import { copyExample, processesRunning } from '../lib/workspace';

/** The line of MPI_Recv in examples/deadlock/ring.c, where each rank blocks. */
const RECV_LINE = 23;
const RANKS = [0, 1, 2];

/** The ranks named by the location rows of a finding ("rank 2: MPI_Recv … — ring.c:23"), sorted. */
function locationRanks(locations: readonly string[]): number[] {
  return locations.map((l) => Number(/^rank (\d+):/.exec(l)?.[1] ?? NaN)).sort((a, b) => a - b);
}

function showsDeadlock(v: TimelineView): boolean {
  return v.findings.some((f) => f.kind === 'deadlock');
}

/** Everything the panel must say about the deadlocked ring, as one list of what is wrong. */
function problemsWith(v: TimelineView): string[] {
  const out: string[] = [];
  const deadlocks = v.findings.filter((f) => f.kind === 'deadlock');
  if (deadlocks.length !== 1) out.push(`${deadlocks.length} deadlock findings in the list, expected 1`);
  const d = deadlocks[0];
  if (d !== undefined) {
    if (locationRanks(d.locations).join(',') !== RANKS.join(','))
      out.push(`the deadlock's locations name ranks ${locationRanks(d.locations).join(',')}`);
    if (!d.locations.every((l) => l.endsWith(`ring.c:${RECV_LINE}`)))
      out.push(`not every location is at ring.c:${RECV_LINE}: ${JSON.stringify(d.locations)}`);
  }
  if (!/^Timeline of 3 ranks\b/.test(v.summary)) out.push(`canvas description "${v.summary}"`);
  if (!/ranks 0, 1, 2 deadlocked/.test(v.summary)) out.push(`canvas does not say ranks 0, 1, 2 deadlocked`);
  if (!/\bdeadlocked \(ranks 0, 1, 2\)/.test(v.stats)) out.push(`header reads "${v.stats}"`);
  return out;
}

/** Lanes, spans and times as the store holds and the canvas draws them. */
async function checkLanes(frame: FrameLocator, log: (line: string) => void): Promise<void> {
  const facts = await storeFacts(frame);
  const pixels = await lanePixels(frame, facts.ranks);
  log(
    `store: ${facts.ranks} lanes, calls per lane ${facts.spansPerLane.join('/')}, in progress on ranks ` +
      `${facts.openRanks.join(',')}, first call at ${facts.firstStartPerLane.map((t) => (t / 1e6).toFixed(1)).join('/')} ms ` +
      `of ${(facts.now / 1e6).toFixed(1)} ms; drawn share per lane ${pixels.map((p) => p.drawn.toFixed(2)).join('/')}, blocked-colour pixels ${pixels.map((p) => p.blocked).join('/')}`,
  );
  if (facts.ranks !== 3) throw new Error(`the timeline has ${facts.ranks} lanes, expected 3`);
  if (facts.spansPerLane.some((n) => n === 0))
    throw new Error(`a lane has no completed call (MPI_Init at least): ${facts.spansPerLane.join('/')}`);
  if (facts.openRanks.join(',') !== RANKS.join(','))
    throw new Error(`calls in progress on ranks ${facts.openRanks.join(',')}, expected each rank's MPI_Recv`);
  // On one time axis the ranks' MPI_Init start within a moment of each other, inside [0, now]: a rank
  // whose clock was not aligned lands hours away (or before 0) and squeezes the others into one pixel.
  const starts = facts.firstStartPerLane;
  const spread = Math.max(...starts) - Math.min(...starts);
  if (starts.some((t) => !(t >= 0 && t <= facts.now)) || spread > 0.5 * facts.now)
    throw new Error(
      `the lanes' first calls are not on one time axis: ${starts.join(', ')} ns, now ${facts.now}`,
    );
  // Each lane must show its calls (MPI_Init alone is most of the ring's run) and its blocked MPI_Recv.
  if (pixels.length !== 3 || pixels.some((p) => p.drawn < 0.1 || p.blocked === 0))
    throw new Error(`a lane is (nearly) empty or shows no blocked call: ${JSON.stringify(pixels)}`);
}

async function showTimeline(page: Page, title: string): Promise<FrameLocator> {
  await runCommand(page, title);
  const frame = timelineFrame(page);
  await frame.locator('mpi-app header').waitFor({ timeout: 20_000 });
  return frame;
}

async function cursorLine(page: Page): Promise<number | undefined> {
  const text = await page
    .locator('#status\\.editor\\.selection')
    .innerText({ timeout: 1_000 })
    .catch(() => '');
  const m = /Ln (\d+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

export function timelineCheck(suite: Suite): Check {
  return {
    name: 'the timeline shows the deadlocked ring, live and when opened after the deadlock',
    run: async ({ page, shot, log }) => {
      const command = contributedCommands(suite.vsix).find((c) => c.command === 'mpiscope.showTimeline');
      if (command === undefined) throw new Error('the package contributes no mpiscope.showTimeline command');
      const title = paletteTitle(command);
      const folder = copyExample(suite, 'deadlock');
      const program = join(folder, 'ring');
      await openWorkbench(page, suite.serverUrl, folder);
      const editor = await openFile(page, 'ring.c');
      await waitForExtension(page);

      // Opened before any job: an empty panel, which must then follow the job as it runs.
      let frame = await showTimeline(page, title);
      await waitForTimeline(
        frame,
        'an empty timeline before the run',
        (v) => /^0 ranks\b/.test(v.stats),
        10_000,
      );
      await shot('timeline-before-run');

      await editor.locator('.view-lines').click();
      const pressed = Date.now();
      await page.keyboard.press('F5');
      // A deadlocked job keeps its debug session (paused on the finding); one that ended has nothing to show.
      let sessionSeen = false;
      const live = await waitForTimeline(
        frame,
        'the open timeline to show the deadlock live',
        // The findings list and the header's run status arrive in separate messages: wait for both.
        (v) => showsDeadlock(v) && /\bdeadlocked\b/.test(v.stats),
        90_000,
        async () => {
          await failOnDialog(page);
          const toolbar = await page.locator('.debug-toolbar').isVisible();
          if (sessionSeen && !toolbar) throw new Error('the debug session ended without a deadlock');
          sessionSeen ||= toolbar;
        },
      );
      log(`live: deadlock in the open panel ${((Date.now() - pressed) / 1000).toFixed(1)} s after F5`);
      await shot('timeline-live-deadlock');
      const liveProblems = problemsWith(live);
      if (liveProblems.length > 0) throw new Error(`live timeline: ${liveProblems.join('; ')}`);
      await checkLanes(frame, log);

      // Closed and opened again after the deadlock: a fresh page, replayed the whole job by the host.
      const tab = page.locator('.tabs-container .tab', { hasText: 'mpiscope: Timeline' });
      await tab.click({ button: 'middle' });
      await tab.waitFor({ state: 'detached', timeout: 10_000 });
      frame = await showTimeline(page, title);
      const replayed = await waitForTimeline(
        frame,
        'the reopened timeline to show the deadlock',
        showsDeadlock,
        20_000,
      );
      log(`replayed: ${replayed.stats} | ${replayed.summary}`);
      const finding = replayed.findings.find((f) => f.kind === 'deadlock');
      log(`finding: ${finding?.message.slice(0, 100) ?? '?'} | ${finding?.locations.join(' | ') ?? ''}`);
      const replayProblems = problemsWith(replayed);
      if (replayProblems.length > 0) throw new Error(`reopened timeline: ${replayProblems.join('; ')}`);
      await checkLanes(frame, log);
      await shot('timeline-reopened');

      // A click on the finding reveals its source line. Move the cursor away first, so that the
      // stop's own reveal of line 23 cannot pass for the panel's.
      await runCommand(page, 'View: Focus First Editor Group');
      await page.keyboard.press('Control+Home');
      await until(
        'the cursor on line 1 of ring.c',
        async () => ((await cursorLine(page)) === 1 ? true : undefined),
        10_000,
      );
      await findingOptions(frame).filter({ hasText: 'deadlock' }).first().locator('.message').click();
      await until(
        `ring.c:${RECV_LINE} revealed by a click on the finding`,
        async () =>
          (await cursorLine(page)) === RECV_LINE && (await editorFor(page, 'ring.c').isVisible())
            ? true
            : undefined,
        10_000,
        async () => `cursor on line ${String(await cursorLine(page))}`,
      );
      await shot('finding-revealed');

      await page.keyboard.press('Shift+F5');
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 20_000 });
      await until(
        'every ring process to end after stop',
        () => Promise.resolve(processesRunning(program).length === 0 ? true : undefined),
        20_000,
        () => Promise.resolve(`pids ${processesRunning(program).join(',')}`),
      );
    },
  };
}
