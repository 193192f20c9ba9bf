import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCpuList, physicalCores } from './cpu-cores';

test('CPU lists: ranges and single CPUs; a malformed list is empty', () => {
  assert.deepEqual(parseCpuList('0-3,8,10-11\n'), [0, 1, 2, 3, 8, 10, 11]);
  assert.deepEqual(parseCpuList('5'), [5]);
  assert.deepEqual(parseCpuList('3-1'), []);
  assert.deepEqual(parseCpuList('0-x'), []);
  assert.deepEqual(parseCpuList(''), []);
});

/** A /proc and /sys where CPUs 0-3 are two cores of two hyperthreads each, and CPUs 4-5 a core of package 1. */
function machine(allowed: string): (path: string) => string {
  const core: Record<number, [string, string]> = {
    0: ['0', '0'],
    1: ['0', '1'],
    2: ['0', '0'],
    3: ['0', '1'],
    4: ['1', '0'],
    5: ['1', '0'],
  };
  return (path) => {
    if (path === '/proc/self/status')
      return `Name:\tnode\nCpus_allowed_list:\t${allowed}\nMems_allowed:\t1\n`;
    const m = /cpu(\d+)\/topology\/(physical_package_id|core_id)$/.exec(path);
    const c = m === null ? undefined : core[Number(m[1])];
    if (m === null || c === undefined) throw new Error(`ENOENT ${path}`);
    return `${m[2] === 'physical_package_id' ? c[0] : c[1]}\n`;
  };
}

test('physical cores: hyperthreads of one core count once, a core of another package apart, only allowed CPUs', () => {
  assert.equal(physicalCores(machine('0-5')), 3);
  assert.equal(physicalCores(machine('0,2')), 1);
  assert.equal(physicalCores(machine('0-1,4')), 3);
  // Unreadable topology (another system): unknown, not a guess.
  assert.equal(physicalCores(machine('0-7')), undefined);
  assert.equal(
    physicalCores(() => 'Name:\tnode\n'),
    undefined,
  );
});
