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
//   - where that CPU went, per part, from /proc (every thread of the job's process tree, sampled every 100 ms):
//     the ranks' main threads, the ranks' other threads (the shim's sender thread; Open MPI's own threads do
//     next to nothing in the bare run), the analyzer's main thread, the analyzer's other threads (V8's
//     garbage-collection and compiler helpers), and the rest (mpirun, orted). A thread's CPU in its last
//     100 ms before it ends is missed, so the parts add up to a little less than the whole-tree figure;
//   - the ranks' main threads' involuntary context switches (Open MPI's sched_yield loop while a rank waits: it
//     yields when the node is oversubscribed, bare and under mpiscope alike) and the analyzer main thread's
//     wake-ups (voluntary switches);
//   - the CPU other processes took during each run (the machine's busy time from /proc/stat less the job's and
//     this script's): on a shared machine a wall ratio means something only between runs where it is near 0.
// The example runs 250 steps (about half a second); the "13 s bare" is the same input run longer:
// --steps sets the `run` length (default 10000: ~13 s bare on 2 ranks here, 4000 steps took 5.5 s;
// --quick uses 2000 and one repetition).
//
//   node bench/lammps/run.mjs [--ranks 2,4] [--steps 10000] [--repeat 3] [--quick] [--cpu-prof DIR]
// --cpu-prof DIR: the analyzer runs with Node's --cpu-prof into DIR (one .cpuprofile per run and thread), for
// a look inside its main thread; the profiler's own thread then adds to the analyzer's numbers.
// Needs `node scripts/build.mjs` first (dist/cli.js). Numbers, not a test: nothing fails on a slow result.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
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
    'cpu-prof': { type: 'string' },
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

const cpuProf = values['cpu-prof'] === undefined ? undefined : resolvePath(values['cpu-prof']);
if (cpuProf !== undefined) mkdirSync(cpuProf, { recursive: true });
// The shebang's flags (bin/mpiscope.js), given by hand when the profiler's must be added.
const analyzerCommand =
  cpuProf === undefined
    ? [mpiscope]
    : [process.execPath, '--max-semi-space-size=32', '--cpu-prof', '--cpu-prof-dir', cpuProf, mpiscope];

const rootArgs = process.getuid?.() === 0 ? ['--allow-run-as-root'] : [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Clock ticks per second of /proc's utime and stime (sysconf(_SC_CLK_TCK)): 100 on every Linux Node runs on. */
const TICKS = 100;

/** Every process under `pid` (children of each of its threads), `pid` first. */
function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${out[i]}/task`))
        for (const kid of readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').split(' '))
          if (kid.trim() !== '') out.push(Number(kid));
    } catch {
      // ended between two readings
    }
  }
  return out;
}

/**
 * Reads the CPU seconds so far of every thread of the tree under `root` into `seen` (key pid/tid; the last
 * reading of a thread wins), with what part of the job each thread is: `program` names the ranks' processes
 * (their comm), `analyzer` is the pid of the mpiscope process (undefined in the bare run).
 */
function sampleThreads(root, program, analyzer, seen) {
  for (const pid of processTree(root)) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        // Fields after the command name, which is in parentheses and may hold spaces.
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cpu = (Number(f[11]) + Number(f[12])) / TICKS;
        const main = String(pid) === tid;
        // The main threads' context switches: a rank's involuntary ones are mostly Open MPI's sched_yield while
        // it waits (oversubscribed, mpi_yield_when_idle), the analyzer's voluntary ones its wake-ups.
        let voluntary = 0;
        let involuntary = 0;
        if (main) {
          const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
          voluntary = Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
          involuntary = Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
        }
        const part =
          pid === analyzer
            ? main
              ? 'analyzerMain'
              : 'analyzerOther'
            : comm === program
              ? main
                ? 'ranksMain'
                : 'ranksOther'
              : 'rest';
        seen.set(`${pid}/${tid}`, { part, cpu, voluntary, involuntary });
      }
    } catch {
      // ended between two readings
    }
  }
}

const PARTS = ['ranksMain', 'ranksOther', 'analyzerMain', 'analyzerOther', 'rest'];

/** CPU seconds the whole machine has spent busy so far (/proc/stat's first line: all but idle and iowait). */
function machineBusy() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICKS;
}

/** Runs a command under /usr/bin/time in the work folder; resolves with wall ms, CPU s of the whole tree,
 * the largest process's peak RSS (KiB), the command's own VmHWM (KiB, sampled), the CPU s of each part
 * (PARTS, sampled from /proc) and its exit code. `analyzed`: the command is mpiscope (its process is the
 * analyzer). */
function run(cmd, args, analyzed) {
  const timesFile = join(work, 'times');
  rmSync(timesFile, { force: true });
  return new Promise((resolve) => {
    const busyBefore = machineBusy();
    const ownBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    // -o: time's numbers go to a file, not mixed with the program's stderr.
    const child = spawn('/usr/bin/time', ['-o', timesFile, '-f', '%U %S %M', cmd, ...args], {
      cwd: work,
      // Each rank prints its transport's line at its END (records, frames, the sender's wake-ups): read below.
      env: analyzed ? { ...process.env, MPISCOPE_RING_STATS: '1' } : process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // a process group of its own, so that an interruption can end the whole job
    });
    running = child;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d.toString()));
    let hwm = 0;
    const threads = new Map();
    // VmHWM of time's child (the command itself): the analyzer when the command is `mpiscope run`.
    const poll = setInterval(() => {
      let top;
      try {
        const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/);
        for (const pid of kids.filter(Boolean)) {
          top ??= Number(pid);
          const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        }
      } catch {
        // ended between two readings
      }
      if (top !== undefined) sampleThreads(top, 'lmp', analyzed ? top : undefined, threads);
    }, 100);
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 1_800_000);
    child.on('close', (code) => {
      running = undefined;
      clearInterval(poll);
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const own = process.cpuUsage(ownBefore);
      const busy = machineBusy() - busyBefore - (own.user + own.system) / 1e6;
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
      const parts = Object.fromEntries(PARTS.map((p) => [p, 0]));
      let rankYields = 0;
      let analyzerWakes = 0;
      for (const t of threads.values()) {
        parts[t.part] += t.cpu;
        if (t.part === 'ranksMain') rankYields += t.involuntary;
        if (t.part === 'analyzerMain') analyzerWakes += t.voluntary;
      }
      // The CPU other processes took meanwhile (the machine is shared): the machine's busy time less the job's
      // (time's whole-tree figure) and this script's. Walls compare only between runs where it is near 0.
      const others = Math.max(0, busy - cpu);
      // MPISCOPE_RING_STATS lines (native-shim/README.md): records and frames of each rank.
      const ranks = [
        ...stderr.matchAll(
          /transport over [\d.]+ ms: (\d+) records in (\d+) frames, sender woke (\d+) times/g,
        ),
      ].map((m) => ({ records: Number(m[1]), frames: Number(m[2]), wakeups: Number(m[3]) }));
      const frames = ranks.length ? median(ranks.map((r) => r.frames)) : NaN;
      const records = ranks.length ? median(ranks.map((r) => r.records)) : NaN;
      const wakeups = ranks.length ? median(ranks.map((r) => r.wakeups)) : NaN;
      resolve({
        ms,
        cpu,
        maxrss,
        hwm,
        code,
        frames,
        records,
        wakeups,
        others,
        rankYields,
        analyzerWakes,
        ...parts,
      });
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
        await run(
          'mpirun.openmpi',
          [...rootArgs, '--oversubscribe', '-np', String(np), 'lmp', '-in', 'in.melt', '-log', 'none'],
          false,
        ),
      );
      scoped.push(
        await run(
          analyzerCommand[0],
          [
            ...analyzerCommand.slice(1),
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
          ],
          true,
        ),
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
      `lammps melt, ${np} ranks: where the CPU went (s, bare -> mpiscope): ranks' main threads ${m(bare, 'ranksMain').toFixed(2)} -> ${m(scoped, 'ranksMain').toFixed(2)}, ranks' other threads (the shim's sender) ${m(bare, 'ranksOther').toFixed(2)} -> ${m(scoped, 'ranksOther').toFixed(2)}, analyzer main thread ${m(scoped, 'analyzerMain').toFixed(2)}, analyzer's other threads (V8 helpers) ${m(scoped, 'analyzerOther').toFixed(2)}, launcher ${m(bare, 'rest').toFixed(2)} -> ${m(scoped, 'rest').toFixed(2)}`,
    );
    const own = (r) => r.analyzerMain + r.analyzerOther + r.ranksOther;
    console.log(
      `lammps melt, ${np} ranks: mpiscope's own threads (analyzer and senders) ${(median(scoped.map(own)) / bc).toFixed(2)} s per CPU-second of the bare application; the rest of the added CPU is in the ranks' main threads (the shim's wrappers, and MPI waiting longer for ranks that share the cores with the analyzer)`,
    );
    console.log(
      `lammps melt, ${np} ranks: ranks' involuntary switches (Open MPI's sched_yield while a rank waits) ${(m(bare, 'rankYields') / 1000).toFixed(0)}k -> ${(m(scoped, 'rankYields') / 1000).toFixed(0)}k, analyzer main thread's wake-ups ${m(scoped, 'analyzerWakes')}`,
    );
    console.log(
      `lammps melt, ${np} ranks: other processes' CPU during the runs (s; the machine is shared, walls compare only where it is near 0): bare ${bare.map((r) => r.others.toFixed(1)).join(' ')}, mpiscope ${scoped.map((r) => r.others.toFixed(1)).join(' ')}`,
    );
    console.log(
      `lammps melt, ${np} ranks: frames per rank ${m(scoped, 'frames')} (${(m(scoped, 'records') / m(scoped, 'frames')).toFixed(0)} records a frame), sender wake-ups per rank ${m(scoped, 'wakeups')} (medians over the ranks, then the runs)`,
    );
    console.log(
      `lammps melt, ${np} ranks: analyzer peak ${(m(scoped, 'hwm') / 1024).toFixed(0)} MiB (goal <= 150), largest bare process ${(m(bare, 'maxrss') / 1024).toFixed(0)} MiB`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
