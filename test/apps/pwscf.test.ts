// Quantum ESPRESSO's plane-wave DFT code pw.x (Fortran over FFTW, ScaLAPACK and the BLACS; Debian builds it for
// Open MPI only): a self-consistent calculation of diamond on two ranks, whose plane waves and FFT grids are
// split between the ranks (all-to-all transposes of the parallel 3-D FFT, reductions of the charge density,
// broadcasts of the input). The pseudopotential is one the package ships with its EPW examples.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { pwscfResults } from './results';

const PSEUDO = '/usr/share/doc/quantum-espresso/examples/EPW/diamond/pp/C_3.98148.UPF.gz';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-pwscf-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['pw.x', 'mpirun.openmpi', PSEUDO]));

const INPUT = `&control
  calculation = 'scf'
  prefix = 'diamond'
  pseudo_dir = './'
  outdir = './tmp'
/
&system
  ibrav = 2, celldm(1) = 6.64, nat = 2, ntyp = 1,
  ecutwfc = 40.0, occupations = 'smearing', smearing = 'mv', degauss = 0.02
/
&electrons
  conv_thr = 1.0d-9
/
ATOMIC_SPECIES
  C 12.01078 C_3.98148.UPF
ATOMIC_POSITIONS alat
  C 0.00 0.00 0.00
  C 0.25 0.25 0.25
K_POINTS automatic
  6 6 6 0 0 0
`;

function prepare(dir: string): void {
  writeFileSync(join(dir, 'C_3.98148.UPF'), execFileSync('zcat', [PSEUDO]));
  writeFileSync(join(dir, 'scf.in'), INPUT);
}

test('Quantum ESPRESSO pw.x, diamond self-consistent field (Open MPI, Fortran)', async (t) => {
  await checkApp(
    t,
    {
      name: 'pwscf diamond',
      flavor: 'openmpi',
      program: 'pw.x',
      args: ['-in', 'scf.in'],
      prepare,
      results: pwscfResults,
      env: { OMP_NUM_THREADS: '1' },
      // Measured: 20,060 calls per rank (5,153 MPI_Alltoall of the FFT transposes, 1,708 Allreduce, 600 Gatherv…).
      minCallsPerRank: 1000,
      minCallsOf: { MPI_Alltoall: 2000, MPI_Allreduce: 500, MPI_Gatherv: 300 },
      known: {
        'resource-leak':
          'pw.x frees neither the communicators it splits for its levels of parallelism nor those of its BLACS grid (MPI_Comm_split, MPI_Comm_create, MPI_Comm_dup)',
      },
    },
    work,
  );
});
