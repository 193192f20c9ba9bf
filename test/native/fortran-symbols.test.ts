// The Fortran wrappers cover every Fortran symbol the installed MPIs export for the functions of the spec
// (mpif.h/use mpi: mpi_x_, mpi_x, mpi_x__, MPI_X; use mpi_f08: mpi_x_f08_, MPICH's mpi_x_f08ts_), and each
// wrapper's forwarding target (the library's own pmpi_x_, pmpi_x_f08_, pmpir_x_f08(ts)_) exists in that library.
// The libraries are found as the linker finds them: from a program built with each binding (ldd).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import api from '../../native-shim/spec/mpi-api.json';
import { installedFlavors, onPath, repoRoot } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-fsyms-'));
after(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Dynamic symbols of a shared library: defined ones, or the weak undefined ones. */
function symbols(lib: string, which: 'defined' | 'weak-undefined'): Set<string> {
  const out = run('nm', ['-D', which === 'defined' ? '--defined-only' : '--undefined-only', lib]);
  const names = out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 2 && (which === 'defined' || f[f.length - 2] === 'w'))
    .map((f) => f[f.length - 1] as string);
  return new Set(names);
}

/** The MPI libraries a Fortran program of each binding links, as the dynamic linker resolves them. */
function fortranLibraries(flavor: string): string[] {
  const src = join(work, `${flavor}.F90`);
  writeFileSync(
    src,
    [
      'subroutine with_mpi',
      '  use mpi',
      '  integer :: ierr',
      '  call MPI_Barrier(MPI_COMM_WORLD, ierr)',
      'end subroutine',
      'program p',
      '  use mpi_f08',
      '  call MPI_Init()',
      '  call MPI_Finalize()',
      'end program',
      '',
    ].join('\n'),
  );
  const exe = join(work, `${flavor}-app`);
  run(`mpif90.${flavor}`, ['-J', work, '-o', exe, src]);
  return run('ldd', [exe])
    .split('\n')
    .map((l) => /=>\s+(\S*mpi\S*)\s+\(/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined);
}

for (const flavor of installedFlavors()) {
  test(`${flavor}: every Fortran symbol of a spec function is wrapped and forwards to the library`, () => {
    assert.ok(
      onPath(`mpif90.${flavor}`),
      `mpif90.${flavor} is missing: install gfortran (scripts/setup.sh does)`,
    );
    run('bash', [
      join(repoRoot(), 'native-shim', 'build.sh'),
      `mpicc.${flavor}`,
      join(repoRoot(), 'native-shim', 'build', flavor),
    ]);
    const shim = join(repoRoot(), 'native-shim', 'build', flavor, 'libmpiscope.so');
    const libs = fortranLibraries(flavor);
    assert.ok(libs.length > 0, 'no MPI library found');
    const exported = new Set<string>();
    for (const lib of libs) for (const s of symbols(lib, 'defined')) exported.add(s);
    const wrapped = symbols(shim, 'defined');
    const forwards = symbols(shim, 'weak-undefined');
    let seen = 0;
    const missing: string[] = [];
    // Functions the spec gives no Fortran wrapper ("fortran": false: strings with hidden lengths, MPI-IO, status
    // inputs…; "since": MPI-4 calls) are left to the library's Fortran layer, and not looked for here.
    const fortranFunctions = api.functions.filter(
      (f) => !('fortran' in f && f.fortran === false) && !('since' in f),
    );
    for (const f of fortranFunctions) {
      const lower = f.name.toLowerCase();
      const spellings = [
        lower,
        `${lower}_`,
        `${lower}__`,
        f.name.toUpperCase(),
        `${lower}_f08_`,
        `${lower}_f08ts_`,
      ];
      for (const s of spellings) {
        if (!exported.has(s)) continue;
        seen++;
        if (!wrapped.has(s)) missing.push(s);
      }
    }
    assert.deepEqual(missing, [], 'Fortran symbols of spec functions the shim does not wrap');
    assert.ok(seen >= fortranFunctions.length * 4, `only ${seen} Fortran symbols found in ${libs.join(' ')}`);
    // Each forwarding target the library's Fortran layer should have: the profiling twin of a wrapped symbol.
    const unresolved = [...forwards]
      .filter((s) => /^pmpir?_\w+_$/.test(s))
      .filter((s) => {
        const user = s.replace(/^pmpir_/, 'mpi_').replace(/^pmpi_/, 'mpi_');
        return exported.has(user) && !exported.has(s);
      });
    assert.deepEqual(unresolved, [], 'wrappers whose forwarding target the library does not export');
  });
}
