// Temporary copies of the example workspaces, and the processes started from them.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Copies examples/<name> into a fresh temporary folder (without any binary built there before). */
export function copyExample(repoRoot: string, name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), `mpiscope-e2e-${name}-`)), name);
  cpSync(join(repoRoot, 'examples', name), dir, { recursive: true });
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
