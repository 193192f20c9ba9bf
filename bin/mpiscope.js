#!/usr/bin/env node
'use strict';
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
