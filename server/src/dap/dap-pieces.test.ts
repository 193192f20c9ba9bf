import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RankState } from '../engine/model/types';
import { planLaunch, type MpiLaunchArguments } from './launch-args';
import { nativeAttachConfiguration } from './native-attach';
import { RankOutput } from './rank-output';
import { threadName } from './thread-names';

describe('thread names', () => {
  const check = (state: RankState | undefined, expected: string): void =>
    assert.equal(threadName(2, state), expected);
  it('name the rank and its current call', () => {
    check(undefined, 'rank 2 — starting');
    check({ rank: 2, state: 'running' }, 'rank 2 — running');
    check(
      {
        rank: 2,
        state: 'in-call',
        call: { rank: 2, site: 1, call: 'MPI_Recv', detail: 'MPI_Recv from rank 0, tag 7' },
      },
      'rank 2 — MPI_Recv from 0, tag 7',
    );
    check(
      {
        rank: 2,
        state: 'blocked',
        call: { rank: 2, site: 1, call: 'MPI_Send', detail: 'MPI_Send to rank 3, tag 1' },
      },
      'rank 2 — MPI_Send to 3, tag 1 (blocked)',
    );
    check({ rank: 2, state: 'ended', ended: 'signal' }, 'rank 2 — ended (signal)');
  });
});

describe('launch arguments', () => {
  const fails = (args: MpiLaunchArguments, message: RegExp): void =>
    assert.throws(() => planLaunch(args), message);
  it('reject what the session cannot run, naming the attribute', () => {
    fails({}, /"program" is missing/);
    fails({ program: 'a', np: 0 }, /"np" must be a positive integer/);
    fails({ program: 'a', np: 1.5 }, /"np"/);
    fails({ program: 'a', args: 'x' }, /"args" must be an array of strings/);
    fails({ program: 'a', env: { A: 1 } }, /"env.A" must be a string/);
    fails({ program: 'a', deadlockTimeout: -1 }, /"deadlockTimeout"/);
    fails({ program: 'a', analyzers: 0 }, /"analyzers" must be a whole number of analyzer shards from 1/);
    fails({ program: 'a', analyzers: '4' }, /"analyzers"/);
    assert.ok((planLaunch({ program: 'a', analyzers: 'auto' }).options.analyzers ?? 0) >= 1);
    fails({ program: 'a', launcher: 'aprun' }, /"launcher" must be "mpirun", "mpiexec" or "srun"/);
    fails({ program: 'a', hosts: 'n1,n2' }, /"hosts" must be an array of strings/);
    fails({ program: 'a', hosts: ['n1', 'bad host'] }, /"hosts" must hold host names/);
    fails({ program: 'a', hosts: ['n1'], hostfile: 'f' }, /not both/);
    fails({ program: 'a', listen: 'x:99999' }, /"listen" must be ADDR\[:PORT\]/);
    fails({ program: 'a', stdin: 3 }, /"stdin" must be a string/);
  });
  it('pass hosts, host file, launcher, listen address and stdin file to the session', () => {
    const p = planLaunch({
      program: 'a',
      launcher: 'srun',
      hosts: ['n1:2', 'n2'],
      listen: '198.18.0.1:7000',
      stdin: 'input.txt',
    });
    assert.equal(p.options.launcher, 'srun');
    assert.deepEqual(p.options.hosts, ['n1:2', 'n2']);
    assert.equal(p.options.listen, '198.18.0.1:7000');
    assert.equal(p.options.stdin, 'input.txt');
    assert.equal(planLaunch({ program: 'a', hostfile: 'hf' }).options.hostfile, 'hf');
  });
  it('default to 2 ranks and stop on findings, but never stop (nor keep a deadlocked job) without debugging', () => {
    const debug = planLaunch({ program: 'a' });
    assert.equal(debug.options.np, 2);
    assert.equal(debug.stopOnFinding, true);
    assert.equal(debug.options.keepAlive, true);
    const run = planLaunch({ program: 'a', noDebug: true });
    assert.equal(run.stopOnFinding, false);
    assert.equal(run.options.keepAlive, false);
  });
});

describe('rank output', () => {
  it('prefixes whole lines and keeps a partial line until its end arrives', () => {
    const out: string[] = [];
    const o = new RankOutput((text, stream) => out.push(`${stream}:${text}`));
    o.write('a\nb', 'stdout', 0);
    o.write('c\n', 'stdout', 0);
    o.write('tail', 'stderr', undefined);
    o.flush();
    assert.deepEqual(out, ['stdout:[rank 0] a\n', 'stdout:[rank 0] bc\n', 'stderr:tail\n']);
  });
});

describe('native attach', () => {
  it('attaches cppdbg by process id string and lldb by pid number', () => {
    assert.deepEqual(nativeAttachConfiguration({ rank: 1, debuggerType: 'cppdbg' }, 42, '/p'), {
      type: 'cppdbg',
      request: 'attach',
      name: 'rank 1 (pid 42)',
      program: '/p',
      processId: '42',
      MIMode: 'gdb',
    });
    assert.deepEqual(nativeAttachConfiguration({ rank: 0, debuggerType: 'lldb' }, 7, '/p'), {
      type: 'lldb',
      request: 'attach',
      name: 'rank 0 (pid 7)',
      pid: 7,
      program: '/p',
    });
  });
});
