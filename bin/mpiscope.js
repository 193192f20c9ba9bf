#!/usr/bin/env -S node --max-semi-space-size=32
'use strict';
// The analyzer runs in this process (`mpiscope run`, `report`): its engine makes short-lived objects for every
// MPI call, so the young generation is given 32 MiB semi-spaces instead of Node's 16 (V8 cannot resize them
// once the process runs, hence the shebang: `env -S` passes the flag to node). Measured with
// bench/engine-throughput and bench/lammps (server/src/engine/README.md, "The young generation"): 0.85 M
// events per CPU-second against 0.72 M, the analyzer's peak memory on LAMMPS unchanged; 64 MiB was barely
// faster and pushed the 4-rank peak past 150 MiB. `node bin/mpiscope.js` skips the shebang and runs with
// Node's default: the same results, more time in the collector. The shard workers get the same size
// (server/src/shards/shard-pool.ts).
// The CLI is bundled into dist/cli.js by `npm run build` (run by `npm run setup`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const cli = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write(
    'mpiscope: not built yet (dist/cli.js is missing); run `npm run setup` in the mpiscope checkout first\n',
  );
  process.exit(2);
}
require(cli);
