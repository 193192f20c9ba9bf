// A small sequential runner for the end-to-end checks: they share one code-server and one browser
// (starting those is most of the cost), each check gets its own page, and every check leaves
// screenshots of its key steps in test/e2e/.out/, plus one of the moment it failed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export interface CheckContext {
  readonly page: Page;
  /** Saves a screenshot of the page as .out/<check>-<n>-<step>.png. */
  readonly shot: (step: string) => Promise<void>;
  readonly log: (line: string) => void;
}

export interface Check {
  readonly name: string;
  readonly run: (ctx: CheckContext) => Promise<void>;
}

export interface RunResult {
  readonly passed: number;
  readonly failed: number;
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export async function runChecks(
  checks: readonly Check[],
  newPage: () => Promise<Page>,
  outDir: string,
): Promise<RunResult> {
  mkdirSync(outDir, { recursive: true });
  let passed = 0;
  let failed = 0;
  for (const check of checks) {
    const started = Date.now();
    const page = await newPage();
    // No single step may take longer than this; waits that need more say so explicitly.
    page.setDefaultTimeout(15_000);
    let n = 0;
    const shot = async (step: string): Promise<void> => {
      n += 1;
      const file = join(outDir, `${slug(check.name)}-${String(n).padStart(2, '0')}-${slug(step)}.png`);
      await page.screenshot({ path: file });
    };
    const log = (line: string): void => console.log(`    ${line}`);
    console.log(`- ${check.name}`);
    try {
      await check.run({ page, shot, log });
      passed += 1;
      console.log(`  ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed += 1;
      const message = err instanceof Error ? err.message : String(err);
      console.log(`  FAILED (${((Date.now() - started) / 1000).toFixed(1)} s): ${message}`);
      await shot('failure').catch((e: unknown) => console.log(`  (no failure screenshot: ${String(e)})`));
    } finally {
      await page.close().catch(() => undefined);
    }
  }
  return { passed, failed };
}
