import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../lib/mpiscope-cli';

/** A checkout of bin/mpiscope.js beside a small stand-in for the bundle that prints `word`. */
function checkout(): { dir: string; bundle: string; run: () => string; bundleSays: (word: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-code-cache-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'dist'));
  copyFileSync(join(repoRoot(), 'bin', 'mpiscope.js'), join(dir, 'bin', 'mpiscope.js'));
  const bundle = join(dir, 'dist', 'cli.js');
  return {
    dir,
    bundle,
    // As `node bin/mpiscope.js` (the shebang's flag is not what is tested).
    run: () => execFileSync(process.execPath, [join(dir, 'bin', 'mpiscope.js'), 'x'], { encoding: 'utf8' }),
    bundleSays: (word) =>
      writeFileSync(
        bundle,
        `'use strict';\nconst { basename } = require('node:path');\nfunction say() { return '${word}' + ' ' + basename(__dirname) + ' ' + process.argv.slice(2).join(','); }\nprocess.stdout.write(say() + '\\n');\n`,
      ),
  };
}

test('the CLI runs the same from its code cache, and a rebuilt bundle of the same length is never run from the old one', () => {
  const c = checkout();
  try {
    c.bundleSays('alpha');
    assert.equal(c.run(), 'alpha dist x\n', 'first run, no cache');
    const cache = `${c.bundle}.cache`;
    const made = statSync(cache);
    assert.ok(made.size > 64, 'the run left a code cache');
    assert.equal(c.run(), 'alpha dist x\n', 'run from the cache');
    assert.equal(statSync(cache).mtimeMs, made.mtimeMs, 'a cache that was used is not written again');
    // Same length, other code: V8 alone checks only the source's length and would run 'alpha'.
    c.bundleSays('gamma');
    assert.equal(c.run(), 'gamma dist x\n');
    assert.equal(c.run(), 'gamma dist x\n');
    // A damaged cache is not trusted either.
    const bytes = readFileSync(cache);
    writeFileSync(cache, bytes.subarray(0, 64 + 16));
    assert.equal(c.run(), 'gamma dist x\n');
  } finally {
    rmSync(c.dir, { recursive: true, force: true });
  }
});

test('a cache made by a command that does not analyze is replaced by the first run or report that ends its job, once', () => {
  const c = checkout();
  try {
    const cache = `${c.bundle}.cache`;
    // The stand-in exits with the status the test asks for: 2 is a run refused before its job.
    writeFileSync(c.bundle, `'use strict';\nprocess.exitCode = Number(process.env.STAND_IN_STATUS ?? 0);\n`);
    const cli = (command: string, status = 0): void => {
      try {
        execFileSync(process.execPath, [join(c.dir, 'bin', 'mpiscope.js'), command], {
          env: { ...process.env, STAND_IN_STATUS: String(status) },
          stdio: 'ignore',
        });
      } catch (err) {
        assert.equal((err as { status?: number }).status, status);
      }
    };
    const head = (): string => readFileSync(cache).subarray(0, 64).toString('latin1').trimEnd();
    cli('--version');
    assert.match(head(), / part$/, '--version made a part cache');
    const part = statSync(cache).mtimeMs;
    cli('run', 2);
    assert.equal(statSync(cache).mtimeMs, part, 'a run refused before its job does not replace it');
    cli('run', 1);
    assert.match(head(), / whole$/, 'the first run that ended its job made it whole');
    const whole = statSync(cache).mtimeMs;
    cli('report');
    cli('--version');
    assert.equal(statSync(cache).mtimeMs, whole, 'a whole cache is not written again');
  } finally {
    rmSync(c.dir, { recursive: true, force: true });
  }
});
