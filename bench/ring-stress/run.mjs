#!/usr/bin/env node
// The rows of issue 12 that measure the whole path from the shim's ring to the analyzer, with default
// settings, side by side with the same program without mpiscope in one run:
//   - an 8-byte ping-pong on 2 ranks (bench/shim-overhead/pingpong.c): time per round trip, bare and under
//     `mpiscope run`, and their ratio;
//   - the Isend/Irecv/Waitall stress (stress.c) at 8, 16 and 32 ranks: wall-time ratio, the records the
//     ranks lost (the JSON report's lostRecords: must be 0) and the analyzer's peak memory (VmHWM of the
//     mpiscope process).
//
//   node bench/ring-stress/run.mjs [--flavor openmpi|mpich|all] [--stress-flavor openmpi|mpich|all]
//                                  [--ranks 8,16,32] [--iterations 20000] [--pingpong 20000] [--repeat 1]
//                                  [--big-ring RECORDS]
// --big-ring adds a run of the stress with a ring of RECORDS records per rank, big enough that the ranks never
// wait for the analyzer: the most that spilling records to a local file could give the application (its
// wall time), against the default ring where the ranks wait (native-shim/README.md, "The ring").
// The stress runs on Open MPI by default: MPICH's ranks spin while they wait, and 8 or more of them on 2
// cores take minutes even without mpiscope.
// Needs `node scripts/build.mjs` first (dist/cli.js).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const { values } = parseArgs({
  options: {
    flavor: { type: 'string', default: 'all' },
    'stress-flavor': { type: 'string', default: 'openmpi' },
    ranks: { type: 'string', default: '8,16,32' },
    iterations: { type: 'string', default: '20000' },
    pingpong: { type: 'string', default: '20000' },
    repeat: { type: 'string', default: '1' },
    'big-ring': { type: 'string', default: '0' },
  },
});
if (!existsSync(cli)) {
  console.error('bench/ring-stress: dist/cli.js is missing; run `node scripts/build.mjs` first');
  process.exit(2);
}
const flavors = values.flavor === 'all' ? ['openmpi', 'mpich'] : [values.flavor];
const stressFlavors = values['stress-flavor'] === 'all' ? ['openmpi', 'mpich'] : [values['stress-flavor']];
const rankCounts = values.ranks.split(',').map(Number);
const repeat = Number(values.repeat);
const work = mkdtempSync(join(tmpdir(), 'mpiscope-ring-bench-'));
const rootArgs = (flavor) =>
  flavor === 'openmpi'
    ? ['--oversubscribe', ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : [])]
    : [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs a command; resolves with wall ms, stdout, exit code and the peak RSS (VmHWM, KiB) of the process. */
function run(cmd, args, env = {}, timeoutMs = 900_000) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let hwm = 0;
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    // VmHWM is the peak so far: the last reading before the process ends is (nearly) its peak.
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwm = Math.max(hwm, Number(m[1]));
      } catch {
        // ended between two readings
      }
    }, 100);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, stdout, stderr, code, hwm });
    });
  });
}

const mpiscope = (flavor, np, exe, args, json) => [
  cli,
  'run',
  ...(json ? ['--json', json] : []),
  '--mpirun',
  `mpirun.${flavor}`,
  '-np',
  String(np),
  exe,
  ...args,
];

try {
  for (const flavor of new Set([...flavors, ...stressFlavors])) {
    if (!existsSync(`/usr/bin/mpicc.${flavor}`)) {
      console.log(`${flavor}: not installed, skipped`);
      continue;
    }
    const pingpong = join(work, `pingpong-${flavor}`);
    const stress = join(work, `stress-${flavor}`);
    const cc = (out, src) =>
      execFileSync(`mpicc.${flavor}`, ['-O2', '-Wno-stringop-overflow', '-o', out, src]);
    cc(pingpong, join(root, 'bench', 'shim-overhead', 'pingpong.c'));
    cc(stress, join(here, 'stress.c'));

    // Ping-pong: the program times its own loop (best of 5 repetitions), so the start-up of mpiscope is not
    // in it; "2ranks-pingpong NS 2" is ns per round trip.
    const rt = (out) => Number(/2ranks-pingpong ([\d.]+)/.exec(out)?.[1] ?? NaN) / 1000;
    const bare = [];
    const scoped = [];
    for (let i = 0; i < (flavors.includes(flavor) ? repeat : 0); i++) {
      bare.push(
        rt(
          (await run(`mpirun.${flavor}`, [...rootArgs(flavor), '-np', '2', pingpong, values.pingpong]))
            .stdout,
        ),
      );
      const r = await run(process.execPath, mpiscope(flavor, 2, pingpong, [values.pingpong]));
      scoped.push(rt(r.stdout));
      if (r.code !== 0)
        console.log(`note: mpiscope exited with ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
    }
    const b = median(bare);
    const s = median(scoped);
    if (bare.length > 0)
      console.log(
        `${flavor}: 8-byte ping-pong, 2 ranks, per round trip: bare ${b.toFixed(2)} us, mpiscope ${s.toFixed(2)} us, ratio ${(s / b).toFixed(2)}x`,
      );

    for (const np of stressFlavors.includes(flavor) ? rankCounts : []) {
      const plain = [];
      for (let i = 0; i < repeat; i++)
        plain.push(
          (await run(`mpirun.${flavor}`, [...rootArgs(flavor), '-np', String(np), stress, values.iterations]))
            .ms,
        );
      const bigRing = Number(values['big-ring']);
      for (const ring of bigRing > 0 ? [0, bigRing] : [0]) {
        const under = [];
        const lost = [];
        const mem = [];
        for (let i = 0; i < repeat; i++) {
          const json = join(work, `stress-${flavor}-${np}.json`);
          rmSync(json, { force: true });
          const env = ring > 0 ? { MPISCOPE_RING_RECORDS: String(ring) } : {};
          const r = await run(process.execPath, mpiscope(flavor, np, stress, [values.iterations], json), env);
          under.push(r.ms);
          mem.push(r.hwm / 1024);
          let n = NaN;
          try {
            n = JSON.parse(readFileSync(json, 'utf8')).lostRecords;
          } catch {
            console.log(`note: no JSON report (exit ${r.code}): ${r.stderr.trim().split('\n').pop()}`);
          }
          lost.push(n);
        }
        const how = ring > 0 ? `, ring of ${ring} records` : '';
        console.log(
          `${flavor}: stress Isend/Irecv/Waitall x ${values.iterations}, ${np} ranks${how}: bare ${median(plain).toFixed(0)} ms, mpiscope ${median(under).toFixed(0)} ms, ratio ${(median(under) / median(plain)).toFixed(2)}x, records lost ${lost.join('/')}, analyzer peak ${median(mem).toFixed(0)} MiB`,
        );
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
