// The Run and Debug side of the workbench: F5, the Call Stack's threads (one per rank) and frames, and
// stopping a session, shared by the checks that drive an mpi debug session.
import type { Locator, Page } from 'playwright-core';
import { ariaLabelsOf, failOnDialog, runCommand, until, waitForExtension } from './workbench';
import { processesRunning } from './workspace';

/** Presses F5 in the given editor once the extension is ready (an F5 during the workbench's restore is dropped). */
export async function pressF5(page: Page, editor: Locator): Promise<void> {
  await waitForExtension(page);
  await editor.locator('.view-lines').click();
  await page.keyboard.press('F5');
}

function callStackRows(page: Page): Locator {
  return page.locator('.debug-call-stack .monaco-list-row');
}

/** Shows the Run and Debug view (the Explorer stays in front after opening a file from it). */
export async function showRunAndDebug(page: Page): Promise<void> {
  if (!(await page.locator('.debug-call-stack').isVisible()))
    await runCommand(page, 'View: Show Run and Debug');
  await page.locator('.debug-call-stack').waitFor({ timeout: 10_000 });
}

/**
 * Waits until a Call Stack thread row's aria-label ("Thread rank 0 — MPI_Recv … Paused on …") matches `state`,
 * failing at once on a workbench dialog; returns every row's label then (threads and frames).
 */
export async function waitForThread(page: Page, state: RegExp, timeoutMs: number): Promise<string[]> {
  return until(
    `a Call Stack thread matching ${state}`,
    async () => {
      await failOnDialog(page);
      const labels = await ariaLabelsOf(callStackRows(page));
      return labels.some((l) => l.startsWith('Thread ') && state.test(l)) ? labels : undefined;
    },
    timeoutMs,
    async () => JSON.stringify(await ariaLabelsOf(callStackRows(page))),
  );
}

/** Every Call Stack row's aria-label now. */
export function callStackLabels(page: Page): Promise<string[]> {
  return ariaLabelsOf(callStackRows(page));
}

/**
 * Expands a rank's thread row in the Call Stack until its frames are listed, and returns every row's label then.
 * The workbench expands the stopped thread by itself, but when depends on how soon the stack trace answered: a
 * click on the row toggles it, so it is clicked only while the row reads collapsed (a click made blindly after
 * the workbench's own expansion collapsed the thread again, and the frames never came).
 */
export async function expandThread(
  page: Page,
  rank: number,
  framesShown: (labels: string[]) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  const row = callStackRows(page)
    .and(page.locator(`[aria-label^="Thread rank ${rank} "]`))
    .first();
  return until(
    `rank ${rank}'s frames in the Call Stack`,
    async () => {
      const labels = await callStackLabels(page);
      if (framesShown(labels)) return labels;
      if ((await row.getAttribute('aria-expanded').catch(() => null)) === 'false') {
        await row.locator('.monaco-tl-twistie').click();
        // The next poll must not see the row before it re-rendered as expanded, or it would click it shut.
        await row.and(page.locator('[aria-expanded="true"]')).waitFor({ timeout: 5_000 });
      }
      return undefined;
    },
    timeoutMs,
    async () => JSON.stringify(await callStackLabels(page)),
  );
}

/** Waits until the debug session has ended by itself and no process of `program` is left. */
export async function waitForSessionEnd(page: Page, program: string, timeoutMs: number): Promise<void> {
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: timeoutMs });
  await until(
    `every ${program} process to end`,
    () => Promise.resolve(processesRunning(program).length === 0 ? true : undefined),
    20_000,
    () => Promise.resolve(`pids ${processesRunning(program).join(',')}`),
  );
}

/** Shift+F5, then waits until the session and every process of `program` are gone. */
export async function stopSession(page: Page, program: string): Promise<void> {
  if (await page.locator('.debug-toolbar').isVisible()) await page.keyboard.press('Shift+F5');
  await waitForSessionEnd(page, program, 20_000);
}
