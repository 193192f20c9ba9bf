// FORM, the symbolic manipulation system (C; `parform` is its MPI build, from Debian's form package): rank 0
// is the master that distributes the terms of each expression over the workers in buckets and merges their
// sorted output, probing for whichever worker is ready (MPI_Iprobe, MPI_Probe from MPI_ANY_SOURCE) and
// receiving with MPI_Recv; the workers answer with MPI_Ssend. The script expands two polynomials, multiplies
// them, substitutes and evaluates the product at one point: 8 million generated terms.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { formResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-form-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['parform', 'mpirun.openmpi']));

const SCRIPT = `Symbols a,b,c,d,e;
Local F = (a+b+c+d+e)^14;
Local G = (a-b+2*c-d+e)^8;
.sort
Local H = F*G;
id a = b + 1;
.sort
Drop F,G;
Local N = H;
id b = 1;
id c = 1;
id d = 1;
id e = 1;
Print N;
.end
`;

test('FORM parform (Open MPI, C: a master merging workers\u2019 sorted terms)', async (t) => {
  await checkApp(
    t,
    {
      name: 'form polynomial',
      flavor: 'openmpi',
      program: 'parform',
      args: ['poly.frm'],
      prepare: (dir) => writeFileSync(join(dir, 'poly.frm'), SCRIPT),
      results: formResults,
      minCallsPerRank: 50,
      known: {
        'resource-leak':
          "parform's master sends with MPI_Isend and never completes the last of those requests before MPI_Finalize",
      },
    },
    work,
  );
});
