// ScaLAPACK's LU test driver xdlu (Fortran driver over the PBLAS and the BLACS, which are C), from Debian's
// scalapack-mpi-test, built for Open MPI and for MPICH: random systems factored and solved on 1 x 1, 1 x 2 and
// 2 x 1 process grids, each checked by its residuals. The BLACS make most of the calls: point-to-point trees
// for their broadcasts and combines, MPI_Rsend, wildcard receives.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { scalapackResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-scalapack-'));
after(() => rmSync(work, { recursive: true, force: true }));
const dirOf = (flavor: string) => `/usr/lib/x86_64-linux-gnu/scalapack/${flavor}-tests`;
before(() =>
  requireInstalled(
    ['openmpi', 'mpich'].flatMap((f) => [`${dirOf(f)}/xdlu`, `${dirOf(f)}/LU.dat`, `mpirun.${f}`]),
  ),
);

/** The packaged input with the process grids that two ranks hold (it lists grids of up to 8). */
function input(flavor: string): string {
  const text = readFileSync(`${dirOf(flavor)}/LU.dat`, 'utf8');
  const edited = text
    .replace(/^\s*\d+(\s+number of process grids.*)$/m, '3$1')
    .replace(/^[\d ]+(\s+values of P)$/m, '1 1 2$1')
    .replace(/^[\d ]+(\s+values of Q)$/m, '1 2 1$1');
  if (edited.match(/^3\s+number of process grids/m) === null || !edited.includes('1 1 2'))
    throw new Error(`${dirOf(flavor)}/LU.dat no longer has the grid lines this test edits`);
  return edited;
}

const KNOWN = {
  'buffer-overlap':
    "BLACS's combine (BI_TreeComb) posts the MPI_Irecv of the answer and then sends its contribution from the same buffer: erroneous by the letter of MPI, but the answer is sent only after its sender heard of that send, so it is a warning, not a timing-dependent error",
};

for (const flavor of ['openmpi', 'mpich'] as const) {
  test(`ScaLAPACK xdlu (${flavor === 'openmpi' ? 'Open MPI' : 'MPICH'}, Fortran over C BLACS)`, async (t) => {
    await checkApp(
      t,
      {
        name: 'scalapack xdlu',
        flavor,
        program: `${dirOf(flavor)}/xdlu`,
        args: [],
        prepare: (dir) => writeFileSync(join(dir, 'LU.dat'), input(flavor)),
        results: scalapackResults,
        minCallsPerRank: 1_000,
        known: KNOWN,
      },
      work,
    );
  });
}
