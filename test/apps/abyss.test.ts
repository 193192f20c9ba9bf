// ABySS's parallel assembler ABYSS-P (C++; Debian's abyss builds it for Open MPI): the de Bruijn graph's k-mers
// are spread over the ranks, which exchange k-mers and edges through ABySS's CommLayer — MPI_Send, one
// MPI_Irecv from MPI_ANY_SOURCE kept posted and polled with MPI_Request_get_status, then MPI_Test. (Each empty
// poll was two records until the shim held and forgot empty MPI_Request_get_status polls: this run took
// 4 minutes and wrote a 26.8 GB trace instead of 4 s.) Input: error-free 100-base reads of an 8,000-base
// random genome, one every 5 bases, which it assembles into one contig (erosion and coverage cuts off, as
// the reads have no errors).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { abyssResults, genomeReads } from './results';

const ABYSS_P = '/usr/lib/abyss/ABYSS-P';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-abyss-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled([ABYSS_P, 'mpirun.openmpi']));

test('ABySS ABYSS-P (Open MPI, C++: a wildcard receive polled with MPI_Request_get_status)', async (t) => {
  await checkApp(
    t,
    {
      name: 'abyss genome',
      flavor: 'openmpi',
      program: ABYSS_P,
      args: ['-k31', '-e0', '-E0', '-c0', '-o', 'contigs.fa', 'reads.fasta'],
      prepare: (dir) => writeFileSync(join(dir, 'reads.fasta'), genomeReads(8000, 100, 5)),
      results: (stdout, dir) => abyssResults(stdout, readFileSync(join(dir, 'contigs.fa'), 'utf8')),
      minCallsPerRank: 1_000,
      known: {
        'resource-leak':
          "ABySS's CommLayer keeps one MPI_Irecv from MPI_ANY_SOURCE posted for the next message and ends without cancelling it: each rank's last receive is still active at MPI_Finalize",
      },
    },
    work,
  );
});
