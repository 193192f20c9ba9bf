// Temporary copies of the example workspaces, and the processes started from them.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Suite } from './suite';

/** Copies examples/<name> into a fresh folder under the suite's temporary folder (without any binary built there before). */
export function copyExample(suite: Suite, name: string): string {
  const dir = join(mkdtempSync(join(suite.tmp, `${name}-`)), name);
  cpSync(join(suite.repoRoot, 'examples', name), dir, { recursive: true });
  rmSync(join(dir, 'ring'), { force: true });
  return dir;
}

/** Pids of live processes whose command line runs `program` (an absolute path), mpirun's included. */
export function processesRunning(program: string): number[] {
  const escaped = program.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    // The program path must be followed by a space or the end, so that `ring.c` (the build) does not count.
    const out = execFileSync('pgrep', ['-f', `${escaped}( |$)`], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(Number);
  } catch (err) {
    // pgrep exits 1 when nothing matches.
    if ((err as { status?: number }).status === 1) return [];
    throw err;
  }
}

/**
 * A fresh workspace folder named `name` under the suite's temporary folder holding `files` (relative path →
 * contents) and a launch.json whose one "mpi" configuration runs `${workspaceFolder}/<program>` on `np` ranks.
 * No preLaunchTask: F5 builds the program from `<program>.c` next to it, as it does for a bare C file.
 */
export function workspaceWith(
  suite: Suite,
  name: string,
  files: Readonly<Record<string, string>>,
  launch: { readonly program: string; readonly np: number },
): string {
  const dir = join(mkdtempSync(join(suite.tmp, `${name}-`)), name);
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  const configuration = {
    name: `mpiscope: ${launch.program}`,
    type: 'mpi',
    request: 'launch',
    program: `\${workspaceFolder}/${launch.program}`,
    np: launch.np,
    cwd: '${workspaceFolder}',
  };
  writeFileSync(
    join(dir, '.vscode', 'launch.json'),
    JSON.stringify({ version: '0.2.0', configurations: [configuration] }, null, 2),
  );
  return dir;
}

/** The text of a corpus program (test/programs/NAME) or an e2e fixture (test/e2e/fixtures/NAME). */
export function sourceText(suite: Suite, path: string): string {
  return readFileSync(join(suite.repoRoot, path), 'utf8');
}

/** The 1-based line of `source` that contains `marker` (exactly one must). */
export function lineOf(source: string, marker: string): number {
  const lines = source.split('\n');
  const hits = lines.flatMap((l, i) => (l.includes(marker) ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`expected one line with "${marker}", found ${hits.length}`);
  return hits[0]!;
}
