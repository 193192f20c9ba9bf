// What every bundled benchmark's run.mjs does: bundle its bench.ts with esbuild into dist/bench/NAME.js and run
// it in a fresh node with the collector exposed (the benches collect before reading a heap) and room for
// the heap, passing the command line's arguments on; the process exits with the bench's status.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';

/**
 * Bundles one TypeScript entry of a bench (`entry`, under bench/NAME/) into dist/bench/`name`.js, for node to run;
 * returns that path. Under dist/bench/ (not packaged): the shard pool finds dist/shard-worker.js one level up.
 * `external`: packages loaded from node_modules at run time instead of bundled (playwright-core cannot be).
 */
export async function bundleBench(entry, name, external = []) {
  const out = join(dirname(entry), '..', '..', 'dist', 'bench', `${name}.js`);
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    external,
  });
  return out;
}

/**
 * `dir`: the bench's folder (holding `file`, bench.ts unless named); `name`: the bundle's name under dist/bench/;
 * `heapMiB`: V8's old-space limit for the run; `external` as for bundleBench.
 */
export async function runBench(dir, name, heapMiB, file = 'bench.ts', external = []) {
  const out = await bundleBench(join(dir, file), name, external);
  const r = spawnSync(
    process.execPath,
    [`--max-old-space-size=${heapMiB}`, '--expose-gc', out, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}
