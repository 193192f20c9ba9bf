// MPB (the MIT Photonic Bands eigensolver, C over FFTW's MPI transforms and parallel HDF5; Debian's mpb-mpi is
// built for Open MPI only): the TM bands of a triangular lattice of dielectric rods, the classic example of its
// manual, on two ranks. FFTW's transposes (MPI_Sendrecv), the eigensolver's reductions (MPI_Allreduce) and the
// field files written through MPI-IO (MPI_File_write_at) all run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { mpbResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-mpb-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['mpb-mpi', 'mpirun.openmpi']));

const CONTROL = `(set! num-bands 8)
(set! geometry-lattice (make lattice (size 1 1 no-size)
                         (basis1 (/ (sqrt 3) 2) 0.5)
                         (basis2 (/ (sqrt 3) 2) -0.5)))
(set! geometry (list (make cylinder
                       (center 0 0 0) (radius 0.2) (height infinity)
                       (material (make dielectric (epsilon 12))))))
(set! k-points (list (vector3 0 0 0) (vector3 0 0.5 0) (vector3 (/ -3) (/ 3) 0) (vector3 0 0 0)))
(set! k-points (interpolate 4 k-points))
(set! resolution 32)
(run-tm)
`;

test('MPB triangular lattice of rods, TM bands (Open MPI, C over FFTW-MPI and MPI-IO)', async (t) => {
  await checkApp(
    t,
    {
      name: 'mpb rods',
      flavor: 'openmpi',
      program: 'mpb-mpi',
      args: ['tri.ctl'],
      prepare: (dir) => writeFileSync(join(dir, 'tri.ctl'), CONTROL),
      results: mpbResults,
      // Measured: 3,085 calls per rank (1,467 MPI_Allreduce, 844 MPI_Sendrecv, 27 MPI_File_write_at…).
      minCallsPerRank: 1000,
      minCallsOf: { MPI_Allreduce: 500, MPI_Sendrecv: 300, MPI_File_write_at: 10 },
      known: {
        'resource-leak':
          "FFTW's MPI plans duplicate the communicator (fftw_mpi_mkproblem_dft) and MPB does not destroy every plan before MPI_Finalize",
      },
    },
    work,
  );
});
