// The main story: F5 on the ring example builds it, runs it on 3 ranks under mpiscope, and shows
// the deadlock on every rank's MPI_Recv line; the Call Stack lists the ranks; stopping ends the job.
import { join } from 'node:path';
import { expectOneRowPerRank } from '../lib/rank-rows';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import {
  ariaLabelsOf,
  editorFor,
  failOnDialog,
  openFile,
  openProblems,
  openWorkbench,
  runCommand,
  squiggleLines,
  until,
  waitForExtension,
  waitForProblems,
} from '../lib/workbench';
import { copyExample, processesRunning } from '../lib/workspace';

/** The line of MPI_Recv in examples/deadlock/ring.c, where each rank blocks. */
const RECV_LINE = 23;

export function deadlockF5Check(suite: Suite): Check {
  return {
    name: 'F5 on the ring shows the deadlock on every rank',
    run: async ({ page, shot, log }) => {
      const folder = copyExample(suite, 'deadlock');
      const program = join(folder, 'ring');
      await openWorkbench(page, suite.serverUrl, folder);
      const editor = await openFile(page, 'ring.c');
      await shot('ring-opened');

      await waitForExtension(page);
      await editor.locator('.view-lines').click();
      const pressed = Date.now();
      let sessionSeen = false;
      await page.keyboard.press('F5');
      // Building (preLaunchTask), starting 3 ranks and detecting the hang all happen before this.
      const lines = await until(
        `an error squiggle on line ${RECV_LINE} of ring.c`,
        async () => {
          await failOnDialog(page);
          const l = await squiggleLines(editorFor(page, 'ring.c'));
          if (l.includes(RECV_LINE)) return l;
          // A deadlocked job keeps its session (paused on the finding); one that ended has nothing to show.
          const toolbar = await page.locator('.debug-toolbar').isVisible();
          if (sessionSeen && !toolbar)
            throw new Error('the debug session ended without a squiggle on the deadlock');
          sessionSeen ||= toolbar;
          return undefined;
        },
        90_000,
      );
      log(
        `deadlock shown ${((Date.now() - pressed) / 1000).toFixed(1)} s after F5 (build, start, detection)`,
      );
      await shot('deadlock-squiggle');
      if (lines.length !== 1)
        throw new Error(`squiggles on lines ${lines.join(',')}, expected only ${RECV_LINE}`);

      // Hover: the squiggle explains itself.
      // The editor drops a hover when the mouse arrives while a widget (the exception peek) is still
      // laying out, so the mouse leaves and comes back until the hover shows, a few times at most.
      const squiggle = editorFor(page, 'ring.c').locator('.squiggly-error').first();
      const hover = page.locator('.monaco-hover-content', { hasText: /deadlock/i }).first();
      for (let attempt = 1; ; attempt++) {
        // The editor re-renders its decorations (the exception peek, the paused line): between two renders
        // the squiggle element may be gone for a moment.
        await squiggle.waitFor({ state: 'visible', timeout: 10_000 });
        const box = await squiggle.boundingBox();
        if (!box) {
          if (attempt === 4) throw new Error('the squiggle has no box on screen');
          continue;
        }
        await page.mouse.move(0, 0);
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
        try {
          await hover.waitFor({ timeout: 5_000 });
          break;
        } catch (error) {
          if (attempt === 4) throw error;
        }
      }
      log(`hover: ${(await hover.innerText()).replace(/\s+/g, ' ').slice(0, 160)}`);
      await shot('hover');
      await page.mouse.move(0, 0);

      // Call Stack: one thread per rank. The Explorer stays in front after opening ring.c from it.
      await runCommand(page, 'View: Show Run and Debug');
      // A thread row's aria-label is "Thread NAME STATE", e.g. "Thread rank 0 — MPI_Recv … Paused".
      const callStackRows = page.locator('.debug-call-stack .monaco-list-row');
      const threads = await until(
        'one Call Stack thread per rank',
        async () => {
          const labels = (await ariaLabelsOf(callStackRows)).filter((l) => l.startsWith('Thread '));
          const ranks = labels.map((l) => /^Thread rank (\d+)\b/.exec(l)?.[1]).join(',');
          return ranks === '0,1,2' ? labels : undefined;
        },
        20_000,
        async () => JSON.stringify(await ariaLabelsOf(callStackRows)),
      );
      log(`call stack: ${threads.join(' | ')}`);
      // The stopped rank's state label names the finding's kind once ("Paused on deadlock"), not
      // "deadlock: deadlock: …": the adapter's stop description is the label, its text the message.
      const stoppedRow = threads.find((l) => /\bPaused on\b/.test(l)) ?? '';
      if (!/ Paused on deadlock$/.test(stoppedRow) || (stoppedRow.match(/deadlock/gi) ?? []).length !== 1)
        throw new Error(
          `the stopped rank's Call Stack row reads "${stoppedRow}", expected "… Paused on deadlock"`,
        );
      await shot('call-stack');

      await openProblems(page);
      const rows = await waitForProblems(
        page,
        new RegExp(`deadlock.* at line ${RECV_LINE} and`, 'i'),
        3,
        20_000,
      );
      expectOneRowPerRank(rows, [0, 1, 2]);
      await shot('problems');

      const before = processesRunning(program);
      log(`ring processes before stop: ${before.length}`);
      const stopPressed = Date.now();
      await page.keyboard.press('Shift+F5');
      await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 20_000 });
      await until(
        'every ring process to end after stop',
        () => Promise.resolve(processesRunning(program).length === 0 ? true : undefined),
        20_000,
        () => Promise.resolve(`pids ${processesRunning(program).join(',')}`),
      );
      log(`stopped ${((Date.now() - stopPressed) / 1000).toFixed(1)} s after Shift+F5`);
      await shot('stopped');
    },
  };
}
