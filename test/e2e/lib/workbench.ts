// Drives the VS Code workbench in the browser through the selectors listed in /work/shared/E2E.md.
// Every wait is on a selector or a condition, with a timeout that says what it was waiting for.
import type { Locator, Page } from 'playwright-core';

/** Polls cond until it returns a value other than undefined, or fails with what was awaited. */
export async function until<T>(
  what: string,
  cond: () => Promise<T | undefined>,
  timeoutMs: number,
  lastSeen?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const seen = lastSeen ? `; last seen: ${await lastSeen().catch(() => '?')}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    // A poll interval, not a readiness guess: the condition is re-checked until the deadline.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function openWorkbench(page: Page, serverUrl: string, folder: string): Promise<void> {
  await page.goto(`${serverUrl}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
}

/** Opens the command palette (F1) with the given text typed, and returns the visible rows' labels. */
export async function paletteRows(page: Page, text: string): Promise<string[]> {
  // The palette computes its list when it opens: reopen it so that a poll sees commands registered since.
  await closeQuickInput(page);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page.locator('.monaco-workbench').press('F1');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${text}`, { timeout: 5_000 });
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  return until(
    `command palette rows for "${text}"`,
    async () => {
      const labels = await ariaLabelsOf(rows);
      return labels.length > 0 ? labels : undefined;
    },
    10_000,
  );
}

/** Runs a command by its exact palette title, e.g. "mpiscope: Open JSON Report…". An extension's
 * commands reach the palette only once the extension host has read its manifest: reopen until then. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const row = page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: title })
    .first();
  await until(
    `"${title}" run from the command palette`,
    async () => {
      // The palette can close under us (the workbench gives focus to a debug pause, a notification or an
      // editor restored late; seen once in a full CI run): that is a retry, not a failure; the deadline stays.
      const opened = await paletteRows(page, title).then(
        () => true,
        () => false,
      );
      if (!opened || !(await row.isVisible())) return undefined;
      // It can also close between that look and the click (session 16's CI: the row went from "not stable" to
      // "not visible" while the ring's job stopped): open it again. A click that fails has clicked nothing.
      return row.click({ timeout: 3_000 }).then(
        () => true,
        () => undefined,
      );
    },
    30_000,
  );
}

export async function closeQuickInput(page: Page): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  if (await widget.isVisible()) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 5_000 });
  }
}

export function editorFor(page: Page, fileName: string): Locator {
  return page.locator(`.editor-group-container .monaco-editor[data-uri$="/${fileName}"]`);
}

/** Opens a file from the explorer by its name and waits for its editor. */
export async function openFile(page: Page, fileName: string): Promise<Locator> {
  // An explorer row's aria-label is the file's name.
  await page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${fileName}"]`).click();
  const editor = editorFor(page, fileName);
  await editor.locator('.view-lines').waitFor({ timeout: 20_000 });
  return editor;
}

export async function openProblems(page: Page): Promise<void> {
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible())) {
    await runCommand(page, 'View: Focus Problems');
  }
  await panel.waitFor({ timeout: 10_000 });
}

/** aria-labels of the Problems panel rows that are markers (not the file rows that group them). */
export async function problemLabels(page: Page): Promise<string[]> {
  const labels = await ariaLabelsOf(page.locator('.markers-panel .monaco-list-row'));
  // Marker rows start with their severity; the rows of related information under them do not.
  return labels.filter((l) => /^(Error|Warning|Info): .* at line \d+ and character \d+/.test(l));
}

/** Waits until the Problems panel lists `count` markers matching `pattern`, and returns them. */
export async function waitForProblems(
  page: Page,
  pattern: RegExp,
  count: number,
  timeoutMs: number,
): Promise<string[]> {
  return until(
    `${count} problems matching ${pattern}`,
    async () => {
      const hits = (await problemLabels(page)).filter((l) => pattern.test(l));
      return hits.length >= count ? hits : undefined;
    },
    timeoutMs,
    async () => JSON.stringify(await problemLabels(page)),
  );
}

/** The little of the DOM that code evaluated in the page uses (the test package has no DOM types). */
interface PageElement {
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { readonly top: number };
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

/** The 1-based editor lines that carry an error squiggle, found by matching the vertical positions
 * of the squiggles with those of the line numbers in the gutter. One round trip, so that the editor
 * cannot re-render between the two queries. */
export async function squiggleLines(editor: Locator): Promise<number[]> {
  if ((await editor.count()) === 0) return [];
  return editor.first().evaluate((root: PageElement) => {
    const numbers = Array.from(root.querySelectorAll('.margin-view-overlays .line-numbers')).map((el) => ({
      line: Number(el.textContent?.trim()),
      top: el.getBoundingClientRect().top,
    }));
    const lines = new Set<number>();
    for (const sq of Array.from(root.querySelectorAll('.squiggly-error'))) {
      const top = sq.getBoundingClientRect().top;
      let best: { line: number; d: number } | undefined;
      for (const n of numbers) {
        const d = Math.abs(n.top - top);
        if (!best || d < best.d) best = { line: n.line, d };
      }
      if (best) lines.add(best.line);
    }
    return [...lines].sort((a, b) => a - b);
  });
}

/** aria-labels of the elements a locator matches now (a list row's label is its full text). */
export async function ariaLabelsOf(rows: Locator): Promise<string[]> {
  return rows.evaluateAll((els: PageElement[]) => els.map((e) => e.getAttribute('aria-label') ?? ''));
}

/** Answers a showOpenDialog: code-server shows VS Code's own file picker, a quick input holding a path. */
export async function pickFile(page: Page, path: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // The picker reuses the palette's widget: wait until it holds a path, not the command just run.
  await until(
    'the file picker',
    async () => ((await input.inputValue().catch(() => '')).startsWith('/') ? true : undefined),
    10_000,
  );
  // The picker sets its starting folder asynchronously and may overwrite what was typed before that:
  // type the path until it stays and the picker lists the file, only then accept it.
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-label=".."]').waitFor();
  const name = path.slice(path.lastIndexOf('/') + 1);
  const row = page.locator(`.quick-input-widget .quick-input-list .monaco-list-row[aria-label="${name}"]`);
  await until(
    `the file picker to show ${path}`,
    async () => {
      if ((await input.inputValue()) !== path) await input.fill(path);
      return (await row.isVisible()) && (await input.inputValue()) === path ? true : undefined;
    },
    10_000,
    () => input.inputValue(),
  );
  await input.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** Fails at once when the workbench shows a modal dialog (e.g. "Configured debug type 'mpi' is not
 * supported", or a failed preLaunchTask), instead of letting the caller wait for its timeout. */
export async function failOnDialog(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  if (await dialog.isVisible()) {
    const text = (await dialog.innerText().catch(() => '?')).replace(/\s+/g, ' ');
    throw new Error(`the workbench shows a dialog: ${text}`);
  }
}

/** Waits until the mpiscope extension is active and its language server answered: its status bar
 * item (id "<publisher>.<name>.mpiscope.status") is then shown. F5 pressed before the workbench has
 * restored is silently dropped (it only opens the Run view), so the F5 check waits for this first. */
export async function waitForExtension(page: Page): Promise<void> {
  await page.locator('.statusbar-item[id="mpiscope.mpiscope.mpiscope.status"]').waitFor({ timeout: 30_000 });
}

/**
 * Opens a file by clicking its row in the explorer, as a user does. The workbench shows the explorer before
 * it has read the extensions' contributions; a file opened before then goes to the text editor, so this
 * first waits until mpiscope's commands are in the palette (the manifest, custom editors included, is read).
 * `clicking` is called just before the click (a benchmark starts its clock there).
 */
export async function openFromExplorer(page: Page, name: string, clicking?: () => void): Promise<void> {
  await until(
    "mpiscope's contributions in the workbench",
    async () => ((await paletteRows(page, 'mpiscope')).some((r) => /Open Trace/.test(r)) ? true : undefined),
    60_000,
  );
  await closeQuickInput(page);
  // The row whose name is exactly `name`: `run.mpitrace` must not find `run.mpitrace.timeline` (its index).
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page
    .locator('.explorer-folders-view .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exact }) })
    .first();
  await row.waitFor({ timeout: 30_000 });
  clicking?.();
  await row.click();
}
