import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lockIsStale } from './shim-locator';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-shim-lock-'));
after(() => rmSync(work, { recursive: true, force: true }));

function lockWith(name: string, pids: number[] | undefined): string {
  const lock = join(work, name);
  mkdirSync(lock);
  if (pids !== undefined) writeFileSync(join(lock, 'pids'), pids.map((p) => `${p}\n`).join(''));
  return lock;
}

// The pid of a process that has exited (and been reaped) by the time spawnSync returns.
const gone = spawnSync('true').pid ?? 0;

test('a build lock whose holders are all gone is stale at once; one with a live holder is not', () => {
  assert.ok(gone > 0);
  assert.equal(lockIsStale(lockWith('dead', [gone])), true, 'the session and its build died');
  assert.equal(lockIsStale(lockWith('live', [gone, process.pid])), false, 'the build outlives its session');
  assert.equal(
    lockIsStale(lockWith('fresh', undefined)),
    false,
    'taken a moment ago, holders not written yet',
  );
  assert.equal(lockIsStale(join(work, 'absent')), false);
});

test('a build lock older than a build can take is stale whoever holds it', () => {
  const lock = lockWith('old', [process.pid]);
  const then = (Date.now() - 400_000) / 1000;
  utimesSync(lock, then, then);
  assert.equal(lockIsStale(lock), true);
});
