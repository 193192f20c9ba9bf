// PnetCDF's ncmpidiff (C over PnetCDF 1.12, Debian's pnetcdf-bin, Open MPI): two ranks compare two netCDF files
// in parallel, headers on rank 0 and broadcast, variables split between the ranks and read collectively
// (MPI_File_read_at_all through subarray file views), the differences reduced with MPI_Allreduce/MPI_Reduce. The
// files are written first by ncmpigen from CDL the test makes: a 3 x 40 x 40 temperature field, the second
// file's differing from the first by less than the tolerance ncmpidiff is given.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';
import { pnetcdfResults } from './results';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-pnetcdf-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['ncmpidiff', 'ncmpigen', 'mpirun.openmpi']));

/** A netCDF file in CDL: a record variable temp(time, y, x), an int per record, a coordinate; `bumped` adds 0.5 here and there. */
function cdl(name: string, bumped: boolean): string {
  const n = 40;
  const temp: string[] = [];
  for (let t = 0; t < 3; t++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) {
        let v = 280 + 10 * Math.sin(i / 5 + t) * Math.cos(j / 7);
        if (bumped && t === 2 && j >= 30 && i % 4 === 0) v += 0.5;
        temp.push(v.toFixed(6));
      }
  const x = Array.from({ length: n }, (_, i) => (i * 0.5).toFixed(2));
  return [
    `netcdf ${name} {`,
    'dimensions:',
    '  time = UNLIMITED ;',
    `  y = ${n} ;`,
    `  x = ${n} ;`,
    'variables:',
    '  double temp(time, y, x) ;',
    '    temp:units = "K" ;',
    '  int step(time) ;',
    '  float x(x) ;',
    '// global attributes:',
    '  :title = "mpiscope" ;',
    'data:',
    ` temp = ${temp.join(', ')} ;`,
    ' step = 0, 1, 2 ;',
    ` x = ${x.join(', ')} ;`,
    '}',
    '',
  ].join('\n');
}

function prepare(dir: string): void {
  for (const [name, bumped] of [
    ['a', false],
    ['b', true],
  ] as const) {
    writeFileSync(join(dir, `${name}.cdl`), cdl(name, bumped));
    // One process (MPI's singleton start): the files are the input, not what is checked.
    execFileSync('ncmpigen', ['-v', '5', '-o', `${name}.nc`, `${name}.cdl`], { cwd: dir, stdio: 'ignore' });
  }
}

test('PnetCDF ncmpidiff (Open MPI: collective MPI-IO reads through subarray views)', async (t) => {
  await checkApp(
    t,
    {
      name: 'pnetcdf ncmpidiff',
      flavor: 'openmpi',
      program: 'ncmpidiff',
      // Verbose, with a tolerance above the bump: every comparison is printed, and the files are "the same".
      args: ['-b', '-t', '1,0.01', 'a.nc', 'b.nc'],
      prepare,
      results: pnetcdfResults,
      minCallsPerRank: 50,
      minCallsOf: { MPI_File_open: 2, MPI_File_read_at_all: 3, MPI_File_set_view: 3 },
    },
    work,
  );
});
