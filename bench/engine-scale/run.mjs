// Bundles bench.ts with esbuild and runs it: node bench/engine-scale/run.mjs [N] [PATTERN-SUBSTRING]
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../lib/run-bench.mjs';

await runBench(join(fileURLToPath(import.meta.url), '..'), 'engine-scale', 4096);
