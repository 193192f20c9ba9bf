// Bundles decoder.ts with esbuild and runs it: node bench/fuzz/run.mjs [--inputs N] [--seed S] [--traces]
// With --traces, first records a trace of a few corpus programs on each installed MPI (needs
// `node scripts/build.mjs`), so real streams (SITE, DTYPE, COMM, CLOCK records of real calls) are seeds too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBench } from '../lib/run-bench.mjs';

const here = join(fileURLToPath(import.meta.url), '..');
const root = join(here, '..', '..');
const out = await bundleBench(join(here, 'decoder.ts'), 'fuzz-decoder');
const args = process.argv.slice(2).filter((a) => a !== '--traces');
const traces = [];
const work = mkdtempSync(join(tmpdir(), 'mpiscope-fuzz-'));
if (process.argv.includes('--traces')) {
  const programs = [
    'ok-halo-nonblocking.c',
    'ok-hvector-type.c',
    'ok-gather-scatter.c',
    'ok-intercomm-ping.c',
    'deadlock-cycle-with-bystanders.c',
  ];
  for (const flavor of ['openmpi', 'mpich']) {
    for (const p of programs) {
      const src = join(root, 'test', 'programs', p);
      const exe = join(work, `${flavor}-${p}.exe`);
      if (spawnSync(`mpicc.${flavor}`, ['-g', '-o', exe, src]).status !== 0) continue;
      const trace = join(work, `${flavor}-${p}.trace`);
      const np = /ranks:\s*(\d+)/.exec(readFileSync(src, 'utf8'))?.[1] ?? '2';
      spawnSync(
        process.execPath,
        [
          join(root, 'dist', 'cli.js'),
          'run',
          '--trace',
          trace,
          '--deadlock-timeout',
          '10',
          '--mpirun',
          `mpirun.${flavor}`,
          '-np',
          np,
          exe,
        ],
        { stdio: 'ignore', timeout: 120_000 },
      );
      traces.push(trace);
    }
  }
}
const r = spawnSync(process.execPath, ['--max-old-space-size=1024', out, ...args, ...traces], {
  stdio: 'inherit',
});
rmSync(work, { recursive: true, force: true });
process.exit(r.status ?? 1);
