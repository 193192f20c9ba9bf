import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultLauncher } from './launch-plan';

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
