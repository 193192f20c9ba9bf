import { pathToFileURL } from 'node:url';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { humanReport } from '../report/human-report';
import { jsonReport } from '../report/json-report';
import type { ReportInput } from '../report/report-model';
import { sarifReport } from '../report/sarif';
import { UsageError } from '../session/session-api';
import { repoRoot } from '../session/shim-locator';
import { toolVersion, type ReportTargets } from './report-targets';

/** Print the human report on stdout and write the requested JSON/SARIF files. */
export function writeReports(input: ReportInput, targets: ReportTargets, cwd: string): void {
  process.stdout.write(
    humanReport(input, { cwd, color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined }),
  );
  if (targets.json !== undefined) writeFile(targets.json, jsonReport(input), cwd);
  if (targets.sarif !== undefined) {
    writeFile(targets.sarif, sarifReport(input, { cwd, docsBase: docsBase(), version: toolVersion() }), cwd);
  }
}

function writeFile(path: string, text: string, cwd: string): void {
  const full = resolve(cwd, path);
  try {
    writeFileSync(full, text);
  } catch (err) {
    // A report cut short (a full disk) would read as a report with fewer findings, or as no JSON at all: none is left.
    rmSync(full, { force: true });
    throw new UsageError(`cannot write ${path}: ${(err as Error).message}; choose a writable path`);
  }
}

/**
 * docs/findings of this installation, where each kind has KIND.md, as a file: URI. The project has no
 * public web home to link to; the pages ship with the tool (and in the .vsix), so the link always opens.
 */
function docsBase(): string {
  const root = repoRoot();
  return root === undefined ? 'docs/findings' : pathToFileURL(join(root, 'docs', 'findings')).href;
}
