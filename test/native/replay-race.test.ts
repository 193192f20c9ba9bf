// Replaying a message race the other way (issue 11 §1): every corpus program whose header has a `replay: ID
// OUTCOME` line runs once as it is (its race finding must carry that id) and once with `mpiscope run
// --replay-race ID`, under each installed MPI; the replay must force that receive (the shim's note is in the
// report) and find the outcome the header predicts, which differs from the run's own (a clean run).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureShim } from '../../server/src/session/shim-locator';
import type { MpiFlavor } from '../../server/src/session/mpi-flavor';
import { parseCorpusHeader } from '../lib/corpus-header';
import { compileMpi, installedFlavors, readReport, repoRoot, runCli } from '../lib/mpiscope-cli';

const programsDir = join(repoRoot(), 'test', 'programs');
const programs = readdirSync(programsDir)
  .filter((f) => f.endsWith('.c'))
  .map((file) => ({ file, header: parseCorpusHeader(readFileSync(join(programsDir, file), 'utf8'), file) }))
  .filter((p) => p.header.replay !== undefined);
const work = mkdtempSync(join(tmpdir(), 'mpiscope-replay-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(async () => {
  for (const flavor of installedFlavors()) await ensureShim(flavor as MpiFlavor);
});

test('the corpus has races to replay', () => {
  assert.ok(programs.length >= 2, 'no program of test/programs has a "replay:" line');
});

for (const flavor of installedFlavors()) {
  for (const { file, header } of programs) {
    const replay = header.replay as { id: string; outcome: string };
    test(`${flavor} ${file}: --replay-race ${replay.id} gives ${replay.outcome}`, async () => {
      const dir = join(work, flavor, file.replace(/\.c$/, ''));
      mkdirSync(dir, { recursive: true });
      const exe = join(dir, 'app');
      compileMpi(flavor, join(programsDir, file), exe);
      const run = async (extra: string[], json: string) => {
        const cli = await runCli(
          [
            'run',
            '--json',
            json,
            '--deadlock-timeout',
            '20',
            '--mpirun',
            `mpirun.${flavor}`,
            ...extra,
            '-np',
            String(header.ranks),
            '--',
            exe,
          ],
          { cwd: dir, timeoutMs: 90_000 },
        );
        const context = `\n--- stdout\n${cli.stdout}\n--- stderr\n${cli.stderr.slice(-3000)}`;
        assert.notEqual(cli.code, null, `mpiscope did not finish within 90 s${context}`);
        assert.notEqual(cli.code, 2, `mpiscope could not do its job${context}`);
        return { cli, report: readReport(join(dir, json)), context };
      };
      const first = await run([], 'run.json');
      const race = first.report.findings.find((f) => f.kind === 'message-race');
      assert.equal(race?.race?.id, replay.id, `the race finding's id${first.context}`);
      assert.equal(first.report.replay, undefined);

      const again = await run(['--replay-race', replay.id], 'replay.json');
      const forced = again.report.findings.find((f) => f.race?.forced === true);
      assert.ok(forced !== undefined, `the shim's note of the forced receive is missing${again.context}`);
      assert.equal(forced.severity, 'note');
      assert.equal(again.report.replay?.race, replay.id);
      assert.equal(again.report.replay?.outcome, replay.outcome, `replay outcome${again.context}`);
      assert.match(
        again.cli.stdout,
        new RegExp(`replay of race ${replay.id.replace(/\./g, '\\.')}: ${replay.outcome}\\.`),
      );
      // What the recorded calls decide is said on the race itself, and the replay agrees with it.
      if (replay.outcome === 'mismatch')
        assert.match(race?.race?.predicted?.[0]?.outcome ?? '', /truncation|type mismatch/, race?.message);
    });
  }
}
