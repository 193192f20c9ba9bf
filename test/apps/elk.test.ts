// Elk (all-electron LAPW, Fortran; Debian builds it for Open MPI only), whose every MPI call is made from
// Fortran (`use mpi`: broadcasts, barriers, in-place allreduces over k-points): invisible to mpiscope unless
// the shim's Fortran wrappers catch Open MPI's Fortran binding. Its basic silicon example, ground state only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { elkResults } from './results';

const EXAMPLE = '/usr/share/doc/elk-lapw/examples/basic/Si/elk.in';
const SPECIES = '/usr/share/elk-lapw/species/';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-elk-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['elk-lapw', 'mpirun.openmpi', EXAMPLE, `${SPECIES}Si.in`]));

/** The example with the installed species folder, and only its ground-state task (not the band structure). */
function input(): string {
  const text = readFileSync(EXAMPLE, 'utf8');
  const edited = text
    .replace(/^sppath\s*\n\s*'[^']*'/m, `sppath\n  '${SPECIES}'`)
    // Elk reads a block's lines up to the next blank one: keep that line.
    .replace(/^(tasks[ \t]*\n[ \t]*0[ \t]*\n)[ \t]*20[ \t]*\n/m, '$1');
  if (!edited.includes(SPECIES) || !/^tasks[ \t]*\n[ \t]*0[ \t]*\n[ \t]*\n/m.test(edited))
    throw new Error(`${EXAMPLE} no longer has the sppath and tasks this test edits`);
  return edited;
}

test('Elk silicon ground state (Open MPI, Fortran)', async (t) => {
  await checkApp(
    t,
    {
      name: 'elk si',
      flavor: 'openmpi',
      program: 'elk-lapw',
      args: [],
      prepare: (dir) => writeFileSync(join(dir, 'elk.in'), input()),
      results: elkResults,
      // Measured: 202 calls per rank (138 Bcast, 31 Barrier, 28 Allreduce…), all from Fortran.
      minCallsPerRank: 100,
      minCallsOf: { MPI_Allreduce: 10, MPI_Bcast: 50 },
      known: {
        'resource-leak':
          'Elk duplicates MPI_COMM_WORLD at start and never frees it (elk-lapw does not even import mpi_comm_free_)',
      },
    },
    work,
  );
});
