// LAMMPS (C++, Debian's `lmp`, built for Open MPI only) on two of its own example inputs: the Lennard-Jones
// melt (halo exchange, neighbor lists, thermo reductions) and the solvated peptide (PPPM long-range
// electrostatics: distributed FFTs and their remaps, SHAKE constraints), the latter cut to 100 steps.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, copyExample, requireInstalled } from './app-run';
import { lammpsResults } from './results';

const EXAMPLES = '/usr/share/lammps/examples';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-lammps-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() =>
  requireInstalled(['lmp', 'mpirun.openmpi', `${EXAMPLES}/melt/in.melt`, `${EXAMPLES}/peptide/in.peptide`]),
);

test('LAMMPS melt (Open MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'lammps melt',
      flavor: 'openmpi',
      program: 'lmp',
      args: ['-in', 'in.melt', '-log', 'none'],
      prepare: (dir) => copyExample(`${EXAMPLES}/melt`, dir),
      results: lammpsResults,
      minCallsPerRank: 500,
    },
    work,
  );
});

test('LAMMPS peptide, 100 steps (Open MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'lammps peptide',
      flavor: 'openmpi',
      program: 'lmp',
      args: ['-in', 'in.peptide', '-log', 'none'],
      prepare: (dir) => {
        copyExample(`${EXAMPLES}/peptide`, dir);
        // A copy, never the file under /usr/share: 100 steps keep the tier short and still cover two
        // thermo outputs and several neighbor-list rebuilds.
        const input = join(dir, 'in.peptide');
        const text = readFileSync(input, 'utf8');
        const shorter = text.replace(/^run\s+\d+/m, 'run\t\t100');
        if (shorter === text) throw new Error(`no "run N" line in ${input}`);
        writeFileSync(input, shorter);
      },
      results: lammpsResults,
      minCallsPerRank: 2000,
    },
    work,
  );
});
