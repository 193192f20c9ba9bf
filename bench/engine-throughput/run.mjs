// Bundles bench.ts with esbuild and runs it: node bench/engine-throughput/run.mjs [steps]
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(fileURLToPath(import.meta.url), '..');
const out = join(here, '..', '..', 'dist', 'bench', 'engine-throughput.js');
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
  ['--max-old-space-size=4096', '--expose-gc', out, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
