// `mpiscope run --tls`: the ranks connect with wss to a certificate made for the session and pin it by the
// SHA-256 fingerprint in their environment (native-shim/src/msc_tls.c, server/src/session/tls-cert.ts). A rank
// that finds another certificate at the address refuses it with one line and runs on unobserved; the session
// says it could not observe the job. The same over hosts on a network: test/cluster/cluster.test.ts.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compileMpi, installedFlavors, readReport, repoRoot, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-tls-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A launcher that hands the ranks another fingerprint than the session's (a stale one, or an impostor's). */
function wrongPinLauncher(flavor: string): string {
  const path = join(work, `wrong-pin-${flavor}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh\nMPISCOPE_TLS_FINGERPRINT=${'ab'.repeat(32)} exec ${flavor === 'openmpi' ? 'mpirun.openmpi --oversubscribe' : 'mpiexec.mpich'} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

for (const flavor of installedFlavors()) {
  const source = join(repoRoot(), 'test', 'programs', 'ok-sendrecv-ring.c');
  const app = join(work, `ring-${flavor}`);

  test(`${flavor}: a job over wss with the pinned certificate is observed whole`, async () => {
    compileMpi(flavor, source, app);
    const json = join(work, `${flavor}.json`);
    const ran = await runCli(
      ['run', '--tls', '--json', json, '--mpirun', `mpirun.${flavor}`, '-np', '3', app],
      {
        cwd: work,
        timeoutMs: 120_000,
      },
    );
    assert.equal(ran.code, 0, ran.stderr);
    const report = readReport(json);
    assert.deepEqual(report.findings, []);
    const endings = (
      JSON.parse(readFileSync(json, 'utf8')) as { rankEndings: { how: string; lastCall: string }[] }
    ).rankEndings;
    assert.deepEqual(
      endings.map((e) => `${e.how} ${e.lastCall}`),
      ['finalized MPI_Finalize', 'finalized MPI_Finalize', 'finalized MPI_Finalize'],
    );
  });

  test(`${flavor}: a certificate other than the pinned one is refused with one line per rank, and the job runs`, async () => {
    compileMpi(flavor, source, app);
    const ran = await runCli(['run', '--tls', '--mpirun', wrongPinLauncher(flavor), '-np', '3', app], {
      cwd: work,
      timeoutMs: 120_000,
    });
    assert.equal(ran.code, 2, 'mpiscope could not do its job');
    const refused = ran.stderr
      .split('\n')
      .filter((l) => /^mpiscope: rank \d on host .* cannot reach the analyzer at wss:\/\//.test(l));
    assert.equal(refused.length, 3, ran.stderr);
    for (const l of refused)
      assert.match(l, /is not the one this session pinned in MPISCOPE_TLS_FINGERPRINT/);
    assert.match(ran.stderr, /could not observe this job: no rank connected .*\(the job exited with 0\)/);
  });
}
