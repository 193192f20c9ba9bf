// Bundles every entry point with esbuild, and every test file into dist/test/<tier>/.
// Type checking is tsc's job (npm run typecheck); this only emits JavaScript.
import { build } from 'esbuild';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
process.chdir(root);

/** Files under dir (recursively) whose name ends with suffix, skipping node_modules and dist. */
function find(dir, suffix) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out;
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  logLevel: 'warning',
  external: ['vscode', 'playwright-core'],
};

const entries = [
  ['extension/src/extension.ts', 'dist/extension.js'],
  ['server/src/lsp/main.ts', 'dist/server.js'],
  ['server/src/cli/main.ts', 'dist/cli.js'],
  // The engine's shard threads (server/src/shards), started by the CLI and the language server from dist/.
  ['server/src/shards/shard-worker.ts', 'dist/shard-worker.js'],
].filter(([src]) => existsSync(src));

// The extension bundle is loaded on every VS Code start, and is mostly vscode-languageclient: minify it.
const jobs = entries.map(([src, out]) =>
  build({ ...common, entryPoints: [src], outfile: out, minify: out === 'dist/extension.js' }),
);

if (existsSync('webview/src/main.ts')) {
  jobs.push(
    build({
      ...common,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      entryPoints: ['webview/src/main.ts'],
      outfile: 'dist/webview.js',
    }),
  );
}
// The net-test heatmap page: its own small bundle, inlined into the standalone page of `mpiscope view`.
if (existsSync('webview/src/heatmap-main.ts')) {
  jobs.push(
    build({
      ...common,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      sourcemap: false,
      minify: true,
      entryPoints: ['webview/src/heatmap-main.ts'],
      outfile: 'dist/netview.js',
    }),
  );
}

// Tests: unit tests live beside their sources (*.test.ts under server/, webview/) or in test/unit;
// native, e2e and real-application tests in test/native, test/e2e and test/apps. Each tier gets its own output folder.
const tiers = {
  unit: [...find('server', '.test.ts'), ...find('webview', '.test.ts'), ...find('test/unit', '.test.ts')],
  native: find('test/native', '.test.ts'),
  e2e: find('test/e2e', '.test.ts'),
  cluster: [...find('test/cluster', '.test.ts'), ...find('test/slurm', '.test.ts')],
  apps: find('test/apps', '.test.ts'),
};
for (const [tier, files] of Object.entries(tiers)) {
  for (const file of files) {
    const flat = relative('.', file).split(sep).join('__').replace(/\.ts$/, '.js');
    jobs.push(build({ ...common, entryPoints: [file], outfile: join('dist', 'test', tier, flat) }));
  }
}

await Promise.all(jobs);
