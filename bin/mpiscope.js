#!/usr/bin/env -S node --max-semi-space-size=32 --single-threaded
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
const { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const vm = require('node:vm');
const cli = join(__dirname, '..', 'dist', 'cli.js');
/** The cache's header: the bundle's size and modification time it was made from, and whether it is whole. */
const KEY_BYTES = 64;
/**
 * The commands that load the engine and the report (server/src/cli/main.ts loads each command's modules only
 * when it runs): a cache made by one of them, unless it ended with exit status 2 (refused before its job), holds
 * their functions compiled; one made by `--version` or a tool does not.
 */
const ANALYZES = new Set(['run', 'report']);
if (!existsSync(cli)) {
  process.stderr.write(
    'mpiscope: not built yet (dist/cli.js is missing); run `npm run setup` in the mpiscope checkout first\n',
  );
  process.exit(2);
}
load(cli);

/**
 * Runs the bundle as require() would, compiled from V8's code cache (dist/cli.js.cache) when there is one: every
 * run of the CLI compiled the 836 KB bundle and the functions it calls from source, ~30 ms of the analyzer's CPU
 * in a one-call job (bench/end-to-end/README.md, "Start-up and end"). The cache is made at the end of a run that
 * had none (the functions that ran compiled in by then) and written under a temporary name, then renamed. It
 * starts with the bundle's size and modification time, and is used only for that very file: V8 itself checks
 * only the source's length, so a rebuild of the same length would otherwise run the old code. A cache V8
 * rejects (another Node) is made again; a folder we cannot write leaves every run without one, as before.
 * A cache made by a command that does not analyze ("part") is used, and replaced at the end of the first `run` or
 * `report` by a whole one: compiling from source the functions it lacks cost that run ~17 ms of CPU each time
 * (bench/end-to-end/README.md, "What runs before the launcher").
 */
function load(file) {
  const cacheFile = `${file}.cache`;
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const key = (whole) => Buffer.from(`${stamp} ${whole ? 'whole' : 'part'}`.padEnd(KEY_BYTES), 'latin1');
  let cachedData;
  let cachedWhole = false;
  try {
    const bytes = readFileSync(cacheFile);
    const head = bytes.subarray(0, KEY_BYTES);
    if (bytes.length > KEY_BYTES && (head.equals(key(true)) || head.equals(key(false)))) {
      cachedData = bytes.subarray(KEY_BYTES);
      cachedWhole = head.equals(key(true));
    }
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const analyzes = ANALYZES.has(process.argv[2] ?? '');
  const usable = cachedData !== undefined && script.cachedDataRejected !== true;
  if (!usable || (analyzes && !cachedWhole))
    process.once('exit', (code) => {
      const whole = analyzes && code !== 2;
      // A part cache in use is replaced only by a whole one.
      if (usable && !whole) return;
      const fresh = `${cacheFile}.${process.pid}`;
      try {
        writeFileSync(fresh, Buffer.concat([key(whole), script.createCachedData()]));
        renameSync(fresh, cacheFile);
      } catch {
        rmSync(fresh, { force: true });
      }
    });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dirname(file));
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.main = process.mainModule;
  require.cache = Module._cache;
  script.runInThisContext()(mod.exports, require, mod, file, dirname(file));
}
