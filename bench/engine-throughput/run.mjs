// Bundles bench.ts with esbuild and runs it: node bench/engine-throughput/run.mjs [steps]
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../lib/run-bench.mjs';

await runBench(join(fileURLToPath(import.meta.url), '..'), 'engine-throughput', 4096);
