// petsc4py (Python over PETSc 3.18, Debian's python3-petsc4py-real3.18, Open MPI, with mpi4py underneath): a
// script the test writes assembles the 5-point Laplacian of a 60 x 60 grid on a DMDA split over the ranks and
// solves it with CG and Jacobi to 1e-10. PETSc's vector scatters (persistent MPI_Send_init/MPI_Recv_init,
// MPI_Startall, MPI_Waitall), its reductions (MPI_Allreduce, its own MPI_Op_create ops) and the inner
// communicators PETSc caches as attributes of the user's, with attribute delete functions (keyvals made with
// MPI_Comm_create_keyval, deleted in PetscFinalize).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { petsc4pyResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-petsc4py-'));
after(() => rmSync(work, { recursive: true, force: true }));
/** Where Debian installs petsc4py for PETSc 3.18's real build: off Python's path (the package's README.Debian). */
const SITE = '/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real/lib/python3/dist-packages';
before(() => requireInstalled(['/usr/bin/python3', `${SITE}/petsc4py/__init__.py`, 'mpirun.openmpi']));

/** The script: a Poisson solve with KSP on a DMDA. */
const SCRIPT = `import sys
import petsc4py
petsc4py.init(sys.argv)
from petsc4py import PETSc


def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


comm = PETSc.COMM_WORLD
n = 60
# the 5-point Laplacian on an n x n grid, rows split over the ranks
da = PETSc.DMDA().create([n, n], stencil_width=1, comm=comm)
A = da.createMatrix()
(xs, xe), (ys, ye) = da.getRanges()
row = PETSc.Mat.Stencil()
col = PETSc.Mat.Stencil()
for j in range(ys, ye):
    for i in range(xs, xe):
        row.index = (i, j)
        row.field = 0
        A.setValueStencil(row, row, 4.0)
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= i + di < n and 0 <= j + dj < n:
                col.index = (i + di, j + dj)
                A.setValueStencil(row, col, -1.0)
A.assemble()
b = da.createGlobalVec()
b.set(1.0)
x = b.duplicate()
ksp = PETSc.KSP().create(comm)
ksp.setOperators(A)
ksp.setType("cg")
ksp.getPC().setType("jacobi")
ksp.setTolerances(rtol=1e-10)
ksp.solve(b, x)
r = b.duplicate()
A.mult(x, r)
r.aypx(-1.0, b)
it = ksp.getIterationNumber()
xn = x.norm()
rn = r.norm()
if comm.getRank() == 0:
    say("iterations %d reason %d" % (it, ksp.getConvergedReason()))
    say("solution norm %.8e" % xn)
    say("residual below %s" % (rn < 1e-7))
for o in (ksp, x, r, b, A, da):
    o.destroy()
`;

test('petsc4py (Open MPI: a Python script over PETSc, CG on a distributed Laplacian)', async (t) => {
  await checkApp(
    t,
    {
      name: 'petsc4py poisson',
      flavor: 'openmpi',
      program: '/usr/bin/python3',
      args: ['ksp.py'],
      env: { PYTHONPATH: SITE },
      prepare: (dir) => writeFileSync(join(dir, 'ksp.py'), SCRIPT),
      results: petsc4pyResults,
      minCallsPerRank: 1000,
      minCallsOf: {
        MPI_Startall: 100,
        MPI_Allreduce: 200,
        MPI_Comm_create_keyval: 1,
        MPI_Comm_delete_attr: 1,
      },
    },
    work,
  );
});
