#!/usr/bin/env node
// End-to-end benchmark: the same MPI program with and without mpiscope, in the same run.
// Prints the wall-time ratio (mpiscope / plain mpirun) and the deadlock report latency: the time from the
// moment the last rank blocks (each rank prints CLOCK_REALTIME right before its last call) to the moment
// mpiscope reports the deadlock (its live line on stderr, with --keep-alive so the report is not delayed by
// ending the job).
//
//   node bench/end-to-end/run.mjs [--flavor openmpi|mpich] [--np 2] [--iterations 20000] [--repeat 3]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'cli.js');
// Run as a user runs it (bin/mpiscope.js: its shebang's young-generation size, the bundle's code cache), not
// `node dist/cli.js`; a first run makes the code cache (below, once the program is built), so that every timed
// run starts as a user's second does.
const mpiscope = join(root, 'bin', 'mpiscope.js');
if (!existsSync(cli)) {
  console.error('bench/end-to-end: dist/cli.js is missing; run `node scripts/build.mjs` first');
  process.exit(2);
}
const { values } = parseArgs({
  options: {
    flavor: { type: 'string', default: 'openmpi' },
    np: { type: 'string', default: '2' },
    iterations: { type: 'string', default: '20000' },
    repeat: { type: 'string', default: '3' },
  },
});
const { flavor, np, iterations } = values;
const repeat = Number(values.repeat);
const work = mkdtempSync(join(tmpdir(), 'mpiscope-bench-'));
const exe = join(work, 'many-calls');
execFileSync(`mpicc.${flavor}`, ['-O2', '-g', '-o', exe, join(here, 'many-calls.c')], { stdio: 'inherit' });
// A run, not `--version`: a cache made by a command that loads neither the engine nor the report holds none of
// their functions, and the first run replaces it (bin/mpiscope.js).
try {
  execFileSync(mpiscope, ['run', '--mpirun', `mpirun.${flavor}`, '-np', np, exe, '1'], { stdio: 'ignore' });
} catch {
  // A failed run is reported by the timed runs below.
}

const rootArgs =
  flavor === 'openmpi'
    ? ['--oversubscribe', ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : [])]
    : [];

/**
 * Run a command to completion with a deadline; resolves with its wall time in ms, its stderr and, for each stderr
 * line of the shim's transport statistics (MPISCOPE_RING_STATS=1), the ms from the start at which it arrived.
 */
function timed(cmd, args, { onStderr, timeoutMs = 300_000, env } = {}) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - started) / 1e6;
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    const statsAt = [];
    let stderr = '';
    child.stderr.on('data', (d) => {
      const text = d.toString();
      for (const _ of text.matchAll(/transport over/g)) statsAt.push(since());
      stderr += text;
      onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // A failed run is reported, not fatal: the other measurements are still worth printing.
      if (code !== 0 && code !== 1 && code !== 130)
        console.log(
          `note: ${cmd} ${args.slice(0, 4).join(' ')}… exited with ${code}: ${stderr.trim().split('\n').slice(-1)[0]}`,
        );
      resolve({ ms, stderr, statsAt });
    });
  });
}

/** A run's milestones (MPISCOPE_TIMING=1 lines: "mpiscope: timing +T ms WHAT"), as the phases between them. */
function phases(stderr) {
  const at = (re) => {
    const all = [...stderr.matchAll(new RegExp(`^mpiscope: timing \\+([\\d.]+) ms ${re}`, 'gm'))];
    return all.length === 0 ? undefined : Number(all[all.length - 1][1]);
  };
  const t = {
    loaded: at('the CLI is loaded'),
    checked: at('program and launcher checked'),
    listening: at('listening'),
    started: at('launcher started'),
    lastEnd: at('END of rank'),
    exited: at('launcher exited'),
    exit: at('exit'),
  };
  if (Object.values(t).some((v) => v === undefined)) return undefined;
  const cpu = /^mpiscope: timing cpu (\d+) ms/m.exec(stderr);
  // The CPU the analyzer's process had spent when it spawned the launcher (the marks carry it): its start-up, less
  // moved by the machine's load than the milestones' wall times.
  const cpuAtSpawn = /^mpiscope: timing \+[\d.]+ ms launcher started \(cpu ([\d.]+) ms/m.exec(stderr);
  return {
    load: t.loaded,
    checks: t.checked - t.loaded,
    listen: t.listening - t.checked,
    spawn: t.started - t.listening,
    job: t.lastEnd - t.started,
    exit: t.exited - t.lastEnd,
    end: t.exit - t.exited,
    cpu: cpu ? Number(cpu[1]) : NaN,
    cpuAtSpawn: cpuAtSpawn ? Number(cpuAtSpawn[1]) : NaN,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Where a run under mpiscope spent its time, from the ranks' transport statistics (native-shim/README.md,
 * MPISCOPE_RING_STATS): the longest rank's time from connecting to its END, the most a rank waited for ring room
 * (the analyzer behind), and how long mpiscope ran after the last rank's END (the analyzer catching up, the report).
 */
function breakdown(run) {
  const lines = [
    ...run.stderr.matchAll(/transport over ([\d.]+) ms: (\d+) records.*waited ([\d.]+) ms for room/g),
  ];
  if (lines.length === 0) return undefined;
  // The analyzer's event loop asleep (MPISCOPE_TIMING=1 marks carry its idle time) from the first frame to the last
  // END: while the ranks wait for ring room it should have no reason to sleep; what it sleeps beyond the 1-iteration
  // run's (MPI_Init and MPI_Finalize) is a read that came late.
  const idleAt = (re) => {
    const all = [
      ...run.stderr.matchAll(
        new RegExp(`^mpiscope: timing \\+[\\d.]+ ms ${re} \\(cpu [\\d.]+ ms, idle ([\\d.]+) ms`, 'gm'),
      ),
    ];
    return all.length === 0 ? NaN : Number(all[all.length - 1][1]);
  };
  return {
    rankMs: Math.max(...lines.map((m) => Number(m[1]))),
    records: lines.reduce((n, m) => n + Number(m[2]), 0),
    waitMs: Math.max(...lines.map((m) => Number(m[3]))),
    tailMs: run.ms - Math.max(...run.statsAt),
    idleMs: idleAt('END of rank \\d+') - idleAt('first frame'),
    // The analyzer's process CPU for the whole run (every thread: process.cpuUsage() at its exit).
    cpuMs: Number(/^mpiscope: timing cpu (\d+) ms/m.exec(run.stderr)?.[1] ?? NaN),
  };
}

try {
  const plain = [];
  const scoped = [];
  const parts = [];
  for (let i = 0; i < repeat; i++) {
    plain.push((await timed(`mpirun.${flavor}`, [...rootArgs, '-np', np, exe, iterations])).ms);
    const run = await timed(mpiscope, ['run', '--mpirun', `mpirun.${flavor}`, '-np', np, exe, iterations], {
      env: { MPISCOPE_RING_STATS: '1', MPISCOPE_TIMING: '1' },
    });
    scoped.push(run.ms);
    const b = breakdown(run);
    if (b) parts.push(b);
  }
  // The same with 1 iteration: what a job costs before and after its calls (mpiscope's start-up — Node, the
  // checks of the program, the listening socket — and its end), so that the ratio above can be read as a fixed
  // part and a per-call part. On MPICH the whole bare run is ~60 ms, less than mpiscope's start-up alone.
  const plain1 = [];
  const scoped1 = [];
  const phases1 = [];
  for (let i = 0; i < repeat; i++) {
    plain1.push((await timed(`mpirun.${flavor}`, [...rootArgs, '-np', np, exe, '1'])).ms);
    // With the session's milestones (MPISCOPE_TIMING=1, server/src/session/timing.ts) on its stderr.
    const run1 = await timed(mpiscope, ['run', '--mpirun', `mpirun.${flavor}`, '-np', np, exe, '1'], {
      env: { MPISCOPE_TIMING: '1' },
    });
    scoped1.push(run1.ms);
    const p = phases(run1.stderr);
    if (p) phases1.push(p);
  }
  const calls = Number(iterations) * (2 + 3) + Math.ceil(Number(iterations) / 100);
  console.log(
    `program: many-calls, ${np} ranks, ${flavor}, ${iterations} iterations (~${calls} MPI calls per rank), median of ${repeat}`,
  );
  console.log(`plain mpirun      ${median(plain).toFixed(0)} ms`);
  console.log(`under mpiscope    ${median(scoped).toFixed(0)} ms`);
  console.log(`wall-time ratio   ${(median(scoped) / median(plain)).toFixed(2)}x`);
  console.log(
    `1 iteration       plain ${median(plain1).toFixed(0)} ms, under mpiscope ${median(scoped1).toFixed(0)} ms (start-up and end: +${(median(scoped1) - median(plain1)).toFixed(0)} ms)`,
  );
  // Both differences are printed: on a loaded machine, or where the launch dominates the plain run (Open MPI), the
  // plain run's own per-call part is tens of ms and its ratio alone says little.
  if (phases1.length > 0) {
    const m = (k) => median(phases1.map((p) => p[k])).toFixed(0);
    console.log(
      `start-up and end  (medians of the 1-iteration runs' milestones) Node's start and loading the CLI ${m('load')} ms, checking the program and the launcher ${m('checks')} ms, shim and listening ${m('listen')} ms, starting the launcher ${m('spawn')} ms, then the job until the last END ${m('job')} ms; last END to the launcher's exit ${m('exit')} ms, then mpiscope's end (drain, end-of-run checks, call sites, report) ${m('end')} ms; analyzer CPU ${m('cpu')} ms, ${m('cpuAtSpawn')} ms of it before the launcher started`,
    );
  }
  const plainCalls = median(plain) - median(plain1);
  const scopedCalls = median(scoped) - median(scoped1);
  console.log(
    `per-call part     plain ${plainCalls.toFixed(0)} ms, under mpiscope ${scopedCalls.toFixed(0)} ms (${(scopedCalls / Math.max(1, plainCalls)).toFixed(2)}x; each run less its 1-iteration run)`,
  );
  if (parts.length > 0) {
    const m = (k) => median(parts.map((p) => p[k])).toFixed(0);
    console.log(
      `where it went      (medians over the runs under mpiscope) ${m('records')} records from all ranks; the longest rank ran ${m('rankMs')} ms from connecting to its END, of which a rank waited up to ${m('waitMs')} ms for ring room (the analyzer behind); mpiscope ended ${m('tailMs')} ms after the last END; the analyzer idle ${m('idleMs')} ms from the first frame to the last END; the analyzer's CPU ${m('cpuMs')} ms`,
    );
  }

  const latencies = [];
  for (let i = 0; i < repeat; i++) {
    let reportedAt;
    const { stderr } = await timed(
      mpiscope,
      ['run', '--keep-alive', '--mpirun', `mpirun.${flavor}`, '-np', np, exe, '1000', 'deadlock'],
      {
        timeoutMs: 120_000,
        onStderr: (text, child) => {
          if (reportedAt === undefined && /the job is left running for inspection/.test(text)) {
            reportedAt = BigInt(Date.now()) * 1_000_000n;
            child.kill('SIGINT'); // end the job now that the report is out
          }
        },
      },
    );
    const blocked = [...stderr.matchAll(/blocking at (\d+)/g)].map((m) => BigInt(m[1]));
    if (reportedAt === undefined || blocked.length < Number(np)) {
      console.log(`deadlock run ${i + 1}: no live report (${blocked.length}/${np} ranks blocked)`);
      continue;
    }
    const last = blocked.reduce((a, b) => (a > b ? a : b));
    latencies.push(Number(reportedAt - last) / 1e6);
  }
  if (latencies.length > 0) {
    console.log(
      `deadlock report latency (last rank blocks -> report): median ${median(latencies).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
