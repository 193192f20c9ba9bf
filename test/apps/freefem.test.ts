// FreeFem++ (a finite element language, its MPI build FreeFem++-mpi from Debian's freefem++, Open MPI) running a
// script the test writes: an overlapping Schwarz iteration for a Poisson problem, each rank solving on its own
// strip of the mesh and the weighted pieces summed with mpiAllReduce (MPI_Allreduce) every iteration; then a
// blocking send of a piece to rank 0 (processor(0) << a), a nonblocking swap (Isend/Irecv/mpiWaitAll) and a
// broadcast. MPI reached through an interpreter's own MPI layer (FreeFem++'s mpi plugin, C++).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { freefemResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-freefem-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['FreeFem++-mpi', 'mpirun.openmpi']));

/** The script (FreeFem++'s language). */
const SCHWARZ = `// Overlapping Schwarz for -Laplace(u) = 1 on the unit square, u = 0 on the boundary: rank r solves on its
// vertical strip widened by an overlap, with the last global iterate as Dirichlet data on the strip's inner
// edges; the pieces, each weighted by its part of a partition of unity, are summed with mpiAllReduce.
int n = 40;
mesh Th = square(n, n);
fespace Vh(Th, P1);
real w = 1.0 / mpisize, ov = 0.1;
real a = mpirank * w, b = (mpirank + 1) * w;
Vh inside = (x > a - ov - 1e-9) * (x < b + ov + 1e-9);
mesh Thi = trunc(Th, inside > 0.5, label = 10);
fespace Vhi(Thi, P1);
Vh part = (x >= a - 1e-9) * (x < b - 1e-9) + (mpirank == mpisize - 1) * (x >= b - 1e-9);
Vh u = 0;
Vhi ui, vi;
for (int it = 0; it < 15; it++) {
  solve P(ui, vi) = int2d(Thi)(dx(ui) * dx(vi) + dy(ui) * dy(vi)) - int2d(Thi)(vi) + on(1, 2, 3, 4, ui = 0) + on(10, ui = u);
  Vh uiext = ui * inside;
  Vh mine = part * uiext;
  real[int] loc = mine[], glob(Vh.ndof);
  mpiAllReduce(loc, glob, mpiCommWorld, mpiSUM);
  real[int] diff = glob - u[];
  real change = diff.linfty;
  u[] = glob;
  if (mpirank == 0) cout << "iteration " << it << " change " << change << endl;
}
real umax = u[].max;
real energy = int2d(Th)(dx(u) * dx(u) + dy(u) * dy(u));
real[int] check(1), checkall(1);
check[0] = umax;
mpiAllReduce(check, checkall, mpiCommWorld, mpiMAX);
if (mpirank == 0) {
  cout << "max " << checkall[0] << endl;
  cout << "energy " << energy << endl;
}
// each rank sends its strip's piece to rank 0, which compares it with the sum
if (mpirank != 0) {
  Vh mine = part * ui * inside;
  processor(0) << mine[];
} else {
  for (int r = 1; r < mpisize; r++) {
    real[int] piece(Vh.ndof);
    processor(r) >> piece;
    cout << "piece from " << r << " max " << piece.max << endl;
  }
}
// the ranks swap their last local pieces with nonblocking calls, and rank 0's energy is broadcast
{
  Vh last = part * ui * inside;
  real[int] mineArr = last[], fromOther(Vh.ndof);
  int other = (mpirank + 1) % mpisize, from = (mpirank + mpisize - 1) % mpisize;
  mpiRequest[int] rq(2);
  Irecv(processor(from, rq[0]), fromOther);
  Isend(processor(other, rq[1]), mineArr);
  mpiWaitAll(rq);
  real e = energy;
  broadcast(processor(0), e);
  cout << "rank " << mpirank << " got max " << fromOther.max << " from " << from << " energy " << e << endl;
}
mpiBarrier(mpiCommWorld);
`;

test('FreeFem++-mpi (Open MPI: an overlapping Schwarz iteration, point-to-point and a broadcast)', async (t) => {
  await checkApp(
    t,
    {
      name: 'freefem schwarz',
      flavor: 'openmpi',
      program: 'FreeFem++-mpi',
      args: ['-nw', '-v', '0', 'schwarz.edp'],
      prepare: (dir) => writeFileSync(join(dir, 'schwarz.edp'), SCHWARZ),
      results: freefemResults,
      minCallsPerRank: 20,
      minCallsOf: { MPI_Allreduce: 16, MPI_Isend: 1, MPI_Irecv: 1, MPI_Bcast: 1 },
    },
    work,
  );
});
