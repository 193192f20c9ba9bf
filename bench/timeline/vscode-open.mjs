#!/usr/bin/env node
// Opening a million-event trace in VS Code itself, as a user does (prints numbers; not a test). See vscode-open.ts.
//   node bench/timeline/vscode-open.mjs [--trace FILE] [--np 64] [--iterations 1250] [--runs 3]
// Run scripts/build.mjs and scripts/package.sh first (dist/ and dist/mpiscope.vsix), and
// scripts/install-e2e-tools.sh once (code-server, Chromium).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../lib/run-bench.mjs';

await runBench(dirname(fileURLToPath(import.meta.url)), 'vscode-open', 4096, 'vscode-open.ts', [
  'playwright-core',
]);
