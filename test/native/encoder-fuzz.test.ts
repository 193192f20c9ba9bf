// The shim's record encoder under libFuzzer, a few seconds per installed MPI (native-shim/fuzz/encoder-fuzz.c:
// the ring's writers, the sender's frames and the WebSocket framing checked against a model of the record
// layout, with AddressSanitizer and UBSan). The long run, 10^6 inputs, is bench/fuzz/encoder.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { installedFlavors, repoRoot } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-encoder-fuzz-'));
after(() => rmSync(work, { recursive: true, force: true }));

for (const flavor of installedFlavors()) {
  test(`${flavor}: the record encoder survives a few seconds of libFuzzer with every record as made`, () => {
    const out = join(repoRoot(), 'native-shim', 'build', `fuzz-${flavor}`);
    const b = spawnSync(
      'bash',
      [join(repoRoot(), 'native-shim', 'fuzz', 'build.sh'), `mpicc.${flavor}`, out],
      {
        encoding: 'utf8',
        timeout: 600_000,
      },
    );
    // scripts/setup.sh installs clang and its libFuzzer runtime for the test suite.
    assert.equal(b.status, 0, b.stderr);
    mkdirSync(join(work, flavor));
    const r = spawnSync(
      join(out, 'encoder-fuzz'),
      [
        '-max_total_time=4',
        '-seed=1',
        '-print_final_stats=1',
        `-artifact_prefix=${work}/`,
        join(work, flavor),
      ],
      { encoding: 'utf8', cwd: work, timeout: 120_000 },
    );
    const log = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, log.split('\n').slice(-30).join('\n'));
    assert.doesNotMatch(log, /runtime error|AddressSanitizer|encoder-fuzz:/);
    const runs = Number(/Done (\d+) runs/.exec(log)?.[1] ?? 0);
    assert.ok(runs > 100, `libFuzzer ran ${runs} inputs`);
  });
}
