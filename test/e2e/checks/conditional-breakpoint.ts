// Issue 11 §3: an MPI function breakpoint with a condition on the call's arguments and rank, set in the
// Run and Debug view's Breakpoints list as a user does ("Add Function Breakpoint", then "Edit Condition…"),
// stops the job under F5 at the one matching call only: fixtures/conditional/tags.c's rank 0 makes four
// MPI_Recv calls (source 1 tag 7, source 2 tag 5, source 2 tag 7, source 1 tag 5) and
// `source == 2 && tag == 7 && rank in 0-3` matches the third. The stop's thread state names the condition,
// the top frame is that call's line; Continue runs the job to its end with no other stop.
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  callStackLabels,
  expandThread,
  pressF5,
  showRunAndDebug,
  waitForSessionEnd,
  waitForThread,
} from '../lib/debug';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import { ariaLabelsOf, openFile, openWorkbench, runCommand, until, waitForExtension } from '../lib/workbench';
import { lineOf, sourceText, workspaceWith } from '../lib/workspace';

const FIXTURE = 'test/e2e/fixtures/conditional/tags.c';
const FUNCTION = 'MPI_Recv';
const CONDITION = 'source == 2 && tag == 7 && rank in 0-3';

/** The Breakpoints view's inline input box (a new function breakpoint's name, or its condition). */
function breakpointInput(page: Page): Locator {
  return page
    .locator('.debug-breakpoints .monaco-list-row input, .debug-breakpoints .inputBoxContainer input')
    .first();
}

/** Types into the Breakpoints view's inline input box and accepts it. */
async function typeInBreakpointInput(page: Page, text: string): Promise<void> {
  const input = breakpointInput(page);
  await input.waitFor({ timeout: 10_000 });
  await input.fill(text);
  await input.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 });
}

/**
 * Opens the condition's input box of a function breakpoint's row through its pencil ("Edit Condition…"): on a
 * function breakpoint the pencil offers the condition and the hit count. (The context menu's "Edit Function
 * Condition…" edits the breakpoint's name, despite its title.) A click on the menu's item was seen to leave
 * the menu open with the item highlighted and no input box (the full run of 10:31): the menu's item takes
 * Enter as well, and the pencil is clicked again when the menu went away without the box.
 */
async function openConditionInput(page: Page, bpRow: Locator): Promise<void> {
  const input = breakpointInput(page);
  const item = page.locator('.monaco-menu .action-item', { hasText: /Edit Condition/ }).first();
  let clickedItem = false;
  await until(
    'the breakpoint condition input box',
    async () => {
      if (await input.isVisible()) return true;
      if (await item.isVisible()) {
        if (!clickedItem) await item.click();
        else await item.press('Enter');
        clickedItem = true;
      } else {
        clickedItem = false;
        await bpRow.hover();
        await bpRow.locator('.action-label[aria-label^="Edit"]').first().click();
        await item.waitFor({ timeout: 5_000 }).catch(() => undefined);
        return undefined;
      }
      await input.waitFor({ timeout: 3_000 }).catch(() => undefined);
      return undefined;
    },
    30_000,
  );
}

export function conditionalBreakpointCheck(suite: Suite): Check {
  return {
    name: 'conditional MPI function breakpoint stops at the matching call only',
    run: async ({ page, shot, log }) => {
      const source = sourceText(suite, FIXTURE);
      const matchLine = lineOf(source, "the condition's call");
      const folder = workspaceWith(suite, 'conditional', { 'tags.c': source }, { program: 'tags', np: 3 });
      const program = join(folder, 'tags');
      await openWorkbench(page, suite.serverUrl, folder);
      const editor = await openFile(page, 'tags.c');

      // The breakpoint, through the Run and Debug view, once the workbench has restored and the extension is
      // active (as for F5): the mpi debugger's registration is then done.
      await waitForExtension(page);
      await showRunAndDebug(page);
      // The new breakpoint's input box can lose focus and close before it is typed into (seen once in a full
      // CI run, as the palette closing above): add it again until the box is there, within a deadline.
      await until(
        'the new function breakpoint input box',
        async () => {
          await runCommand(page, 'Add Function Breakpoint');
          return (await breakpointInput(page)
            .waitFor({ timeout: 5_000 })
            .then(() => true)
            .catch(() => false))
            ? true
            : undefined;
        },
        30_000,
      );
      await typeInBreakpointInput(page, FUNCTION);
      const bpRow = page.locator('.debug-breakpoints .monaco-list-row', { hasText: FUNCTION }).first();
      await bpRow.waitFor({ timeout: 10_000 });
      await openConditionInput(page, bpRow);
      await typeInBreakpointInput(page, CONDITION);
      const bpLabels = await ariaLabelsOf(page.locator('.debug-breakpoints .monaco-list-row'));
      log(`breakpoints: ${bpLabels.join(' | ').replace(/\s+/g, ' ')}`);
      if (!bpLabels.some((l) => l.startsWith(FUNCTION) && l.includes(`Condition: ${CONDITION}`)))
        throw new Error(
          `the ${FUNCTION} breakpoint does not carry the condition: ${JSON.stringify(bpLabels)}`,
        );
      await shot('breakpoint-set');

      const pressed = Date.now();
      await pressF5(page, editor);
      // Rank 0's thread: held at the receive from 2 with tag 7, paused on the function breakpoint (the workbench
      // shows the stop's reason; the description naming the condition is the stop's hover text).
      const labels = await waitForThread(
        page,
        new RegExp(`^Thread rank 0 — ${FUNCTION} from 2, tag 7\\b.* Paused on function breakpoint$`),
        90_000,
      );
      log(`stopped ${((Date.now() - pressed) / 1000).toFixed(1)} s after F5: ${labels.join(' | ')}`);

      // The stopped rank's top frame is the matching call's line (the earlier MPI_Recv calls did not stop).
      const frames = await expandThread(
        page,
        0,
        (all) => all.some((l) => l.startsWith('Stack Frame ') && l.includes(`line ${matchLine}, tags.c`)),
        20_000,
      );
      const onBreakpoint = frames.filter(
        (l) => l.startsWith('Thread ') && / Paused on function breakpoint$/.test(l),
      );
      if (onBreakpoint.length !== 1)
        throw new Error(`expected rank 0 alone stopped on the breakpoint, got ${JSON.stringify(frames)}`);
      // The editor shows the paused line: the top stack frame's decoration on the matching call's line.
      await page.locator('.debug-top-stack-frame-line').first().waitFor({ timeout: 10_000 });
      await shot('conditional-breakpoint-hit');

      // Continue: the fourth MPI_Recv (source 1, tag 5) does not match; the job runs to its end.
      await page.locator('.debug-toolbar .codicon-debug-continue').click();
      // The labels of the stop just left may linger a moment: a pause counts once the job was seen running.
      // A stop that came before any poll saw it running keeps the session alive, which the timeout reports.
      let resumed = false;
      await until(
        'the session to end with no other stop',
        async () => {
          const paused = (await callStackLabels(page)).filter(
            (l) => l.startsWith('Thread ') && / Paused/.test(l),
          );
          if (paused.length === 0) resumed = true;
          else if (resumed) throw new Error(`the job stopped again: ${JSON.stringify(paused)}`);
          return (await page.locator('.debug-toolbar').isVisible()) ? undefined : true;
        },
        60_000,
        async () => JSON.stringify(await callStackLabels(page)),
      );
      await waitForSessionEnd(page, program, 20_000);
      await runCommand(page, 'Debug Console: Focus on Debug Console View');
      const output = page.locator('.repl .monaco-list-row', { hasText: 'sum = 6' });
      await output.first().waitFor({ timeout: 10_000 });
      await shot('job-ended');
    },
  };
}
