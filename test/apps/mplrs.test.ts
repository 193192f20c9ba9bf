// mplrs, lrslib's parallel vertex enumeration (C; Debian builds it for Open MPI): a master hands subtrees of
// the reverse search to workers that ask for work, a consumer collects their output — a master/worker code
// on MPI_ANY_SOURCE receives and MPI_Iprobe, which needs at least three ranks. The input is a 7-dimensional
// cube cut by 14 fixed random halfspaces (H-representation, written by the test).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { mplrsResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-mplrs-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['mplrs', 'mpirun.openmpi']));

/** -1 <= x_i <= 1 in d dimensions, and `cuts` halfspaces a.x <= d with a from a fixed-seed generator. */
function polytope(d: number, cuts: number): string {
  const rows: number[][] = [];
  for (let i = 0; i < d; i++) {
    const e = Array.from({ length: d }, (_, j) => (j === i ? 1 : 0));
    rows.push([1, ...e.map((v) => -v)], [1, ...e]);
  }
  let seed = 3;
  for (let k = 0; k < cuts; k++) {
    const a = Array.from({ length: d }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return ((seed >>> 16) % 7) - 3;
    });
    rows.push([d, ...a.map((v) => -v)]);
  }
  const body = rows.map((r) => r.join(' ')).join('\n');
  return `cut cube\nH-representation\nbegin\n${rows.length} ${d + 1} rational\n${body}\nend\n`;
}

test('mplrs (Open MPI, C master/worker on wildcard receives, 3 ranks)', async (t) => {
  await checkApp(
    t,
    {
      name: 'mplrs cube',
      flavor: 'openmpi',
      program: 'mplrs',
      args: ['cube.ine', 'cube.ext'],
      ranks: 3,
      prepare: (dir) => writeFileSync(join(dir, 'cube.ine'), polytope(7, 14)),
      results: (_stdout, dir) => mplrsResults(readFileSync(join(dir, 'cube.ext'), 'utf8')),
      minCallsPerRank: 50,
      known: {
        'resource-leak':
          'mplrs posts receives for messages that may never come (a worker its stop signal, the master requests for work) and ends without cancelling them: their requests are still active at MPI_Finalize',
        'unmatched-message': 'the same receives: never satisfied, since no matching message was sent',
      },
    },
    work,
  );
});
