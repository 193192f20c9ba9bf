/**
 * What the CLI checks and prints before any report exists (the report files' folders, the version): apart from
 * write-reports.ts, whose report modules are loaded only once a run or a replay has something to report, so that
 * `mpiscope run` starts its launcher without having loaded them (bench/end-to-end/README.md, "Start-up and end").
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../session/session-api';
import { repoRoot } from '../session/shim-locator';

export interface ReportTargets {
  readonly json?: string;
  readonly sarif?: string;
}

/** Fails at once (before a run) when a report file cannot be written: its folder is missing or read-only. */
export function checkTargets(targets: ReportTargets, cwd: string): void {
  for (const path of [targets.json, targets.sarif]) {
    if (path === undefined) continue;
    const dir = dirname(resolve(cwd, path));
    let ok: boolean;
    try {
      ok = statSync(dir).isDirectory();
      accessSync(dir, constants.W_OK);
    } catch {
      ok = false;
    }
    if (!ok) throw new UsageError(`cannot write ${path}: folder ${dir} does not exist or is not writable`);
  }
}

interface PackageJson {
  readonly version?: string;
}

function packageJson(): PackageJson {
  const root = repoRoot();
  if (root === undefined) return {};
  try {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return {};
  }
}

export function toolVersion(): string {
  return packageJson().version ?? '0.0.0';
}
