// The apps tier's reading of application output (test/apps/results.ts): what counts as a scientific result,
// and when two runs' results are the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  abinitResults,
  abyssResults,
  formResults,
  genomeReads,
  lammpsResults,
  lineDiffers,
  meepResults,
  mplrsResults,
  neuronResults,
  mumpsResults,
  nwchemResults,
  openfoamResults,
  petscResults,
  pwscfResults,
  rayResults,
  scalapackResults,
} from '../apps/results';

test('result lines agree up to two units in the last printed digit, integers and words exactly', () => {
  assert.equal(
    lineDiffers('Total DFT energy = -76.408653519129', '  Total DFT energy =  -76.408653519128'),
    undefined,
  );
  assert.match(
    lineDiffers('Total DFT energy = -76.408653519129', 'Total DFT energy = -76.408653519139') ?? '',
    /vs/,
  );
  assert.equal(lineDiffers('HPL_RnormI=2.40163e-12', 'HPL_RnormI=2.40165e-12'), undefined);
  assert.match(lineDiffers('HPL_RnormI=2.40163e-12', 'HPL_RnormI=2.40183e-12') ?? '', /vs/);
  assert.match(lineDiffers('Neighbor list builds = 12', 'Neighbor list builds = 13') ?? '', /12 vs 13/);
  assert.match(lineDiffers('...... PASSED', '...... FAILED') ?? '', /PASSED/);
  assert.match(lineDiffers('1 2 3', '1 2') ?? '', /different fields/);
  // An application's own measured noise widens the slack for its non-integer numbers, not for its integers.
  assert.equal(lineDiffers('E = -76.408653519348', 'E = -76.408653519129', 1e-8), undefined);
  assert.match(lineDiffers('E = -76.408653519348', 'E = -76.408663519129', 1e-8) ?? '', /vs/);
  assert.match(lineDiffers('builds = 12', 'builds = 13', 1e-8) ?? '', /12 vs 13/);
});

const LAMMPS = `Setting up Verlet run ...
Per MPI rank memory allocation (min/avg/max) = 2.805 | 2.805 | 2.805 Mbytes
Step Temp E_pair E_mol TotEng Press
       0            3   -6.7733681            0   -2.2744931   -3.7033504
     250    1.6645597   -4.7774327            0   -2.2812174    5.7526089
Loop time of 0.30747 on 2 procs for 250 steps with 4000 atoms
Performance: 351253.343 tau/day, 813.086 timesteps/s
Neighbor list builds = 12
---------------- Step        0 ----- CPU =      0.0000000 (sec) ----------------
TotEng   =     -5237.4580 KinEng   =      1134.9186 Temp     =       282.1005
Loop time of 1.2 on 2 procs for 100 steps with 2004 atoms
mpiscope: /usr/bin/lmp, 2 ranks, Open MPI
`;

test('LAMMPS results: thermo rows of both styles and neighbor counts, no timings, memory or mpiscope report', () => {
  assert.deepEqual(
    lammpsResults(LAMMPS).map((l) => l.trim()),
    [
      'Step Temp E_pair E_mol TotEng Press',
      '0            3   -6.7733681            0   -2.2744931   -3.7033504',
      '250    1.6645597   -4.7774327            0   -2.2812174    5.7526089',
      'Neighbor list builds = 12',
      '---------------- Step        0',
      'TotEng   =     -5237.4580 KinEng   =      1134.9186 Temp     =       282.1005',
    ],
  );
});

test('NWChem results: the DFT energies and gradient table, the PSPW energies without their per-ion share', () => {
  const out = `         Total DFT energy =      -76.408653519129
      One electron energy =     -123.1
                 x          y          z           x          y          z
   1 O       0.000000   0.000000   0.220720    0.000000   0.000000  -0.016324
 Time after variat. SCF:      0.4
 total     energy    :  -0.1523878840E+02 (   -0.50796E+01/ion)
 Total PSPW energy     :  -0.1523878840E+02
 total orbital energy:  -0.4743269817E+01 (   -0.11858E+01/electron)
`;
  assert.deepEqual(
    nwchemResults(out).map((l) => l.trim().replace(/\s+/g, ' ')),
    [
      'Total DFT energy = -76.408653519129',
      'One electron energy = -123.1',
      '1 O 0.000000 0.000000 0.220720 0.000000 0.000000 -0.016324',
      'total energy : -0.1523878840E+02',
      'Total PSPW energy : -0.1523878840E+02',
    ],
  );
});

test('a ScaLAPACK driver: each test without its times and rate, and the totals', () => {
  const out = [
    'TIME     M     N  NB NRHS NBRHS    P    Q  LU Time Sol Time  MFLOPS  CHECK',
    '---- ----- ----- --- ---- ----- ---- ---- -------- -------- -------- ------',
    'WALL     4     4   2     1    1    1    1     0.00     0.00     0.59 PASSED',
    'WALL    13    13   4     9    5    1    2     0.01     0.00    16.25 FAILED',
    'Finished    240 tests, with the following results:',
    '  240 tests completed and passed residual checks.',
    '    0 tests skipped because of illegal input values.',
    'END OF TESTS.',
  ].join('\n');
  assert.deepEqual(scalapackResults(out), [
    'WALL 4 4 2 1 1 1 1 PASSED',
    'WALL 13 13 4 9 5 1 2 FAILED',
    'Finished    240 tests, with the following results:',
    '240 tests completed and passed residual checks.',
    '0 tests skipped because of illegal input values.',
  ]);
});

test("pw.x's results: each iteration's energy and accuracy, the converged and Fermi energies; no timings", () => {
  const out = [
    '     iteration #  1     ecut=    40.00 Ry     beta= 0.70',
    '     total cpu time spent up to now is        0.3 secs',
    '     total energy              =     -22.62424029 Ry',
    '     estimated scf accuracy    <       0.13183282 Ry',
    '     the Fermi energy is    13.4536 ev',
    '!    total energy              =     -22.63378020 Ry',
    '     one-electron contribution =       6.35045474 Ry',
    '     PWSCF        :      0.95s CPU      3.64s WALL',
  ].join('\n');
  assert.deepEqual(pwscfResults(out), [
    '     total energy              =     -22.62424029 Ry',
    '     estimated scf accuracy    <       0.13183282 Ry',
    '     the Fermi energy is    13.4536 ev',
    '!    total energy              =     -22.63378020 Ry',
  ]);
});

test("an OpenFOAM solver's results: residuals and continuity errors of each step; no times", () => {
  const out = [
    'Time = 0.005',
    '',
    'Courant Number mean: 0 max: 0',
    'smoothSolver:  Solving for Ux, Initial residual = 1, Final residual = 8.90511e-06, No Iterations 19',
    'DICPCG:  Solving for p, Initial residual = 1, Final residual = 0.0492854, No Iterations 12',
    'time step continuity errors : sum local = 0.000466513, global = -1.79995e-19, cumulative = -1.79995e-19',
    'ExecutionTime = 0.01 s  ClockTime = 0 s',
  ].join('\n');
  assert.deepEqual(openfoamResults(out), [
    'smoothSolver:  Solving for Ux, Initial residual = 1, Final residual = 8.90511e-06, No Iterations 19',
    'DICPCG:  Solving for p, Initial residual = 1, Final residual = 0.0492854, No Iterations 12',
    'time step continuity errors : sum local = 0.000466513, global = -1.79995e-19, cumulative = -1.79995e-19',
  ]);
});

test("a PETSc example's results: its own non-empty lines, not mpiscope's report after them", () => {
  const out = [
    '  0 SNES Function norm 1.036007954337e-02',
    '',
    '    0 KSP Residual norm 9.516444290077e-03',
    'mpiscope: app, 2 ranks, Open MPI',
    'no findings; the job completed',
  ].join('\n');
  assert.deepEqual(petscResults(out), [
    '  0 SNES Function norm 1.036007954337e-02',
    '    0 KSP Residual norm 9.516444290077e-03',
  ]);
});

test("a MUMPS driver's results: the solution and its INFOG/RINFOG statistics; no times or memory", () => {
  const out = [
    ' INFOG(1)                                       =               0',
    ' RINFOG(1) Operations during elimination (estim)= 3.708D+06',
    '    Maximum estim. space in Mbytes, IC facto.    (INFOG(16)):           2',
    ' ** Memory allocated, max in Mbytes             (INFOG(18)):           2',
    ' INFOG (9)  Real space for factors          =          108538',
    ' Elapsed time in solve driver=       0.0003',
    '  Solution is   0.99999999999999878        2.0000000000000004',
  ].join('\n');
  assert.deepEqual(mumpsResults(out), [
    ' INFOG(1)                                       =               0',
    ' RINFOG(1) Operations during elimination (estim)= 3.708D+06',
    ' INFOG (9)  Real space for factors          =          108538',
    '  Solution is   0.99999999999999878        2.0000000000000004',
  ]);
});

test("Ray's results: its contig and scaffold numbers, every non-empty line", () => {
  assert.deepEqual(rayResults('Contigs >= 100 nt\n Number: 1\n\n Total length: 7985\n'), [
    'Contigs >= 100 nt',
    ' Number: 1',
    ' Total length: 7985',
  ]);
});

test("ABINIT's results: SCF steps' energies and residuals, the final energy and stress; no timings", () => {
  const abo = [
    ' ETOT  1  -8.5154682846284    -8.515E+00 1.305E-04 6.773E+00',
    '- Total cpu        time (s,m,h):          1.1        0.02      0.000',
    '           etotal     -8.5187390644E+00',
    '           strten     -2.3810060523E-05 -2.3810060523E-05 -2.3810060523E-05',
    '             ecut      1.20000000E+01 Hartree',
  ].join('\n');
  assert.deepEqual(abinitResults(abo), [
    ' ETOT  1  -8.5154682846284    -8.515E+00 1.305E-04 6.773E+00',
    '           etotal     -8.5187390644E+00',
    '           strten     -2.3810060523E-05 -2.3810060523E-05 -2.3810060523E-05',
  ]);
});

test("Meep's results: the probe lines the control file prints", () => {
  assert.deepEqual(meepResults('on time step 1\nprobe: -0.0019575574883169654+0.0i\nrun 0 finished'), [
    'probe: -0.0019575574883169654+0.0i',
  ]);
});

test("mplrs's results: its totals line, not its times", () => {
  const ext =
    '*Phase 1 time: 0 seconds.\n*Totals: vertices=636 rays=0 bases=918 integer-vertices=106\n*Elapsed time: 0 seconds.';
  assert.deepEqual(mplrsResults(ext), ['*Totals: vertices=636 rays=0 bases=918 integer-vertices=106']);
});

test("ABySS's results: rank 0's totals and the contigs, not the ranks' own lines", () => {
  const out =
    '0: Loaded 3921 k-mer.\nLoaded 7965 k-mer. At least 446 kB of RAM is required.\n1: Pruned 0 tips.\nAssembled 7965 k-mer in 1 contigs.';
  assert.deepEqual(abyssResults(out, '>0 7995 110600\nACGT\n'), [
    'Loaded 7965 k-mer. At least 446 kB of RAM is required.',
    'Assembled 7965 k-mer in 1 contigs.',
    '>0 7995 110600',
    'ACGT',
  ]);
});

test("the assemblers' reads: the same bytes every run, each read a slice of one genome", () => {
  const a = genomeReads(300, 100, 50);
  assert.equal(a, genomeReads(300, 100, 50));
  const reads = a.split('\n').filter((l) => !l.startsWith('>') && l !== '');
  assert.equal(reads.length, 5);
  assert.equal(reads[0]?.slice(50), reads[1]?.slice(0, 50));
  assert.match(reads.join(''), /^[ACGT]+$/);
});

test("FORM's results: expression sizes and printed expressions, not times or generated terms", () => {
  const out = [
    'Time =       2.73 sec    Generated terms =      14535',
    '               N         Terms in output =          1',
    '                         Bytes used      =         28',
    '',
    '   N =',
    '      514147280633856;',
    '',
    '  2.73 sec + 2.83 sec: 5.56 sec out of 6.59 sec',
  ].join('\n');
  assert.deepEqual(formResults(out), [
    '               N         Terms in output =          1',
    '                         Bytes used      =         28',
    '   N =',
    '      514147280633856;',
  ]);
});

test("NEURON's results: the spike count and the spikes, sorted (ranks print in any order)", () => {
  const out = 'spike 3.125 1\nspikes 2\nNEURON -- VERSION 8\nspike 1.500 0\n';
  assert.deepEqual(neuronResults(out), ['spikes 2', 'spike 1.500 0', 'spike 3.125 1']);
});
