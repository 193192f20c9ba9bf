// The end-to-end suite: the packaged extension in a real VS Code (code-server) driven by Chromium.
// Run by scripts/test-e2e.sh (npm run test:e2e), which installs the tools and packages the .vsix first.
// Prints "N passed, N failed"; exits 1 when a check failed, 2 when the suite could not run at all.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { activationCheck } from './checks/activation';
import { conditionalBreakpointCheck } from './checks/conditional-breakpoint';
import { deadlockF5Check } from './checks/deadlock-f5';
import { messageQueuesCheck } from './checks/message-queues';
import { openReportCheck } from './checks/open-report';
import { replayRaceCheck } from './checks/replay-race';
import { timelineCheck } from './checks/timeline';
import { netTestEditorCheck, traceEditorCheck } from './checks/trace-editor';
import { findCodeServer, startCodeServer, type CodeServer } from './lib/code-server';
import { runChecks, type Check } from './lib/runner';
import type { Suite } from './lib/suite';

// The bundle lives in dist/test/e2e/.
const repoRoot = resolve(__dirname, '..', '..', '..');
const outDir = join(repoRoot, 'test', 'e2e', '.out');
const vsix = process.env['MPISCOPE_VSIX'] ?? join(repoRoot, 'dist', 'mpiscope.vsix');
const SUITE_TIMEOUT_MS = 8 * 60_000;

/** Nothing MPI-specific: the session itself passes Open MPI --allow-run-as-root and --oversubscribe,
 * and the suite tests what a user gets. */
const serverEnv: Record<string, string> = {};

async function main(): Promise<number> {
  let paths;
  try {
    paths = findCodeServer(repoRoot);
  } catch (err) {
    console.error(`e2e: ${(err as Error).message}`);
    return 2;
  }
  if (!existsSync(vsix)) {
    console.error(`e2e: ${vsix} is missing: run scripts/package.sh`);
    return 2;
  }
  rmSync(outDir, { recursive: true, force: true });
  const tmp = mkdtempSync(join(tmpdir(), 'mpiscope-e2e-'));

  const filter = process.env['E2E_ONLY'];
  let server: CodeServer | undefined;
  let closeBrowser: (() => Promise<void>) | undefined;
  let checks: Check[] = [];
  try {
    server = await startCodeServer({ paths, env: serverEnv, vsix, startTimeoutMs: 60_000, tmp });
    console.log(`e2e: code-server at ${server.url}`);
    const suite: Suite = { repoRoot, serverUrl: server.url, vsix, tmp };
    checks = [
      activationCheck(suite),
      openReportCheck(suite),
      deadlockF5Check(suite),
      timelineCheck(suite),
      traceEditorCheck(suite),
      netTestEditorCheck(suite),
      replayRaceCheck(suite),
      messageQueuesCheck(suite),
      conditionalBreakpointCheck(suite),
    ].filter((c) => !filter || c.name.includes(filter));

    const context = await chromium.launchPersistentContext(mkdtempSync(join(tmp, 'chromium-')), {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    closeBrowser = () => context.close();
    const { passed, failed } = await runChecks(checks, () => context.newPage(), outDir);
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 ? 0 : 1;
  } catch (err) {
    console.error(`e2e: the suite could not run: ${(err as Error).message}`);
    console.log(`0 passed, ${Math.max(checks.length, 1)} failed`);
    return 1;
  } finally {
    await closeBrowser?.().catch(() => undefined);
    if (process.env['E2E_SERVER_LOG'] && server) console.error(server.log());
    await server?.stop().catch(() => undefined);
    if (!process.env['E2E_KEEP']) rmSync(tmp, { recursive: true, force: true });
  }
}

// A last guard so that a wedged browser or server can never hang CI.
const guard = setTimeout(() => {
  console.error(`e2e: the suite did not finish within ${SUITE_TIMEOUT_MS / 60_000} minutes`);
  process.exit(1);
}, SUITE_TIMEOUT_MS);
guard.unref();

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
