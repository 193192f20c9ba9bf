// Bundles bench.ts and runs it with the client beside it: node bench/transport/run.mjs TRACE [--sizes …] [--repeat N]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBench } from '../lib/run-bench.mjs';

const here = join(fileURLToPath(import.meta.url), '..');
const out = await bundleBench(join(here, 'bench.ts'), 'transport');
// The analyzer's young generation, as bin/mpiscope.js gives it.
const [trace, ...rest] = process.argv.slice(2);
const r = spawnSync(
  process.execPath,
  [
    '--max-semi-space-size=32',
    out,
    ...(trace === undefined ? [] : [trace, join(here, 'client.mjs'), ...rest]),
  ],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
