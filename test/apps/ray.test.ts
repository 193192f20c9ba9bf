// Ray, the de novo genome assembler (C++ over RayPlatform; Debian builds it for Open MPI only): every rank
// polls with MPI_Iprobe(MPI_ANY_SOURCE) and MPI_Recv and sends with MPI_Isend, tens of thousands of calls a
// second per rank for the whole run, the heaviest call rate of this tier. Here it assembles error-free
// 100-base reads of a random 8,000-base genome (one read every 5 bases), which it rebuilds as one contig.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { genomeReads, rayResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-ray-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['Ray', 'mpirun.openmpi']));

test('Ray (Open MPI, C++ over RayPlatform: wildcard probes at a high call rate)', async (t) => {
  await checkApp(
    t,
    {
      name: 'ray genome',
      flavor: 'openmpi',
      program: 'Ray',
      args: ['-s', 'reads.fasta', '-o', 'assembly'],
      prepare: (dir) => writeFileSync(join(dir, 'reads.fasta'), genomeReads(8000, 100, 5)),
      results: (_stdout, dir) => rayResults(readFileSync(join(dir, 'assembly', 'OutputNumbers.txt'), 'utf8')),
      minCallsPerRank: 10_000,
      known: {
        'resource-leak':
          "RayPlatform's MessagesHandler sends every message with MPI_Isend into a buffer it registers as dirty and tests those requests only at the next tick's cleanDirtyBuffers: the last tick's sends are never completed before MPI_Finalize",
        'unmatched-message':
          'the last messages a rank sends itself (tag 5) arrive after its receive loop stopped: its MPI_Iprobe(MPI_ANY_SOURCE) polling ends when the rank leaves, before the message is received',
      },
    },
    work,
  );
});
