#!/usr/bin/env node
// The analyzer's memory over time at its top rate (issue 12 §3: flat in the run's length), two ways:
//   synthetic  a generated 8-rank job pushed straight into one engine (synthetic.ts): live heap after a full
//              collection, and RSS, every --every seconds;
//   stress     a real MPI job (stress.c: ring exchange, wildcard receives, a Bcast every 64 iterations) under
//              `mpiscope run` for the same time: the RSS of the mpiscope process (the analyzer) every --every
//              seconds, and the job's wall time against the same program without mpiscope.
//
//   node bench/memory-curve/run.mjs [synthetic|stress|all] [--minutes 2] [--every 10] [--ranks 8]
//                                   [--flavor openmpi|mpich]
// `--minutes 10` is issue 12's 10-minute run. Needs `node scripts/build.mjs` first (dist/cli.js) for stress.
// A benchmark, not a test: it prints numbers and fails only when it cannot run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleBench } from '../lib/run-bench.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    minutes: { type: 'string', default: '2' },
    every: { type: 'string', default: '10' },
    ranks: { type: 'string', default: '8' },
    flavor: { type: 'string', default: 'openmpi' },
  },
});
const what = positionals[0] ?? 'all';
if (!['synthetic', 'stress', 'all'].includes(what)) {
  console.error(`bench/memory-curve: unknown mode '${what}'; use synthetic, stress or all`);
  process.exit(2);
}
const minutes = Number(values.minutes);
const every = Number(values.every);
if (!(minutes > 0) || !(every > 0)) {
  console.error('bench/memory-curve: --minutes and --every take positive numbers');
  process.exit(2);
}

if (what !== 'stress') {
  const out = await bundleBench(join(here, 'synthetic.ts'), 'memory-curve-synthetic');
  console.log('==== synthetic stream into the engine');
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', out, '--minutes', String(minutes), '--every', String(every), '--ranks', values.ranks],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (what !== 'synthetic') {
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    console.error('bench/memory-curve: dist/cli.js is missing; run `node scripts/build.mjs` first');
    process.exit(2);
  }
  const flavor = values.flavor;
  const np = Number(values.ranks);
  const work = mkdtempSync(join(tmpdir(), 'mpiscope-memory-curve-'));
  try {
    const exe = join(work, 'stress');
    execFileSync(`mpicc.${flavor}`, ['-O2', '-o', exe, join(here, 'stress.c')]);
    const seconds = String(minutes * 60);
    const rootArgs =
      flavor === 'openmpi'
        ? ['--oversubscribe', ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : [])]
        : [];
    console.log(
      `==== ${np}-rank MPI stress under mpiscope run (${flavor}) for ${minutes} min: the analyzer's RSS`,
    );
    const under = await sampled(process.execPath, [
      cli,
      'run',
      '--json',
      join(work, 'report.json'),
      '--mpirun',
      `mpirun.${flavor}`,
      '-np',
      String(np),
      exe,
      seconds,
    ]);
    const report = JSON.parse(readFileSync(join(work, 'report.json'), 'utf8'));
    const its = (s) => Number(/iterations (\d+)/.exec(s)?.[1] ?? NaN);
    const bare = await sampled(`mpirun.${flavor}`, [...rootArgs, '-np', String(np), exe, seconds], false);
    const rate = (r) => its(r.stdout) / (r.ms / 1000);
    const rss = under.samples.map((x) => x.rss);
    const q = Math.max(1, Math.floor(rss.length / 4));
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(
      `iterations per second: bare ${rate(bare).toFixed(0)}, under mpiscope ${rate(under).toFixed(0)} (slowdown ${(rate(bare) / rate(under)).toFixed(2)}x); records lost ${report.lostRecords ?? 0}; skipped checks: ${(report.skippedChecks ?? []).map((s) => s.checks.join('/')).join('; ') || 'none'}; findings ${report.findings.length}`,
    );
    console.log(
      `analyzer RSS: ${med(rss.slice(q, 2 * q)).toFixed(0)} MiB early, ${med(rss.slice(-q)).toFixed(0)} MiB late, peak ${under.hwm.toFixed(0)} MiB`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs a command; prints and keeps its RSS every `every` seconds; resolves with wall ms, stdout and samples. */
function sampled(cmd, args, print = true) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let hwm = 0;
    const samples = [];
    child.stdout.on('data', (d) => (stdout += d.toString()));
    const read = () => {
      try {
        const st = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const rss = Number(/VmRSS:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024;
        hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
        return rss;
      } catch {
        return undefined; // ended between two readings
      }
    };
    const poll = setInterval(read, 200);
    const tick = setInterval(() => {
      const rss = read();
      if (rss === undefined) return;
      const s = (performance.now() - t0) / 1000;
      samples.push({ s, rss });
      if (print)
        console.log(`t ${s.toFixed(0).padStart(4)} s  analyzer rss ${rss.toFixed(1).padStart(7)} MiB`);
    }, every * 1000);
    child.on('close', (code) => {
      clearInterval(poll);
      clearInterval(tick);
      if (code !== 0 && code !== null && print) console.log(`(exit status ${code})`);
      resolve({ ms: performance.now() - t0, stdout, samples, hwm });
    });
  });
}
