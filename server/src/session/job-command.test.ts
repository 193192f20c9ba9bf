import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hydraBindsEachRank,
  jobCommand,
  type BindingInput,
  type JobCommandInput,
  type LauncherSyntax,
} from './job-command';
import type { MpiFlavor } from './mpi-flavor';

const rankEnv = { MPISCOPE_URL: 'ws://198.18.0.1:4000/', LD_PRELOAD: '/s/libmpiscope.so' };
const secretEnv = { MPISCOPE_TOKEN: 'abc' };

function input(
  syntax: LauncherSyntax,
  flavor: MpiFlavor,
  more: Partial<JobCommandInput> = {},
): JobCommandInput {
  return {
    syntax,
    flavor,
    mpirunPrefixArgs: [],
    mpirunArgs: [],
    np: 4,
    program: '/p/app',
    args: ['-x', 'in'],
    rankEnv,
    secretEnv,
    isRoot: false,
    ...more,
  };
}

test('Open MPI: -x for every rank variable, --host, --hostfile, the TCP subnet, -np, then the program', () => {
  const c = jobCommand(
    input('openmpi', 'openmpi', { hosts: ['a', 'b:2'], tcpSubnet: '198.18.0.0/15', isRoot: true }),
  );
  assert.deepEqual(c.args, [
    '--allow-run-as-root',
    '--oversubscribe',
    '--host',
    'a,b:2',
    '--mca',
    'btl_tcp_if_include',
    '198.18.0.0/15',
    '--mca',
    'oob_tcp_if_include',
    '198.18.0.0/15',
    '-x',
    'MPISCOPE_URL=ws://198.18.0.1:4000/',
    '-x',
    'LD_PRELOAD=/s/libmpiscope.so',
    '-x',
    'MPISCOPE_TOKEN',
    '-np',
    '4',
    '/p/app',
    '-x',
    'in',
  ]);
  // The token is never on the command line (ps shows it to every user): mpirun forwards it from its environment.
  assert.deepEqual(c.env, { MPISCOPE_TOKEN: 'abc' });
  assert.ok(!c.args.some((a) => a.includes('abc')));
  const f = jobCommand(input('openmpi', 'openmpi', { hostfile: '/h/file' })).args;
  assert.deepEqual(f.slice(0, 3), ['--oversubscribe', '--hostfile', '/h/file']);
});

test("Open MPI: the user's own TCP interface choice is kept", () => {
  const c = jobCommand(
    input('openmpi', 'openmpi', {
      mpirunPrefixArgs: ['--mca', 'btl_tcp_if_exclude', 'lo'],
      tcpSubnet: '10.0.0.0/8',
    }),
  ).args;
  assert.equal(c.filter((a) => a === 'btl_tcp_if_include').length, 0);
  assert.equal(c.filter((a) => a === 'oob_tcp_if_include').length, 1);
  assert.deepEqual(c.slice(0, 3), ['--mca', 'btl_tcp_if_exclude', 'lo']);
});

test('Hydra (MPICH mpiexec): -genv NAME VALUE, -hosts, -f', () => {
  const c = jobCommand(input('hydra', 'mpich', { hosts: ['n1', 'n2'], tcpSubnet: '10.0.0.0/8' }));
  assert.deepEqual(c.args, [
    '-hosts',
    'n1,n2',
    '-genv',
    'MPISCOPE_URL',
    'ws://198.18.0.1:4000/',
    '-genv',
    'LD_PRELOAD',
    '/s/libmpiscope.so',
    '-np',
    '4',
    '/p/app',
    '-x',
    'in',
  ]);
  assert.deepEqual(jobCommand(input('hydra', 'mpich', { hostfile: 'hf' })).args.slice(0, 2), ['-f', 'hf']);
  assert.deepEqual(jobCommand(input('hydra', 'mpich')).env, { MPISCOPE_TOKEN: 'abc' });
  // The user turned Hydra's forwarding of the environment off: the token must be named.
  const none = jobCommand(input('hydra', 'mpich', { mpirunPrefixArgs: ['-genvnone'] })).args;
  assert.deepEqual(none.slice(none.indexOf('MPISCOPE_TOKEN') - 1, none.indexOf('MPISCOPE_TOKEN') + 2), [
    '-genv',
    'MPISCOPE_TOKEN',
    'abc',
  ]);
});

test('srun: the MPI plugin of each MPI, stdin to task 0, -n, hosts as --nodelist, the shim on --export only', () => {
  for (const [flavor, plugin] of [
    ['openmpi', 'pmix'],
    ['mpich', 'pmi2'],
  ] as const) {
    const c = jobCommand(input('srun', flavor, { hostfileHosts: ['a', 'b', 'a'], hostfile: 'hf' }));
    assert.deepEqual(c.args, [
      `--mpi=${plugin}`,
      '--input=0',
      '--nodelist=a,b',
      '--export=ALL,LD_PRELOAD=/s/libmpiscope.so',
      '-n',
      '4',
      '/p/app',
      '-x',
      'in',
    ]);
    // The other variables reach the tasks through srun's environment (exported by --export=ALL).
    assert.deepEqual(c.env, { MPISCOPE_TOKEN: 'abc', MPISCOPE_URL: 'ws://198.18.0.1:4000/' });
  }
  const own = jobCommand(
    input('srun', 'mpich', { mpirunPrefixArgs: ['--mpi=pmix', '-i', 'all'], hosts: ['x:2', 'y'] }),
  ).args;
  assert.deepEqual(own.slice(0, 4), ['--mpi=pmix', '-i', 'all', '--nodelist=x,y']);
  // A path srun's --export cannot spell goes through the environment instead.
  const comma = jobCommand(input('srun', 'mpich', { rankEnv: { ...rankEnv, LD_PRELOAD: '/a,b/s.so' } }));
  assert.equal(comma.env.LD_PRELOAD, '/a,b/s.so');
  assert.ok(!comma.args.some((a) => a.startsWith('--export')));
});

test('Hydra: -bind-to core when asked, after the hosts and before the rank variables', () => {
  const c = jobCommand(input('hydra', 'mpich', { bindEachRank: true })).args;
  assert.deepEqual(c.slice(0, 3), ['-bind-to', 'core', '-genv']);
  assert.ok(!jobCommand(input('hydra', 'mpich')).args.includes('-bind-to'));
});

test('Hydra binds each rank to a core only on one host, when the ranks fit the cores and the user chose nothing', () => {
  const fits: BindingInput = {
    np: 2,
    cores: 2,
    userArgs: [],
    env: {},
    oneHost: true,
    ldd: 'libmpich.so.12 => /x',
  };
  assert.equal(hydraBindsEachRank(fits), true);
  assert.equal(hydraBindsEachRank({ ...fits, np: 3 }), false, 'more ranks than cores: some must share');
  assert.equal(hydraBindsEachRank({ ...fits, cores: undefined }), false, 'unknown cores');
  assert.equal(hydraBindsEachRank({ ...fits, oneHost: false }), false, 'several hosts');
  for (const userArgs of [
    ['-bind-to', 'none'],
    ['--bind-to=numa'],
    ['-binding', 'rr'],
    ['-map-by', 'socket'],
    ['-f', 'hf'],
    ['-hosts', 'a'],
  ])
    assert.equal(hydraBindsEachRank({ ...fits, userArgs }), false, userArgs.join(' '));
  for (const k of ['HYDRA_BINDING', 'HYDRA_MAPPING', 'HYDRA_HOST_FILE', 'SLURM_JOB_ID', 'PBS_JOBID'])
    assert.equal(hydraBindsEachRank({ ...fits, env: { [k]: 'x' } }), false, k);
  assert.equal(
    hydraBindsEachRank({ ...fits, env: { HYDRA_BINDING: '' } }),
    true,
    'an empty variable chooses nothing',
  );
  // A program with threads of its own (OpenMP, TBB) keeps every core for them.
  assert.equal(hydraBindsEachRank({ ...fits, env: { OMP_NUM_THREADS: '4' } }), false, 'OMP_NUM_THREADS=4');
  assert.equal(hydraBindsEachRank({ ...fits, env: { OMP_NUM_THREADS: '1' } }), true, 'OMP_NUM_THREADS=1');
  for (const lib of ['libgomp.so.1', 'libomp.so.5', 'libiomp5.so', 'libtbb.so.12'])
    assert.equal(hydraBindsEachRank({ ...fits, ldd: `${fits.ldd}\n\t${lib} => /y` }), false, lib);
});
