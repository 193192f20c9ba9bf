import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { programInterpreter } from './elf-interp';
import { defaultLauncher, firstOfFlavor, listLibraries } from './launch-plan';

test('srun is the default launcher inside a Slurm allocation with srun on PATH, mpirun otherwise', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-launcher-'));
  try {
    writeFileSync(join(dir, 'srun'), '#!/bin/sh\n');
    chmodSync(join(dir, 'srun'), 0o755);
    assert.equal(defaultLauncher({ SLURM_JOB_ID: '7', PATH: dir }), 'srun');
    assert.equal(defaultLauncher({ PATH: dir }), 'mpirun'); // not in an allocation
    assert.equal(defaultLauncher({ SLURM_JOB_ID: '7', PATH: '/nonexistent' }), 'mpirun'); // no srun
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the program's libraries are ldd's lines, listed by its own loader (addresses aside)", async () => {
  const program = process.execPath;
  const interpreter = programInterpreter(program);
  let ldd: string;
  try {
    ldd = execFileSync('ldd', [program], { encoding: 'utf8' });
  } catch {
    return; // no ldd here: nothing to compare with
  }
  const listed = await listLibraries(program, interpreter);
  const lines = (text: string): string[] =>
    text
      .split('\n')
      .map((l) => l.replace(/\(0x[0-9a-f]+\)/, '').trim())
      .filter((l) => l !== '');
  assert.equal(listed?.code, 0);
  assert.deepEqual(lines(listed?.out ?? ''), lines(ldd));
});

test("the launchers' --version are asked all at once, and the first of the program's MPI in PATH's order is taken", async () => {
  // mpirun is Open MPI's and slow to answer, mpirun.mpich MPICH's: both are asked before either answers, and
  // mpiexec.mpich, which answers first, is not taken over mpirun.mpich, which comes before it.
  const answers: Record<string, ['openmpi' | 'mpich', number]> = {
    '/usr/bin/mpirun': ['openmpi', 40],
    '/usr/bin/mpirun.mpich': ['mpich', 20],
    '/usr/bin/mpiexec.mpich': ['mpich', 1],
  };
  const asked: string[] = [];
  let answered = 0;
  const askedBeforeAnAnswer: string[] = [];
  const chosen = await firstOfFlavor(Object.keys(answers), 'mpich', (path) => {
    asked.push(path);
    if (answered === 0) askedBeforeAnAnswer.push(path);
    const [flavor, ms] = answers[path] ?? ['openmpi', 0];
    return new Promise((resolve) =>
      setTimeout(() => {
        answered++;
        resolve(flavor);
      }, ms),
    );
  });
  assert.equal(chosen, '/usr/bin/mpirun.mpich');
  assert.deepEqual(askedBeforeAnAnswer, Object.keys(answers));
  assert.equal(
    await firstOfFlavor(['/usr/bin/mpirun'], 'mpich', () => Promise.resolve('openmpi')),
    undefined,
  );
});
