// The shim's record encoder under libFuzzer (native-shim/fuzz/encoder-fuzz.c), long run:
//   node bench/fuzz/encoder.mjs [--inputs N] [--seed S] [--flavor openmpi|mpich]
// Builds the fuzzer with clang (native-shim/fuzz/build.sh, AddressSanitizer and UBSan) for each installed MPI,
// or the one given, runs N inputs (default 10^6) from an empty corpus with a fixed seed, and prints the inputs,
// inputs per second, coverage and peak memory. Exits 1 on the first crash, sanitizer report or model mismatch,
// naming the input libFuzzer saved. The native tier runs the same fuzzer for a few seconds.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const opt = (name, def) => {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : def;
};
const inputs = Number(opt('--inputs', '1000000'));
const seed = Number(opt('--seed', '20261124'));
const only = opt('--flavor', undefined);
if (!Number.isInteger(inputs) || inputs < 1 || !Number.isInteger(seed)) {
  console.error(
    'bench/fuzz/encoder: --inputs and --seed take whole numbers (e.g. --inputs 1000000 --seed 7)',
  );
  process.exit(2);
}
const flavors = ['openmpi', 'mpich'].filter(
  (f) => (only === undefined || only === f) && spawnSync('sh', ['-c', `command -v mpicc.${f}`]).status === 0,
);
if (flavors.length === 0) {
  console.error(`bench/fuzz/encoder: no MPI to build against (mpicc.${only ?? 'openmpi/mpich'} not found)`);
  process.exit(2);
}
let failed = false;
for (const flavor of flavors) {
  const out = join(root, 'native-shim', 'build', `fuzz-${flavor}`);
  const b = spawnSync('bash', [join(root, 'native-shim', 'fuzz', 'build.sh'), `mpicc.${flavor}`, out], {
    encoding: 'utf8',
  });
  if (b.status !== 0) {
    console.error(b.stderr.trim());
    process.exit(b.status === 2 ? 2 : 1);
  }
  const work = mkdtempSync(join(tmpdir(), 'mpiscope-encoder-fuzz-'));
  mkdirSync(join(work, 'corpus'));
  const started = process.hrtime.bigint();
  const r = spawnSync(
    join(out, 'encoder-fuzz'),
    [
      `-runs=${inputs}`,
      `-seed=${seed}`,
      '-print_final_stats=1',
      `-artifact_prefix=${work}/`,
      join(work, 'corpus'),
    ],
    { encoding: 'utf8', cwd: work, maxBuffer: 1 << 28, env: { ...process.env }, timeout: 6 * 3600_000 },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const log = `${r.stdout}${r.stderr}`;
  const done = /Done (\d+) runs in (\d+) second/.exec(log);
  const cov = [...log.matchAll(/cov: (\d+) ft: (\d+) corp: (\d+)/g)].pop();
  const rss = /stat::peak_rss_mb:\s+(\d+)/.exec(log);
  console.log(`encoder fuzzer, ${flavor}:`);
  if (r.status !== 0 || done === null) {
    failed = true;
    const why = log
      .split('\n')
      .filter((l) => /encoder-fuzz:|ERROR|runtime error|SUMMARY|Test unit written/.test(l))
      .join('\n  ');
    console.log(`  FAILED (status ${r.status}):\n  ${why}\n  the input is kept in ${work}`);
    continue;
  }
  console.log(`  inputs                 ${Number(done[1]).toLocaleString('en')} (seed ${seed}), failures 0`);
  console.log(
    `  wall time              ${seconds.toFixed(0)} s, ${(Number(done[1]) / seconds).toFixed(0)} inputs/s`,
  );
  if (cov)
    console.log(`  coverage               ${cov[1]} edges, ${cov[2]} features, corpus of ${cov[3]} inputs`);
  if (rss) console.log(`  peak RSS               ${rss[1]} MiB`);
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
