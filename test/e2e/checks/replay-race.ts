// Issue 11 §1: a message race replayed the other way from the Problems panel. The corpus program
// test/programs/message-race-replay-deadlock.c runs under F5 on 3 ranks and ends well: rank 0's wildcard
// receive (line 22) took rank 1's message. Its message-race warning offers the quick fix "Replay with the
// other message (rank 2's)"; chosen from the Problems panel, it reruns the job with that receive forced to
// rank 2, which deadlocks (rank 0 then waits for a second message from rank 2 that never comes). The
// outcome joins the diagnostic, and the replayed job leaves no process behind.
import { join } from 'node:path';
import { waitForSessionEnd } from '../lib/debug';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import {
  editorFor,
  openFile,
  openProblems,
  openWorkbench,
  problemLabels,
  until,
  waitForExtension,
  waitForProblems,
} from '../lib/workbench';
import { lineOf, processesRunning, sourceText, workspaceWith } from '../lib/workspace';

const CORPUS = 'test/programs/message-race-replay-deadlock.c';

export function replayRaceCheck(suite: Suite): Check {
  return {
    name: 'replay a message race with the other message from the Problems panel',
    run: async ({ page, shot, log }) => {
      const source = sourceText(suite, CORPUS);
      const wildcardLine = lineOf(source, 'MPI_ANY_SOURCE');
      const folder = workspaceWith(suite, 'race', { 'race.c': source }, { program: 'race', np: 3 });
      const program = join(folder, 'race');
      await openWorkbench(page, suite.serverUrl, folder);
      const editor = await openFile(page, 'race.c');
      await waitForExtension(page);
      await editor.locator('.view-lines').click();
      await page.keyboard.press('F5');

      // The run ends well; the race is a warning, which does not stop the job (failOn: error).
      const racePattern = new RegExp(`took the message of rank 1.* at line ${wildcardLine} and`);
      // The debug session puts the Debug Console in front of the Problems panel, when it gets round to it: bring
      // the panel back while waiting, and poll again when the console took the front between the command and the
      // wait for the panel (the full run of 10:55 failed there).
      const raceRow = await until(
        `a Problems row matching ${racePattern}`,
        async () => {
          if (
            !(await openProblems(page).then(
              () => true,
              () => false,
            ))
          )
            return undefined;
          return (await problemLabels(page)).find((l) => racePattern.test(l));
        },
        90_000,
        async () => JSON.stringify(await problemLabels(page)),
      );
      await waitForProblems(page, racePattern, 1, 5_000);
      log(`race: ${raceRow?.slice(0, 200)}`);
      await waitForSessionEnd(page, program, 60_000);
      if (!raceRow?.startsWith('Warning: '))
        throw new Error(`the race's Problems row is not a warning: ${raceRow}`);
      await shot('race-warning');

      // The quick fix from the Problems panel: select the race's row, Ctrl+. lists its fixes.
      const row = page
        .locator('.markers-panel .monaco-list-row', { hasText: 'took the message of rank 1' })
        .first();
      await row.click();
      const fix = page.locator('.monaco-menu .action-item', {
        hasText: "Replay with the other message (rank 2's)",
      });
      await until(
        'the quick fix "Replay with the other message (rank 2\'s)"',
        async () => {
          if (await fix.first().isVisible()) return true;
          await row.click();
          await page.keyboard.press('Control+.');
          await fix
            .first()
            .waitFor({ timeout: 3_000 })
            .catch(() => undefined);
          return (await fix.first().isVisible()) ? true : undefined;
        },
        20_000,
        async () =>
          JSON.stringify(
            await page
              .locator('.monaco-menu .action-item')
              .allInnerTexts()
              .catch(() => []),
          ),
      );
      const fixes = await page.locator('.monaco-menu .action-item').allInnerTexts();
      log(`quick fixes: ${fixes.map((f) => f.trim()).join(' | ')}`);
      await shot('quick-fix');
      const chosen = Date.now();
      await fix.first().click();

      // The replay's outcome joins the race's diagnostic.
      const replayed = new RegExp(
        `took the message of rank 1.*Replayed with rank 2's message: deadlock\\..* at line ${wildcardLine} and`,
      );
      const [outcomeRow] = await waitForProblems(page, replayed, 1, 120_000);
      log(`replayed ${((Date.now() - chosen) / 1000).toFixed(1)} s after the quick fix: ${outcomeRow}`);
      const toast = page.locator('.notification-toast', { hasText: /race 0\.1\.2: deadlock/ });
      await toast.first().waitFor({ timeout: 10_000 });
      log(`notification: ${(await toast.first().innerText()).replace(/\s+/g, ' ').slice(0, 200)}`);
      // Only the race's rows (one per location) carry the outcome: the other findings stay as they were.
      const withOutcome = (await problemLabels(page)).filter((l) => l.includes('Replayed with rank'));
      if (withOutcome.some((l) => !l.includes('took the message of rank 1')))
        throw new Error(`rows with a replay outcome: ${JSON.stringify(withOutcome)}`);
      await shot('replay-outcome');

      // The hover on the wildcard receive's squiggle says it too.
      const squiggle = editorFor(page, 'race.c').locator('.squiggly-warning').first();
      if (await squiggle.isVisible()) {
        const box = await squiggle.boundingBox();
        if (box) {
          await page.mouse.move(0, 0);
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
          const hover = page.locator('.monaco-hover-content', { hasText: /Replayed with rank 2/ }).first();
          if (
            await hover.waitFor({ timeout: 5_000 }).then(
              () => true,
              () => false,
            )
          )
            await shot('replay-hover');
          await page.mouse.move(0, 0);
        }
      }

      // The deadlocked replay was ended: nothing of it is left running.
      await until(
        'the replayed job to leave no process',
        () => Promise.resolve(processesRunning(program).length === 0 ? true : undefined),
        20_000,
        () => Promise.resolve(`pids ${processesRunning(program).join(',')}`),
      );
    },
  };
}
