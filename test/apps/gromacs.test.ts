// GROMACS (C++ molecular dynamics; Debian's gmx_mpi is built for Open MPI only): a box of 884 SPC water
// molecules with PME electrostatics on two ranks, so domain decomposition (halo exchange of coordinates and
// forces with MPI_Sendrecv/Isend/Irecv), PME's grid redistribution and the reductions of energies all run. The
// system is built with GROMACS' own tools from its packaged water box and force field; `-reprod -dlb no` keep
// the decomposition and the sums the same from run to run, so the energies can be compared digit for digit.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { gromacsResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-gromacs-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['gmx', 'gmx_mpi', 'mpirun.openmpi']));

const TOPOLOGY = [
  '#include "oplsaa.ff/forcefield.itp"',
  '#include "oplsaa.ff/spc.itp"',
  '',
  '[ system ]',
  'water',
  '',
  '[ molecules ]',
  '',
].join('\n');

const PARAMETERS = [
  'integrator = md',
  'nsteps = 200',
  'dt = 0.002',
  'cutoff-scheme = Verlet',
  'coulombtype = PME',
  'rcoulomb = 0.9',
  'rvdw = 0.9',
  'tcoupl = v-rescale',
  'tc-grps = System',
  'tau-t = 0.1',
  'ref-t = 300',
  'ld-seed = 7',
  'nstenergy = 50',
  'nstlog = 50',
  '',
].join('\n');

/** The water box and its run input (topol.tpr), made with the serial gmx as a user would. */
function prepare(dir: string): void {
  writeFileSync(join(dir, 'topol.top'), TOPOLOGY);
  writeFileSync(join(dir, 'md.mdp'), PARAMETERS);
  const gmx = (args: string[]): void => {
    execFileSync('gmx', ['-quiet', ...args], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, GMX_MAXBACKUP: '-1' },
    });
  };
  gmx(['solvate', '-cs', 'spc216', '-box', '3', '3', '3', '-o', 'water.gro', '-p', 'topol.top']);
  gmx(['grompp', '-f', 'md.mdp', '-c', 'water.gro', '-p', 'topol.top', '-o', 'topol.tpr', '-maxwarn', '2']);
}

test('GROMACS water box with PME, domain decomposition on two ranks (Open MPI, C++)', async (t) => {
  await checkApp(
    t,
    {
      name: 'gromacs water',
      flavor: 'openmpi',
      program: 'gmx_mpi',
      args: [
        '-quiet',
        'mdrun',
        '-s',
        'topol.tpr',
        '-ntomp',
        '1',
        '-reprod',
        '-dlb',
        'no',
        '-noconfout',
        '-g',
        'md.log',
      ],
      prepare,
      results: gromacsResults,
      env: { OMP_NUM_THREADS: '1', GMX_MAXBACKUP: '-1' },
      // Measured: 2,214 calls per rank (1,640 MPI_Sendrecv of the halo exchange, 402 MPI_Alltoall of PME, 71 Bcast…).
      minCallsPerRank: 1000,
      minCallsOf: { MPI_Sendrecv: 1000, MPI_Alltoall: 200 },
      known: {
        'resource-leak':
          'GROMACS frees neither one communicator it makes with MPI_Comm_split (in a static function of libgromacs_mpi) nor the contiguous datatype gmx_pme_init creates',
      },
    },
    work,
  );
});
