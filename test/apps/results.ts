/**
 * The scientific results of each application, read from its output, and how two runs' results are compared.
 * Pure functions (the unit tier checks them on sample output).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eEdD][-+]?\d+)?$/;

const INTEGER = /^[-+]?\d+$/;

/** One unit in the last digit printed (0.0072510 → 1e-7; 2.40163e-12 → 1e-17). */
function lastDigit(token: string): number {
  const [mantissa = '', exponent = '0'] = token.replace(/[dD]/, 'e').split(/e/i);
  const decimals = mantissa.includes('.') ? (mantissa.split('.')[1] ?? '').length : 0;
  return 10 ** (Number(exponent) - decimals);
}

/**
 * Where two result lines differ, or undefined: words and integers (steps, counts) must be equal, other
 * numbers equal up to two units in the last digit printed, or up to `noise` — the spread of the bare
 * application's own results, whose parallel sums are not bitwise reproducible from run to run.
 */
export function lineDiffers(a: string, b: string, noise = 0): string | undefined {
  const ta = a.trim().split(/[\s=,]+/);
  const tb = b.trim().split(/[\s=,]+/);
  if (ta.length !== tb.length) return `different fields: "${a}" vs "${b}"`;
  for (let i = 0; i < ta.length; i++) {
    const x = ta[i] ?? '';
    const y = tb[i] ?? '';
    if (INTEGER.test(x) && INTEGER.test(y)) {
      if (x !== y) return `${x} vs ${y} in "${a.trim()}" / "${b.trim()}"`;
    } else if (NUMBER.test(x) && NUMBER.test(y)) {
      const u = Number(x.replace(/[dD]/, 'e'));
      const v = Number(y.replace(/[dD]/, 'e'));
      // Two units, not one: a sum that lands near a rounding boundary may print one unit off each way.
      const slack = Math.max(2 * Math.max(lastDigit(x), lastDigit(y)), noise) * 1.0000001;
      if (Math.abs(u - v) > slack) return `${x} vs ${y} in "${a.trim()}" / "${b.trim()}"`;
    } else if (x !== y) return `"${x}" vs "${y}" in "${a.trim()}" / "${b.trim()}"`;
  }
  return undefined;
}

/**
 * What a LAMMPS run computes: each run's thermo output (the one-line table under its "Step" header, or the
 * "multi" style's "Name = value" lines) and the neighbor statistics after it — not timings, CPU use or memory.
 */
export function lammpsResults(stdout: string): string[] {
  const out: string[] = [];
  let inRun = false;
  for (const line of stdout.split('\n')) {
    if (/^\s*Step\s/.test(line) || /^-+ Step\s/.test(line)) inRun = true;
    if (/^Loop time/.test(line)) inRun = false;
    if (/CPU|Mbytes|mpiscope/.test(line)) {
      if (/^-+ Step\s+\d+/.test(line)) out.push(line.replace(/-+ CPU.*$/, '').replace(/CPU.*$/, ''));
      continue;
    }
    if (inRun && line.trim() !== '') out.push(line);
    else if (/^(Total # of neighbors|Ave neighs\/atom|Neighbor list builds) =/.test(line)) out.push(line);
  }
  return out;
}

/**
 * The energies and the gradient table of the Gaussian-basis DFT, and the plane-wave (PSPW) energies and their
 * parts: what the calculations are for, not their timings or memory. A PSPW line's per-ion/electron
 * share in parentheses is left out: it repeats the total with fewer digits.
 */
export function nwchemResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(
      (l) =>
        /^\s+(Total DFT energy|One electron energy|Coulomb energy|Exchange-Corr\. energy|Nuclear repulsion energy) =/.test(
          l,
        ) ||
        /^\s+\d+\s+[A-Z][a-z]?(\s+-?\d+\.\d+){6}\s*$/.test(l) ||
        /^\s*(Total PSPW energy|total {5}energy|hartree {3}energy|exc-corr {2}energy|ion-ion {3}energy)\s*:/.test(
          l,
        ),
    )
    .map((l) => l.replace(/\(.*$/, ''));
}

/**
 * HPCC's verdicts and the norms they come from, from hpccoutf.txt: HPL's residual check, the
 * residuals and error counts of the summary, STREAM's validation and RandomAccess's error counts. Not
 * the rates and times, and not the star/single DGEMM residual, whose matrices are seeded by the clock.
 */
export function hpccResults(_stdout: string, dir: string): string[] {
  const out = readFileSync(join(dir, 'hpccoutf.txt'), 'utf8').split('\n');
  const summary = out.slice(out.findIndex((l) => l.startsWith('Begin of Summary section')));
  return [
    ...out.filter((l) =>
      /\.\.\.\. (PASSED|FAILED)|Solution Validates|Found \d+ errors|tests completed and/.test(l),
    ),
    ...summary.filter((l) =>
      /^(HPL_[RAXB]norm(1|I)|HPL_N|PTRANS_residual|MPIRandomAccess(_LCG)?_Errors|MPIFFT_maxErr|Success)=/.test(
        l,
      ),
    ),
  ];
}

/** Elk's total energy at each self-consistent iteration and its Fermi energy (files it writes in its folder). */
export function elkResults(_stdout: string, dir: string): string[] {
  return ['TOTENERGY.OUT', 'EFERMI.OUT'].flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
  );
}

/** ESyS-Particle's floor force series (the field saver's file in its folder): one force vector per line. */
export function esysResults(_stdout: string, dir: string): string[] {
  return readFileSync(join(dir, 'floor_force.dat'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/**
 * A ScaLAPACK test driver's table (xdlu and its siblings): each test's sizes, blocking, process grid and verdict
 * (PASSED / FAILED), without its times and MFLOPS; and the totals under "Finished … tests".
 */
export function scalapackResults(stdout: string): string[] {
  const out: string[] = [];
  for (const line of stdout.split('\n')) {
    const f = line.trim().split(/\s+/);
    if ((f[0] === 'WALL' || f[0] === 'CPU') && /^(PASSED|FAILED|BYPASS)$/.test(f[f.length - 1] ?? ''))
      // The three numbers before the verdict are the factor time, the solve time and the rate.
      out.push([...f.slice(0, f.length - 4), f[f.length - 1]].join(' '));
    else if (/^\s*Finished\s+\d+ tests|^\s*\d+ tests (completed|skipped)/.test(line)) out.push(line.trim());
  }
  return out;
}

/**
 * What GROMACS' mdrun computes: the energy tables of its log (every logged step, then the averages and their
 * fluctuations) — the lines of numbers only, not the performance and timing tables.
 */
export function gromacsResults(_stdout: string, dir: string): string[] {
  return readFileSync(join(dir, 'md.log'), 'utf8')
    .split('\n')
    .filter((l) => /^\s+-?\d\.\d+e[-+]\d+(\s+-?\d\.\d+e[-+]\d+)*\s*$/.test(l));
}

/**
 * What Quantum ESPRESSO's pw.x computes: the total energy of each self-consistency iteration and its estimated
 * accuracy, the converged energy ("!") and the Fermi energy — not timings or memory.
 */
export function pwscfResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^!|^\s+total energy\s+=|estimated scf accuracy\s+<|the Fermi energy is/.test(l));
}

/**
 * What MPB computes: the frequencies of every band at each k-point ("tmfreqs:" lines, six digits). Not its
 * "Gap from band" lines: they print every digit of a double, and two bare runs differ in the fourteenth.
 */
export function mpbResults(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^(tm|te|)freqs:/.test(l));
}

/** CP2K: the converged total energy of each force evaluation, and the SCF's last total energy. */
export function cp2kResults(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^ ENERGY\| Total FORCE_EVAL|^ +Total energy:/.test(l));
}

/**
 * What an OpenFOAM solver computes: each linear solve's initial and final residuals and iteration count, and
 * each time step's continuity errors (the solver log's "Solving for" and "time step continuity errors" lines) —
 * not its "ExecutionTime" lines.
 */
export function openfoamResults(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /Solving for |^time step continuity errors/.test(l));
}

/**
 * What a PETSc example prints before mpiscope's report: its star forests' graphs and data, or its solver's
 * residual norms and iteration counts — every non-empty line (the examples print no timings).
 */
export function petscResults(stdout: string): string[] {
  const own = stdout.split(/^mpiscope: /m)[0] ?? '';
  return own.split('\n').filter((l) => l.trim() !== '');
}

/**
 * What a MUMPS test driver computes: the solution it prints ("Solution is" and the values after it) and its
 * global statistics (the INFOG/RINFOG lines: factor sizes, pivots, operation counts) — not its times or its
 * memory figures.
 */
export function mumpsResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(
      (l) =>
        /^\s*Solution is/.test(l) ||
        (/^\s*R?INFOG ?\(\s*\d+\)/.test(l) && !/[Tt]ime|[Mm]emory|[Mm]bytes|MB/.test(l)),
    );
}

/** Ray's assembly: the counts and lengths of its contigs and scaffolds (`OutputNumbers.txt`), not its times. */
export function rayResults(numbers: string): string[] {
  return numbers.split('\n').filter((l) => l.trim() !== '');
}

/**
 * What an ABINIT ground state computes (its main output file, `.abo`): each SCF step's total energy and
 * residuals (the "ETOT" lines) and the final total energy and stress tensor — not its timings.
 */
export function abinitResults(abo: string): string[] {
  return abo.split('\n').filter((l) => /^ ETOT +\d|^ +etotal |^ +strten /.test(l));
}

/** Meep's field values, as the test's control file prints them ("probe: " and a complex number). */
export function meepResults(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith('probe: '));
}

/** mplrs's enumeration: its totals line (vertices, rays, bases, integer vertices). */
export function mplrsResults(ext: string): string[] {
  return ext.split('\n').filter((l) => /^\*Totals:/.test(l));
}

/**
 * Error-free reads of a random genome, as FASTA: a genome of `genomeLength` bases from a fixed-seed generator
 * (the same bytes every run), cut into reads of `readLength` every `step` bases. The assemblers' input.
 */
export function genomeReads(genomeLength: number, readLength: number, step: number): string {
  let seed = 7;
  let genome = '';
  for (let i = 0; i < genomeLength; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    genome += 'ACGT'[(seed >>> 16) & 3];
  }
  const out: string[] = [];
  for (let at = 0, k = 0; at + readLength <= genomeLength; at += step, k++)
    out.push(`>r${k}`, genome.slice(at, at + readLength));
  return `${out.join('\n')}\n`;
}

/**
 * ABYSS-P's assembly: the contigs it wrote (headers: id, length, k-mer coverage; and sequences) and the totals
 * rank 0 prints after each stage ("Loaded 7965 k-mer…", "Assembled … in 1 contigs.") — not the ranks' own
 * lines, whose order between ranks varies.
 */
export function abyssResults(stdout: string, contigs: string): string[] {
  return [
    ...stdout.split('\n').filter((l) => /^[A-Z][a-z]+ \d/.test(l)),
    ...contigs.split('\n').filter((l) => l !== ''),
  ];
}

/**
 * What a FORM run computes: each expression's size after each module ("Terms in output", "Bytes used", with
 * the expression's name on the line before) and the printed expressions — not its times or generated-term
 * counts, which FORM prints on the same lines as its times.
 */
export function formResults(stdout: string): string[] {
  const out: string[] = [];
  const lines = stdout.split('\n');
  let printing = false;
  for (const line of lines) {
    if (/^\s+\S+\s+Terms in output =|^\s+Bytes used\s+=/.test(line)) out.push(line);
    else if (/^\s+\w+ =\s*$/.test(line)) printing = true;
    if (printing) {
      out.push(line);
      if (line.trim().endsWith(';')) printing = false;
    }
  }
  return out;
}

/**
 * NEURON's ring: the spike count and every spike (time, cell), sorted — each rank prints its own cells'
 * spikes, and the launcher interleaves the ranks' output in any order.
 */
export function neuronResults(stdout: string): string[] {
  const lines = stdout.split('\n');
  return [
    ...lines.filter((l) => /^spikes \d+$/.test(l)),
    ...lines.filter((l) => /^spike [\d.]+ \d+$/.test(l)).sort(),
  ];
}

/**
 * The mpi4py script's printed results (the heat equation's norms, the reductions, what each rank received),
 * sorted: each rank prints its own lines, and the launcher interleaves the ranks' output in any order.
 */
export function mpi4pyResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^(step \d+ norm|gathered|rank \d+ )/.test(l))
    .sort();
}

/** What each rank of the h5py script read back (sums of another rank's blocks), sorted as mpi4pyResults. */
export function h5pyResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^rank \d+ read block/.test(l))
    .sort();
}

/** ncmpidiff's verdicts: each SAME/DIFF line of its verbose comparison and its two summary lines. */
export function pnetcdfResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^\s*(SAME|DIFF)|^(Headers|All variables|Number of differences)/.test(l));
}

/** The FreeFem++ Schwarz script's lines: the iterations' changes, the solution's maximum and energy, the pieces. */
export function freefemResults(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^(iteration \d+ change|max |energy |piece from |rank \d+ got)/.test(l))
    .sort();
}

/** The petsc4py script's solve: iterations and why it stopped, the solution's norm, whether the residual is small. */
export function petsc4pyResults(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^(iterations \d+ reason|solution norm|residual below)/.test(l));
}
