// Issue 11 §3: an MPI function breakpoint with a condition on the call's arguments and rank, set in the
// Run and Debug view's Breakpoints list as a user does ("Add Function Breakpoint", then "Edit Condition…"),
// stops the job under F5 at the one matching call only: fixtures/conditional/tags.c's rank 0 makes four
// MPI_Recv calls (source 1 tag 7, source 2 tag 5, source 2 tag 7, source 1 tag 5) and
// `source == 2 && tag == 7 && rank in 0-3` matches the third. The stop's thread state names the condition,
// the top frame is that call's line; Continue runs the job to its end with no other stop.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { callStackLabels, pressF5, showRunAndDebug, waitForSessionEnd, waitForThread } from '../lib/debug';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import { ariaLabelsOf, openFile, openWorkbench, runCommand, until } from '../lib/workbench';
import { lineOf, sourceText, workspaceWith } from '../lib/workspace';

const FIXTURE = 'test/e2e/fixtures/conditional/tags.c';
const FUNCTION = 'MPI_Recv';
const CONDITION = 'source == 2 && tag == 7 && rank in 0-3';

/** Types into the Breakpoints view's inline input box (a new function breakpoint's name, or its condition). */
async function typeInBreakpointInput(page: Page, text: string): Promise<void> {
  const input = page
    .locator('.debug-breakpoints .monaco-list-row input, .debug-breakpoints .inputBoxContainer input')
    .first();
  await input.waitFor({ timeout: 10_000 });
  await input.fill(text);
  await input.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 });
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

      // The breakpoint, through the Run and Debug view.
      await showRunAndDebug(page);
      await runCommand(page, 'Add Function Breakpoint');
      await typeInBreakpointInput(page, FUNCTION);
      const bpRow = page.locator('.debug-breakpoints .monaco-list-row', { hasText: FUNCTION }).first();
      await bpRow.waitFor({ timeout: 10_000 });
      // The row's pencil ("Edit Condition…"): on a function breakpoint it offers the condition and the hit count.
      // (The context menu's "Edit Function Condition…" edits the breakpoint's name, despite its title.)
      await bpRow.hover();
      await bpRow.locator('.action-label[aria-label^="Edit"]').first().click();
      await page
        .locator('.monaco-menu .action-item', { hasText: /Edit Condition/ })
        .first()
        .click();
      await typeInBreakpointInput(page, CONDITION);
      log(
        `breakpoints: ${(await ariaLabelsOf(page.locator('.debug-breakpoints .monaco-list-row'))).join(' | ')}`,
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
      // The workbench leaves the thread collapsed: expand rank 0's row to list its frames.
      await page.locator('.debug-call-stack .monaco-list-row[aria-label^="Thread rank 0 "]').first().click();
      const frames = await until(
        `a Call Stack frame at tags.c line ${matchLine}`,
        async () => {
          const all = await callStackLabels(page);
          return all.some((l) => l.startsWith('Stack Frame ') && l.includes(`line ${matchLine}, tags.c`))
            ? all
            : undefined;
        },
        20_000,
        async () => JSON.stringify(await callStackLabels(page)),
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
