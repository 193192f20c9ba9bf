import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkTargets } from './report-targets';

test('report files whose folder is missing are refused before the run, in one line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-targets-'));
  try {
    checkTargets({ json: 'r.json', sarif: join(dir, 'r.sarif') }, dir);
    assert.throws(
      () => checkTargets({ json: join(dir, 'missing', 'r.json') }, dir),
      /cannot write .*r\.json: folder .*missing does not exist or is not writable$/,
    );
    assert.throws(() => checkTargets({ sarif: 'no/such/dir/r.sarif' }, dir), /no\/such\/dir does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
