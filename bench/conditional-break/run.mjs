#!/usr/bin/env node
// The cost of a conditional MPI breakpoint whose condition is false (prints numbers; not a test). See bench.ts.
//   node bench/conditional-break/run.mjs [--np 4] [--iterations 300] [--runs 3] [--mpicc mpicc.openmpi]
// Run scripts/build.mjs first (the shim and dist/).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../lib/run-bench.mjs';

await runBench(dirname(fileURLToPath(import.meta.url)), 'conditional-break', 2048);
