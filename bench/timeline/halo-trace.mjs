// The trace the trace-opening benches read: a halo exchange (Irecv/Isend to both neighbours, Waitall, an
// Allreduce every 50 iterations) built with mpicc.openmpi and run under `node dist/cli.js run --trace` (run
// scripts/build.mjs first). 4 ranks x 20,000 iterations make about 400,000 calls, 1.2 M events, 118 MB;
// 64 ranks x 1,250 iterations about as many events over 64 ranks.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HALO = `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 1000;
    double a = 1, b[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < iters; i++) {
        MPI_Request r[4];
        MPI_Irecv(&b[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b[1], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&a, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&a, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        if (i % 50 == 0) MPI_Allreduce(MPI_IN_PLACE, &a, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
`;

/**
 * Builds the halo program in `work`, runs it traced with the CLI of the checkout at `root` and returns the trace's
 * path (`work`/halo.mpitrace). (`root` is passed: this module is also bundled into CommonJS, without import.meta.)
 */
export function recordHaloTrace(root, work, np, iterations) {
  writeFileSync(join(work, 'halo.c'), HALO);
  execFileSync('mpicc.openmpi', ['-O2', '-g', '-o', 'halo', 'halo.c'], { cwd: work, stdio: 'inherit' });
  const trace = join(work, 'halo.mpitrace');
  execFileSync(
    process.execPath,
    [join(root, 'dist', 'cli.js'), 'run', '-np', String(np), '--trace', trace, './halo', String(iterations)],
    // More ranks than cores: Open MPI refuses them unless told it may oversubscribe.
    {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, OMPI_MCA_rmaps_base_oversubscribe: '1' },
    },
  );
  return trace;
}
