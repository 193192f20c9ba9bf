// ABINIT 9 (Fortran; every MPI call through `use mpi`, which under Open MPI reaches mpiscope only through the
// shim's Fortran wrappers; Debian builds it for Open MPI only): the plane-wave ground state of silicon from its
// own tutorial (tbase3_1: 2 atoms, a shifted 2x2x2 k-point grid), run with its band/FFT parallelism
// (paral_kgb 1, the bands split over both ranks: LOBPCG's collectives and all-to-all transposes), not the
// k-point split alone, which makes only a handful of calls.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { abinitResults } from './results';

const EXAMPLE = '/usr/share/doc/abinit/examples/tbase3_1.abi';
const PSPDIR = '/usr/share/abinit/psp';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-abinit-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() =>
  requireInstalled([
    'abinit',
    'mpirun.openmpi',
    EXAMPLE,
    `${PSPDIR}/Pseudodojo_nc_sr_04_pw_standard_psp8/Si.psp8`,
  ]),
);

/** The tutorial's input with the packaged pseudopotentials' folder and the bands split over two ranks. */
function input(): string {
  const text = readFileSync(EXAMPLE, 'utf8');
  const located = text.replace(/"\$ABI_PSPDIR"/, `"${PSPDIR}"`);
  if (located === text) throw new Error(`${EXAMPLE} no longer names "$ABI_PSPDIR"`);
  return `${located}\nparal_kgb 1\nnpband 2\nnpkpt 1\nnpfft 1\nnband 8\nwfoptalg 114\n`;
}

test('ABINIT (Open MPI, Fortran use mpi: band/FFT parallelism)', async (t) => {
  await checkApp(
    t,
    {
      name: 'abinit si',
      flavor: 'openmpi',
      program: 'abinit',
      args: ['si.abi'],
      prepare: (dir) => writeFileSync(join(dir, 'si.abi'), input()),
      results: (_stdout, dir) => abinitResults(readFileSync(join(dir, 'si.abo'), 'utf8')),
      minCallsPerRank: 1_000,
    },
    work,
  );
});
