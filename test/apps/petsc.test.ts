// PETSc (C; Debian builds it for Open MPI only): two of its own examples, compiled from the examples package
// against libpetsc_real. The star-forest test (vec/is/sf/tutorials/ex1.c) with PetscSF's window type on a window of
// MPI_Win_allocate_shared and lock synchronization: each round is a fence, accesses inside MPI_Win_lock epochs
// (MPI_Get, MPI_Accumulate), a fence with MPI_MODE_NOSUCCEED. The nonlinear driven-cavity solver
// (snes/tutorials/ex19.c) with PetscSF's neighbor type: its ghost exchanges are MPI_Ineighbor_alltoallv on an
// MPI_Dist_graph_create_adjacent communicator, and its unit types are MPI_Type_dup copies it unwraps with
// MPI_Type_get_contents.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { petscResults } from './results';

const EXAMPLES = '/usr/share/petsc/3.18/share/petsc/examples/src';
const SF = `${EXAMPLES}/vec/is/sf/tutorials/ex1.c`;
const SNES = `${EXAMPLES}/snes/tutorials/ex19.c`;
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-petsc-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['mpicc.openmpi', 'pkg-config', 'mpirun.openmpi', SF, SNES]));

/** Compiles one example into dir as ./app (the flags of PETSc's pkg-config file). */
function build(source: string): (dir: string) => void {
  return (dir) => {
    const flags = execFileSync('pkg-config', ['--cflags', '--libs', 'PETSc'], { encoding: 'utf8' });
    execFileSync('mpicc.openmpi', [
      '-O1',
      '-o',
      join(dir, 'app'),
      source,
      ...flags.trim().split(/\s+/),
      '-lm',
    ]);
  };
}

test('PETSc star forest on a shared-memory window with lock epochs between fences (Open MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'petsc sf window',
      flavor: 'openmpi',
      program: './app',
      args: [
        '-sf_type',
        'window',
        '-sf_window_sync',
        'lock',
        '-sf_window_flavor',
        'shared',
        '-test_all',
        '-test_bcastop',
        '0',
        '-test_fetchandop',
        '0',
      ],
      prepare: build(SF),
      results: petscResults,
      // Measured: 1,409-1,525 calls per rank (26 MPI_Win_lock, 21 MPI_Win_fence, 21 MPI_Type_get_contents…).
      minCallsPerRank: 500,
      minCallsOf: { MPI_Win_lock: 20, MPI_Win_fence: 10, MPI_Win_allocate_shared: 1 },
      known: {
        'call-order':
          "PetscSF's lock synchronization opens its lock epochs between two fences whose accesses are all inside them: by the standard's text the first fence opened an access epoch that the locks overlap, which MPICH and Open MPI accept (a warning: one-sided/rma-epochs.ts)",
      },
    },
    work,
  );
});

test('PETSc driven cavity, ghost exchanges by neighborhood collectives (Open MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'petsc snes ex19 neighbor',
      flavor: 'openmpi',
      program: './app',
      args: ['-sf_type', 'neighbor', '-da_refine', '1', '-snes_monitor', '-ksp_monitor'],
      prepare: build(SNES),
      results: petscResults,
      // Measured: about 4,000 calls per rank (956 MPI_Type_get_envelope, 459 MPI_Type_get_contents, 78
      // MPI_Ineighbor_alltoallv at 4 ranks…).
      minCallsPerRank: 1000,
      minCallsOf: { MPI_Ineighbor_alltoallv: 20, MPI_Type_get_contents: 20, MPI_Type_dup: 1 },
    },
    work,
  );
});
