// OpenFOAM (C++; Debian builds it for Open MPI only): icoFoam on the lid-driven cavity of its tutorials, cut
// into two subdomains by decomposePar, 100 time steps. The field solvers exchange processor-patch values with
// MPI_Isend/MPI_Irecv/MPI_Waitall and reduce with MPI_Allreduce; the "collated" file handler with a write
// thread (maxThreadFileBufferSize > 0) asks for MPI_THREAD_MULTIPLE and gathers each written time step to the
// master from that thread (MPI_Gatherv on a communicator of its own, made with MPI_Comm_create).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, copyExample, RANKS, requireInstalled } from './app-run';
import { openfoamResults } from './results';

const CAVITY = '/usr/share/doc/openfoam-examples/examples/incompressible/icoFoam/cavity/cavity';
// The tools find their etc/ files from it (Debian's /usr/bin wrappers do not set it).
const env = { WM_PROJECT_DIR: '/usr/share/openfoam' };
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-openfoam-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() =>
  requireInstalled(['icoFoam', 'blockMesh', 'decomposePar', 'mpirun.openmpi', CAVITY, env.WM_PROJECT_DIR]),
);

/** The tutorial case, meshed and decomposed into RANKS subdomains (serial tools, run before either run). */
function prepare(dir: string): void {
  copyExample(CAVITY, dir);
  execFileSync('chmod', ['-R', 'u+w', dir]);
  writeFileSync(
    join(dir, 'system', 'decomposeParDict'),
    `FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }\n` +
      `numberOfSubdomains ${RANKS};\nmethod simple;\ncoeffs { n (${RANKS} 1 1); }\n`,
  );
  const opts = { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' as const };
  execFileSync('blockMesh', [], opts);
  execFileSync('decomposePar', ['-fileHandler', 'collated'], opts);
}

test('OpenFOAM icoFoam, lid-driven cavity (Open MPI, C++, a write thread)', async (t) => {
  await checkApp(
    t,
    {
      name: 'openfoam cavity',
      flavor: 'openmpi',
      program: 'icoFoam',
      args: ['-parallel', '-fileHandler', 'collated', '-opt-switch', 'maxThreadFileBufferSize=1000000000'],
      prepare,
      results: openfoamResults,
      env,
      // Measured: 26,700 calls per rank (8,938 MPI_Allreduce, 5,353 each of MPI_Isend, MPI_Irecv, MPI_Waitall…).
      minCallsPerRank: 10_000,
      minCallsOf: { MPI_Allreduce: 5000, MPI_Isend: 3000, MPI_Waitall: 3000, MPI_Gatherv: 5 },
      known: {
        'resource-leak':
          "Pstream takes the group of MPI_COMM_WORLD (MPI_Comm_group in UPstream::allocatePstreamCommunicator) and never frees it: freePstreamCommunicator skips the world communicator's index",
      },
    },
    work,
  );
});
