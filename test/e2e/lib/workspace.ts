// Temporary copies of the example workspaces, and the processes started from them.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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
