import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { descendants, endJob, isAlive } from './process-tree';

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// A parent that does not collect its child's status (as mpirun does not during its own SIGTERM grace): the
// shell starts `true` in the background and becomes `sleep`, which never waits, so `true` stays a zombie.
test('a zombie is not alive (it has exited; only its status waits to be collected)', async () => {
  const parent = spawn('sh', ['-c', 'true & exec sleep 30'], { stdio: 'ignore', detached: true });
  const pid = parent.pid;
  assert.ok(pid !== undefined);
  const exited = new Promise<void>((r) => parent.once('exit', () => r()));
  try {
    let zombie = 0;
    await until('the zombie child', () => {
      zombie = descendants(pid).find((c) => state(c) === 'Z') ?? 0;
      return zombie !== 0;
    });
    assert.equal(isAlive(zombie), false, 'a zombie has exited');
    assert.equal(isAlive(pid), true, 'its parent runs');
    await endJob(pid, [zombie], 5000);
    await exited;
    assert.equal(isAlive(pid), false);
  } finally {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});
