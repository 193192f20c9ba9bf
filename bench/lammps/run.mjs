#!/usr/bin/env node
// Issue 12's real-application rows: Debian's LAMMPS (`lmp`, built for Open MPI only) on its own
// Lennard-Jones `melt` example, bare under mpirun.openmpi and under `mpiscope run`, side by side in one run,
// at 2 and 4 ranks. Prints per rank count:
//   - wall time, bare and under mpiscope, and the ratio;
//   - the CPU time mpiscope adds per CPU-second of the application: (CPU of the whole process tree under
//     mpiscope − CPU of the bare tree) ÷ CPU of the bare tree. Whole-process CPU (user + system) of every
//     process the command started and waited for (getrusage RUSAGE_CHILDREN through /usr/bin/time), so the
//     ranks, their sender threads, mpirun and the analyzer with its worker threads are all in it;
//   - the analyzer's peak memory (VmHWM of the mpiscope process, sampled every 100 ms) against the largest
//     process of the bare run (its ranks' peak RSS).
// The example runs 250 steps (about half a second); the "13 s bare" is the same input run longer:
// --steps sets the `run` length (default 10000: ~13 s bare on 2 ranks here, 4000 steps took 5.5 s;
// --quick uses 2000 and one repetition).
//
//   node bench/lammps/run.mjs [--ranks 2,4] [--steps 10000] [--repeat 3] [--quick]
// Needs `node scripts/build.mjs` first (dist/cli.js). Numbers, not a test: nothing fails on a slow result.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'cli.js');
// Run as a user runs it (its shebang gives the analyzer's Node its young-generation size), not `node dist/cli.js`.
const mpiscope = join(root, 'bin', 'mpiscope.js');
const example = '/usr/share/lammps/examples/melt/in.melt';
const { values } = parseArgs({
  options: {
    ranks: { type: 'string', default: '2,4' },
    steps: { type: 'string' },
    repeat: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const steps = Number(values.steps ?? (values.quick ? 2000 : 10000));
const repeat = Number(values.repeat ?? (values.quick ? 1 : 3));
const rankCounts = values.ranks.split(',').map(Number);
for (const [what, path] of [
  ['dist/cli.js (run `node scripts/build.mjs` first)', cli],
  ['LAMMPS (`lmp`, Debian package lammps: bash scripts/setup.sh --with-apps)', '/usr/bin/lmp'],
  ['the melt example (Debian package lammps-examples)', example],
  ['GNU time (/usr/bin/time, Debian package time)', '/usr/bin/time'],
  ['Open MPI (mpirun.openmpi)', '/usr/bin/mpirun.openmpi'],
]) {
  if (!existsSync(path)) {
    console.log(`bench/lammps: ${what} is missing, skipped`);
    process.exit(0);
  }
}
if (!Number.isInteger(steps) || steps <= 0 || !Number.isInteger(repeat) || repeat <= 0) {
  console.error('bench/lammps: --steps and --repeat take positive integers');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'mpiscope-lammps-bench-'));
// The example's input with a longer run; everything else (system size, neighbor settings, thermo) as shipped.
const input = readFileSync(example, 'utf8').replace(/^run\s+\d+\s*$/m, `run\t\t${steps}`);
if (!input.includes(`run\t\t${steps}`)) {
  console.error(
    `bench/lammps: ${example} has no 'run N' line to lengthen; this bench knows the shipped file only`,
  );
  process.exit(2);
}
writeFileSync(join(work, 'in.melt'), input);
// Interrupted (Ctrl-C, run-all's timeout): the running job (its own process group, below) is ended and the
// work folder removed.
let running;
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    try {
      if (running) process.kill(-running.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  });

const rootArgs = process.getuid?.() === 0 ? ['--allow-run-as-root'] : [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs a command under /usr/bin/time in the work folder; resolves with wall ms, CPU s of the whole tree,
 * the largest process's peak RSS (KiB), the command's own VmHWM (KiB, sampled) and its exit code. */
function run(cmd, args) {
  const timesFile = join(work, 'times');
  rmSync(timesFile, { force: true });
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    // -o: time's numbers go to a file, not mixed with the program's stderr.
    const child = spawn('/usr/bin/time', ['-o', timesFile, '-f', '%U %S %M', cmd, ...args], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // a process group of its own, so that an interruption can end the whole job
    });
    running = child;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d.toString()));
    let hwm = 0;
    // VmHWM of time's child (the command itself): the analyzer when the command is `mpiscope run`.
    const poll = setInterval(() => {
      try {
        const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/);
        for (const pid of kids.filter(Boolean)) {
          const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        }
      } catch {
        // ended between two readings
      }
    }, 100);
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 1_800_000);
    child.on('close', (code) => {
      running = undefined;
      clearInterval(poll);
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      let cpu = NaN;
      let maxrss = NaN;
      try {
        const [u, s, m] = readFileSync(timesFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
        cpu = u + s;
        maxrss = m;
      } catch {
        // no times file: the command did not start
      }
      if (code !== 0)
        console.log(`note: ${cmd} exited with ${code}: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
      resolve({ ms, cpu, maxrss, hwm, code });
    });
  });
}

try {
  console.log(
    `LAMMPS melt (lmp, Open MPI, ${steps} steps, 4000 atoms), bare vs mpiscope run, median of ${repeat}`,
  );
  for (const np of rankCounts) {
    const bare = [];
    const scoped = [];
    for (let i = 0; i < repeat; i++) {
      bare.push(
        await run('mpirun.openmpi', [
          ...rootArgs,
          '--oversubscribe',
          '-np',
          String(np),
          'lmp',
          '-in',
          'in.melt',
          '-log',
          'none',
        ]),
      );
      scoped.push(
        await run(mpiscope, [
          'run',
          '--mpirun',
          'mpirun.openmpi',
          '-np',
          String(np),
          'lmp',
          '-in',
          'in.melt',
          '-log',
          'none',
        ]),
      );
    }
    const m = (rs, k) => median(rs.map((r) => r[k]));
    const [bw, sw] = [m(bare, 'ms'), m(scoped, 'ms')];
    const [bc, sc] = [m(bare, 'cpu'), m(scoped, 'cpu')];
    console.log(
      `lammps melt, ${np} ranks: wall bare ${(bw / 1000).toFixed(2)} s, mpiscope ${(sw / 1000).toFixed(2)} s, ratio ${(sw / bw).toFixed(2)}x (goal <= 1.25x)`,
    );
    console.log(
      `lammps melt, ${np} ranks: CPU bare ${bc.toFixed(2)} s, mpiscope ${sc.toFixed(2)} s, added ${((sc - bc) / bc).toFixed(2)} s per CPU-second (goal <= 0.1)`,
    );
    console.log(
      `lammps melt, ${np} ranks: analyzer peak ${(m(scoped, 'hwm') / 1024).toFixed(0)} MiB (goal <= 150), largest bare process ${(m(bare, 'maxrss') / 1024).toFixed(0)} MiB`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
