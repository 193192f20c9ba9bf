// NWChem (Fortran, with Global Arrays over ARMCI-MPI's one-sided windows and ScaLAPACK/BLACS in C), which
// Debian builds for both MPIs: a B3LYP/6-31G* energy and gradient of water. Its own Fortran MPI calls go
// through each MPI's Fortran binding; the C libraries call MPI's C functions.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled, type Flavor } from './app-run';
import { nwchemResults } from './results';

const INPUT = `start water
title "Water B3LYP/6-31G* energy and gradient"
geometry units angstrom
  O   0.000   0.000   0.117
  H   0.000   0.757  -0.467
  H   0.000  -0.757  -0.467
end
basis
  * library 6-31g*
end
dft
  xc b3lyp
end
task dft gradient
`;

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-nwchem-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['nwchem.openmpi', 'nwchem.mpich', 'mpirun.openmpi', 'mpirun.mpich']));

/** Real leaks of NWChem (Global Arrays' process groups and a BLACS grid never freed), judged from the trace. */
const KNOWN = {
  'resource-leak':
    'communicators from MPI_Comm_create/dup/split (Global Arrays groups, a BLACS grid) are never freed before MPI_Finalize',
};

for (const flavor of ['mpich', 'openmpi'] as Flavor[]) {
  test(`NWChem DFT energy and gradient of water (${flavor})`, async (t) => {
    await checkApp(
      t,
      {
        name: 'nwchem dft',
        flavor,
        program: `nwchem.${flavor}`,
        args: ['water.nw'],
        prepare: (dir) => writeFileSync(join(dir, 'water.nw'), INPUT),
        results: nwchemResults,
        minCallsPerRank: 10_000,
        known: KNOWN,
        // Debian's README.Debian for nwchem-mpich: ARMCI's MPI_Win_allocate path gives wrong results on
        // MPICH 4.0 (nwchemgit/nwchem#633); the bare run needs it as much as the run under mpiscope.
        ...(flavor === 'mpich' ? { env: { ARMCI_USE_WIN_ALLOCATE: '0' } } : {}),
      },
      work,
    );
  });
}
