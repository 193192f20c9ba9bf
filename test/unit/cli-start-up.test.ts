import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../lib/mpiscope-cli';

/**
 * Node's modules the CLI's process had loaded when it exited. Each command's modules are loaded when it runs
 * (server/src/cli/main.ts), and `run` loads the engine's only once its launcher runs (session.ts, runJob): a
 * static import of the engine or of the rank server from the CLI's first modules would put them back into the
 * start-up of every run (bench/end-to-end/README.md). worker_threads is the engine's shard pool's, http the rank
 * server's: two that tell from outside whether those modules were loaded.
 */
function modulesLoadedBy(args: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-start-up-'));
  try {
    const probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeSync(2, '\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n`,
    );
    const run = spawnSync(process.execPath, ['-r', probe, join(repoRoot(), 'dist', 'cli.js'), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const line = /^MODULES (.*)$/m.exec(run.stderr)?.[1];
    assert.ok(line !== undefined, `no module list from mpiscope ${args.join(' ')}: ${run.stderr}`);
    return JSON.parse(line) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('--version and --help load neither the engine nor the rank server', () => {
  for (const args of [['--version'], ['--help']]) {
    const loaded = modulesLoadedBy(args);
    assert.ok(!loaded.includes('NativeModule worker_threads'), `mpiscope ${args[0]} loaded worker_threads`);
    assert.ok(!loaded.includes('NativeModule http'), `mpiscope ${args[0]} loaded http`);
  }
});

test('a run refused by its checks (no such program) never loads the engine', () => {
  const loaded = modulesLoadedBy(['run', '-np', '2', '/nonexistent/mpiscope-start-up-program']);
  assert.ok(loaded.includes('NativeModule child_process'), 'the run got as far as its checks');
  assert.ok(!loaded.includes('NativeModule worker_threads'), 'the refused run loaded worker_threads');
});
