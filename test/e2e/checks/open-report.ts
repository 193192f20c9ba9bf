// A saved JSON report (what `mpiscope run --json` writes) opened from the command palette shows its
// findings as diagnostics, without running anything.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectOneRowPerRank } from '../lib/rank-rows';
import type { Check } from '../lib/runner';
import type { Suite } from '../lib/suite';
import { contributedCommands, paletteTitle } from '../lib/manifest';
import { openProblems, openWorkbench, pickFile, runCommand, waitForProblems } from '../lib/workbench';
import { copyExample } from '../lib/workspace';

const RECV_LINE = 23;

/** A report in the format of DESIGN.md, as the CLI would write it for examples/deadlock/ring.c. */
function deadlockReport(source: string): string {
  const locations = [0, 1, 2].map((rank) => ({
    rank,
    file: source,
    line: RECV_LINE,
    function: 'main',
    call: `MPI_Recv from rank ${(rank + 2) % 3}, tag 0`,
    detail: `rank ${rank} waits for rank ${(rank + 2) % 3}`,
  }));
  const report = {
    findings: [
      {
        kind: 'deadlock',
        severity: 'error',
        message: 'deadlock: ranks 0, 1, 2 wait for each other in a ring',
        locations,
      },
    ],
    ranks: 3,
    exitCode: null,
  };
  return JSON.stringify(report, null, 2);
}

export function openReportCheck(suite: Suite): Check {
  return {
    name: 'opening a saved JSON report shows its diagnostics',
    run: async ({ page, shot, log }) => {
      const command = contributedCommands(suite.vsix).find(
        (c) => /report/i.test(`${c.command} ${c.title}`) && /open|load|show/i.test(`${c.command} ${c.title}`),
      );
      if (!command) throw new Error('package.json contributes no command that opens a report');
      const title = paletteTitle(command);
      log(`command: ${title}`);

      const folder = copyExample(suite, 'deadlock');
      const report = join(folder, 'ring-report.json');
      writeFileSync(report, deadlockReport(join(folder, 'ring.c')));
      await openWorkbench(page, suite.serverUrl, folder);

      await runCommand(page, title);
      await pickFile(page, report);
      await shot('report-picked');

      await openProblems(page);
      const rows = await waitForProblems(page, new RegExp(`at line ${RECV_LINE} and`), 3, 20_000);
      expectOneRowPerRank(rows, [0, 1, 2]);
      await shot('problems');
    },
  };
}
