// CP2K (Fortran; Quickstep DFT over DBCSR, ScaLAPACK/BLACS and ELPA; Debian's cp2k is built for Open MPI only):
// the energy of one water molecule, PBE with the MOLOPT basis, on two ranks. Its calls: reductions and broadcasts
// of its own Fortran code (MPI_Allreduce, MPI_Bcast), the BLACS' vector types made and freed per message, the
// halo and redistribution exchanges (MPI_Irecv/MPI_Isend/MPI_Waitall, MPI_Alltoallv). It passes thousands of slices
// of heap arrays, which once made the shim's heap check walk the heap for each (22 s against 2 s bare).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { cp2kResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-cp2k-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['cp2k.popt', 'mpirun.openmpi', '/usr/share/cp2k/BASIS_MOLOPT']));

const INPUT = `&GLOBAL
  PROJECT h2o
  RUN_TYPE ENERGY
  PRINT_LEVEL LOW
&END GLOBAL
&FORCE_EVAL
  METHOD Quickstep
  &DFT
    BASIS_SET_FILE_NAME BASIS_MOLOPT
    POTENTIAL_FILE_NAME GTH_POTENTIALS
    &MGRID
      CUTOFF 200
      REL_CUTOFF 30
    &END MGRID
    &QS
      EPS_DEFAULT 1.0E-10
    &END QS
    &SCF
      SCF_GUESS ATOMIC
      EPS_SCF 1.0E-6
      MAX_SCF 30
    &END SCF
    &XC
      &XC_FUNCTIONAL PBE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 8.0 8.0 8.0
    &END CELL
    &COORD
      O   0.000000    0.000000   -0.065587
      H   0.000000   -0.757136    0.520545
      H   0.000000    0.757136    0.520545
    &END COORD
    &KIND H
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q6
    &END KIND
  &END SUBSYS
&END FORCE_EVAL
`;

test('CP2K water molecule, Quickstep PBE energy (Open MPI, Fortran over DBCSR, ScaLAPACK and ELPA)', async (t) => {
  await checkApp(
    t,
    {
      name: 'cp2k water',
      flavor: 'openmpi',
      program: 'cp2k.popt',
      args: ['-i', 'h2o.inp'],
      prepare: (dir) => writeFileSync(join(dir, 'h2o.inp'), INPUT),
      results: cp2kResults,
      // One thread per rank: the run is about MPI, and two ranks already fill this machine's cores.
      env: { OMP_NUM_THREADS: '1' },
      // Measured: ~19,200 calls per rank (4,634 MPI_Allreduce, 2,021 MPI_Bcast, 1,563 MPI_Type_vector…).
      minCallsPerRank: 8000,
      minCallsOf: { MPI_Allreduce: 2000, MPI_Bcast: 800, MPI_Waitall: 300 },
      known: {
        'buffer-overlap':
          "the BLACS' combine reads a pending receive's buffer whose answer is sent only after (see the BLACS below), and CP2K posts two MPI_Irecvs into one buffer for two copies of the same bytes a rank sends itself on two communicators (point-to-point/recv-overlap.ts)",
        'resource-leak':
          "the BLACS' last MPI_Isend requests (BI_Asend) are never completed or freed before MPI_Finalize",
      },
    },
    work,
  );
});
