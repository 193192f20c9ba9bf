// Bundles bench.ts with esbuild and runs it: node bench/shard-sim/run.mjs [steps] [ranks]
// The shard threads run dist/shard-worker.js: build first (node scripts/build.mjs).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(fileURLToPath(import.meta.url), '..');
const dist = join(here, '..', '..', 'dist');
if (!existsSync(join(dist, 'shard-worker.js'))) {
  console.error('bench/shard-sim: dist/shard-worker.js is missing; run `node scripts/build.mjs` first');
  process.exit(2);
}
// Under dist/bench/ (not packaged); the shard pool finds dist/shard-worker.js one level up.
const out = join(dist, 'bench', 'shard-sim.js');
await build({
  entryPoints: [join(here, 'bench.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
});
const r = spawnSync(
  process.execPath,
  ['--expose-gc', '--max-old-space-size=8192', out, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
