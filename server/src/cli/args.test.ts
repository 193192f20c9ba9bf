import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from './args';

test('run: options, -np, the program and its own arguments', () => {
  assert.deepEqual(
    parseArgs([
      'run',
      '--json',
      'r.json',
      '--sarif=r.sarif',
      '--keep-alive',
      '-np',
      '4',
      './app',
      '--json',
      'x',
    ]),
    {
      command: 'run',
      np: 4,
      program: './app',
      args: ['--json', 'x'],
      keepAlive: true,
      json: 'r.json',
      sarif: 'r.sarif',
    },
  );
  const r = parseArgs([
    'run',
    '-np',
    '2',
    '--deadlock-timeout',
    '1.5',
    '--mpirun',
    'mpirun.mpich -v',
    '--',
    '-weird-name',
    'a',
  ]);
  assert.equal(r.command, 'run');
  if (r.command === 'run') {
    assert.equal(r.program, '-weird-name');
    assert.deepEqual(r.args, ['a']);
    assert.equal(r.deadlockTimeout, 1.5);
    assert.equal(r.mpirun, 'mpirun.mpich -v');
  }
});

test('run: hosts, host file, listen address and launcher, in ours and in mpirun spellings', () => {
  const r = parseArgs([
    'run',
    '--host',
    'n1,n2:4',
    '--listen',
    '198.18.0.1:7000',
    '--launcher=mpiexec',
    '-np',
    '2',
    'app',
  ]);
  assert.equal(r.command, 'run');
  if (r.command !== 'run') return;
  assert.deepEqual(r.hosts, ['n1', 'n2:4']);
  assert.equal(r.listen, '198.18.0.1:7000');
  assert.equal(r.launcher, 'mpiexec');
  const f = parseArgs(['run', '-hostfile', 'hf', '--launcher', 'srun', '-np', '1', 'app']);
  assert.equal(f.command === 'run' && f.hostfile, 'hf');
  const h = parseArgs(['run', '-H', 'a,b', '-np', '1', 'app']);
  assert.deepEqual(h.command === 'run' && h.hosts, ['a', 'b']);
  assert.throws(() => parseArgs(['run', '--launcher', 'aprun', '-np', '1', 'a']), /mpirun, mpiexec or srun/);
  assert.throws(() => parseArgs(['run', '--host', 'a,,b', '-np', '1', 'a']), /separated by commas/);
  assert.throws(() => parseArgs(['run', '--host', 'a', '--hostfile', 'f', '-np', '1', 'a']), /not both/);
  assert.throws(() => parseArgs(['run', '--listen', '-np', '1', 'a']), /--listen needs a value/);
});

test('report, help, version', () => {
  assert.deepEqual(parseArgs(['report', 't.trace', '--json', 'j']), {
    command: 'report',
    trace: 't.trace',
    json: 'j',
  });
  assert.deepEqual(parseArgs([]), { command: 'help' });
  assert.deepEqual(parseArgs(['--help']), { command: 'help' });
  assert.deepEqual(parseArgs(['--version']), { command: 'version' });
});

test('mistakes are one-line usage errors', () => {
  assert.throws(() => parseArgs(['run', '--nope', '-np', '2', 'a']), {
    name: 'UsageError',
    message: /unknown option --nope/,
  });
  assert.throws(() => parseArgs(['run', '-np', '0', 'a']), /at least 1/);
  assert.throws(() => parseArgs(['run', '-np', '2.5', 'a']), /whole number/);
  assert.throws(() => parseArgs(['run', 'a']), /-np N is required/);
  assert.throws(() => parseArgs(['run', '-np', '2']), /no program/);
  assert.throws(() => parseArgs(['run', '-np']), /needs a value/);
  // A file option followed by another option: its value was forgotten.
  assert.throws(
    () => parseArgs(['run', '--json', '-np', '4', 'a']),
    /--json needs a value, not the option -np/,
  );
  assert.throws(() => parseArgs(['report', 't', '--sarif', '--json', 'x']), /--sarif needs a value/);
  assert.equal(parseArgs(['run', '--json=-odd.json', '-np', '1', 'a']).command, 'run');
  assert.throws(() => parseArgs(['report']), /needs a trace/);
  assert.throws(() => parseArgs(['report', 'a', '--trace', 'b']), /unknown option --trace/);
  assert.throws(() => parseArgs(['fly']), /unknown command fly/);
});

test('--fail-on takes error, warning or note, for run and report; anything else is a usage error', () => {
  const r = parseArgs(['run', '--fail-on', 'warning', '-np', '2', 'app']);
  assert.equal(r.command === 'run' ? r.failOn : undefined, 'warning');
  const p = parseArgs(['report', 't.trace', '--fail-on=note']);
  assert.equal(p.command === 'report' ? p.failOn : undefined, 'note');
  const d = parseArgs(['run', '-np', '2', 'app']);
  assert.equal(d.command === 'run' ? d.failOn : 'x', undefined);
  assert.throws(
    () => parseArgs(['run', '--fail-on', 'info', '-np', '2', 'app']),
    /--fail-on must be error, warning or note/,
  );
});

test('cc, cxx, fc: every argument is the compiler’s, options included', () => {
  assert.deepEqual(parseArgs(['cc', '-O2', '-c', 'a.c', '-o', 'a.o', '--help']), {
    command: 'cc',
    args: ['-O2', '-c', 'a.c', '-o', 'a.o', '--help'],
  });
  assert.deepEqual(parseArgs(['fc', '-np', 'x.f90']), { command: 'fc', args: ['-np', 'x.f90'] });
  assert.deepEqual(parseArgs(['cxx']), { command: 'cxx', args: [] });
});

test('run --memcheck requires the memcheck mode; without it the mode is decided by the program', () => {
  const on = parseArgs(['run', '--memcheck', '-np', '2', './app']);
  assert.equal(on.command === 'run' && on.memcheck, true);
  const off = parseArgs(['run', '-np', '2', './app', '--memcheck']);
  assert.equal(off.command === 'run' && off.memcheck, undefined);
  assert.deepEqual(off.command === 'run' ? off.args : [], ['--memcheck']);
});

test('run --replay-race: the id names the receive and the sender, --sender overrides it', () => {
  const run = (...a: string[]) => parseArgs(['run', ...a, '-np', '3', './app']);
  assert.deepEqual((run('--replay-race', '0.2.1') as { replayRace?: unknown }).replayRace, {
    rank: 0,
    wildcard: 2,
    sender: 1,
  });
  assert.deepEqual((run('--replay-race', '0.2', '--sender', '2') as { replayRace?: unknown }).replayRace, {
    rank: 0,
    wildcard: 2,
    sender: 2,
  });
  assert.throws(() => run('--sender', '2'), /--sender chooses the sender of a replayed race/);
  assert.throws(() => run('--replay-race', '0.2.7'), /rank 7 is not a rank of a job of -np 3/);
  assert.throws(() => run('--replay-race', 'first'), /give the race's id as its finding shows it/);
});
