// The HPC Challenge benchmark (C; Debian builds it for Open MPI only): HPL, DGEMM, STREAM, PTRANS,
// RandomAccess, FFT and the latency/bandwidth ping-pongs, each of which checks its own results. Run on a
// 1 x 2 process grid with HPL's N = 1000 (the example input's size; the other tests size themselves from it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, RANKS, requireInstalled } from './app-run';
import { hpccResults } from './results';

const EXAMPLE = '/usr/share/doc/hpcc/examples/_hpccinf.txt';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-hpcc-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['hpcc', 'mpirun.openmpi', EXAMPLE]));

/** The example input with a 1 x RANKS process grid (it is written for 2 x 2). */
function input(): string {
  const text = readFileSync(EXAMPLE, 'utf8');
  const grid = text.replace(/^\d+(\s+Ps)$/m, '1$1').replace(/^\d+(\s+Qs)$/m, `${RANKS}$1`);
  if (grid === text) throw new Error(`no "Ps"/"Qs" lines in ${EXAMPLE}`);
  return grid;
}

test('HPC Challenge (Open MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'hpcc',
      flavor: 'openmpi',
      program: 'hpcc',
      args: [],
      prepare: (dir) => writeFileSync(join(dir, 'hpccinf.txt'), input()),
      results: hpccResults,
      minCallsPerRank: 10_000,
      known: {
        'potential-deadlock':
          "bench_lat_bw: rank 0 sends an empty message (tag 102) to rank 1 and then joins a broadcast rooted at rank 1, which receives that message only after the broadcast: the MPI standard's example of an erroneous program (deadlock if the send is not buffered and the broadcast synchronizes); harmless with an empty message in practice",
      },
    },
    work,
  );
});
