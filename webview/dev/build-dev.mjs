// Bundles the standalone page's script (webview/dev/dev-main.ts, which includes the real webview) to
// webview/dev/.out/dev.js as a classic script, so index.html also works from file://.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [join(here, 'dev-main.ts')],
  outfile: join(here, '.out', 'dev.js'),
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  sourcemap: 'linked',
  logLevel: 'warning',
  tsconfig: join(here, '..', 'tsconfig.json'),
});
