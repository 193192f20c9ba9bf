// MUMPS, the multifrontal sparse direct solver (Fortran over ScaLAPACK/BLACS; Debian's mumps-test builds its
// example drivers for Open MPI only): `dsimpletest` reads a matrix in coordinate form and a right-hand side
// from its standard input on the host rank, analyses, factors and solves it on both ranks. The job's
// standard input goes through mpiscope and the launcher to rank 0. The matrix here is the 5-point Laplacian
// of a 60 x 60 grid, whose factorisation spreads its fronts over both ranks; its solver's workers ask for
// work and results with MPI_ANY_SOURCE receives and MPI_Iprobe.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { mumpsResults } from './results';

const DRIVER = '/usr/lib/mumps/dsimpletest';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-mumps-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled([DRIVER, 'mpirun.openmpi']));

/**
 * dsimpletest's input (N, NZ, the entries "row col value", then the right-hand side): the 5-point Laplacian
 * of an n x n grid, with the right-hand side of the solution x[i] = 1 + i mod 5, so the printed solution is
 * checkable by eye.
 */
export function laplacianInput(n: number): string {
  const entries: string[] = [];
  const rhs = new Array<number>(n * n).fill(0);
  const x = (i: number) => 1 + (i % 5);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const r = i * n + j;
      entries.push(`${r + 1} ${r + 1} 4.0`);
      rhs[r] = (rhs[r] ?? 0) + 4 * x(r);
      for (const [a, b] of [
        [i - 1, j],
        [i + 1, j],
        [i, j - 1],
        [i, j + 1],
      ] as const) {
        if (a < 0 || a >= n || b < 0 || b >= n) continue;
        const c = a * n + b;
        entries.push(`${r + 1} ${c + 1} -1.0`);
        rhs[r] = (rhs[r] ?? 0) - x(c);
      }
    }
  return [`${n * n} :N`, `${entries.length} :NZ`, ...entries, ...rhs.map((v) => v.toFixed(1)), ''].join('\n');
}

test('MUMPS dsimpletest (Open MPI, Fortran over ScaLAPACK, input on stdin)', async (t) => {
  await checkApp(
    t,
    {
      name: 'mumps dsimpletest',
      flavor: 'openmpi',
      program: DRIVER,
      args: [],
      prepare: (dir) => writeFileSync(join(dir, 'laplacian.in'), laplacianInput(60)),
      stdin: 'laplacian.in',
      results: mumpsResults,
      minCallsPerRank: 100,
      // The solution's last printed digits (17 significant) move between bare runs: its sums' order follows
      // which rank's contribution arrives first.
      noise: 1e-12,
    },
    work,
  );
});
