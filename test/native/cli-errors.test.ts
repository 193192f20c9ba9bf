// When mpiscope cannot do its job it exits 2 with one line a person can act on, and no stack trace.
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compileMpi, installedFlavors, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-cli-errors-'));
const mpiApp = join(work, 'mpi-app');
after(() => rmSync(work, { recursive: true, force: true }));

before(() => {
  const flavor = installedFlavors()[0];
  assert.ok(flavor !== undefined, 'no MPI installed');
  const src = join(work, 'app.c');
  writeFileSync(
    src,
    '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n',
  );
  compileMpi(flavor, src, mpiApp);
  copyFileSync('/bin/true', join(work, 'not-mpi'));
  writeFileSync(join(work, 'not-executable'), 'text');
  writeFileSync(join(work, 'run.sh'), `#!/bin/sh\nexec ${mpiApp}\n`, { mode: 0o755 });
  copyFileSync('/bin/true', join(work, 'python3'));
  chmodSync(join(work, 'python3'), 0o755);
});

async function expectUsageError(
  args: string[],
  mentions: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  const r = await runCli(args, { cwd: work, timeoutMs: 30_000, env });
  assert.equal(r.code, 2, `exit status (stderr: ${r.stderr})`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0] ?? '', /^mpiscope: /);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.match(lines[0] ?? '', mentions);
}

test('a missing program', () =>
  expectUsageError(['run', '-np', '2', './no-such-program'], /no-such-program.*not found/));
test('a program not linked with MPI', () =>
  expectUsageError(['run', '-np', '2', './not-mpi'], /not linked with an MPI library/));
test('a script (what it runs is the MPI program)', () =>
  expectUsageError(['run', '-np', '2', './run.sh'], /run\.sh is a script, not an MPI executable/));
// An interpreter (mpi4py and the like) runs with the launcher's MPI: here one that is neither MPI's.
test('an interpreter with a launcher of no MPI mpiscope knows', () =>
  expectUsageError(
    ['run', '--mpirun', './not-mpi', '-np', '2', './python3', 'app.py'],
    /python3 is an interpreter .*not-mpi is not an Open MPI or MPICH launcher; pass the launcher .* with --mpirun/,
  ));
test('a file that is not executable', () =>
  expectUsageError(['run', '-np', '2', './not-executable'], /not executable/));
test('-np 0', () => expectUsageError(['run', '-np', '0', mpiApp], /-np must be .* at least 1/));
test('-np that is not a number', () => expectUsageError(['run', '-np', 'two', mpiApp], /-np must be/));
test('no -np', () => expectUsageError(['run', mpiApp], /-np N is required/));
test('a launcher that does not exist', () =>
  expectUsageError(['run', '--mpirun', '/nonexistent', '-np', '2', mpiApp], /\/nonexistent not found/));
test('an unknown option', () =>
  expectUsageError(['run', '--frobnicate', '-np', '2', mpiApp], /unknown option --frobnicate/));
test('an unknown command', () => expectUsageError(['walk'], /unknown command walk/));
test('--memcheck with a program not built by mpiscope cc', () =>
  expectUsageError(
    ['run', '--memcheck', '-np', '1', mpiApp],
    /--memcheck needs a program built with mpiscope's compiler wrappers/,
  ));
test('mpiscope cc with an MPI it does not know', () =>
  expectUsageError(['cc', 'x.c'], /MPISCOPE_MPI=intel is not an MPI mpiscope knows/, {
    MPISCOPE_MPI: 'intel',
  }));
test('a trace file that does not exist', () =>
  expectUsageError(['report', join(work, 'none.trace')], /not found/));
test('a file that is not a trace', () => expectUsageError(['report', mpiApp], /not an mpiscope trace/));
test('export without a format', () =>
  expectUsageError(['export', mpiApp], /export needs a format: .*--chrome/));
test('export of a trace that does not exist', () =>
  expectUsageError(['export', '--chrome', join(work, 'none.mpitrace')], /not found/));
test('export of a file that is not a trace', () =>
  expectUsageError(['export', '--chrome', mpiApp], /not an mpiscope trace/));
test('a bad --deadlock-timeout', () =>
  expectUsageError(['run', '--deadlock-timeout', '-3', '-np', '2', mpiApp], /deadlock-timeout/));

test('--help and --version exit 0', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /mpiscope run .*-np N/s);
  const version = await runCli(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^mpiscope \d+\.\d+\.\d+/);
});
