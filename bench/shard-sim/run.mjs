// Bundles bench.ts with esbuild and runs it: node bench/shard-sim/run.mjs [steps] [ranks]
// The shard threads run dist/shard-worker.js: build first (node scripts/build.mjs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../lib/run-bench.mjs';

const here = join(fileURLToPath(import.meta.url), '..');
if (!existsSync(join(here, '..', '..', 'dist', 'shard-worker.js'))) {
  console.error('bench/shard-sim: dist/shard-worker.js is missing; run `node scripts/build.mjs` first');
  process.exit(2);
}
await runBench(here, 'shard-sim', 8192);
