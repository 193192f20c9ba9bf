/**
 * `mpiscope coll-bench` (after MPIPerf): collectives timed from a common start instant on synchronized
 * clocks, next to the barrier-then-loop timing, written as one JSON file (docs/coll-bench-format.md) and
 * printed as a table. The method is native-tools/coll-bench.c's header.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { chooseFlavor, ensureTool } from '../perf/native-tools';
import { checkFits, launchTool, parseHostSlots, readHostfileText } from '../perf/tool-launch';
import { UsageError } from '../session/session-api';
import { hostOptions, intOption, LAUNCH_OPTIONS, parseToolOptions } from './tool-options';

export const COLLECTIVES = [
  'Barrier',
  'Bcast',
  'Reduce',
  'Allreduce',
  'Allgather',
  'Allgatherv',
  'Alltoall',
  'Alltoallv',
  'Gather',
  'Gatherv',
  'Scatter',
  'Scatterv',
  'Reduce_scatter',
] as const;

export const COLL_BENCH_HELP = `mpiscope coll-bench — collectives timed on synchronized clocks (after MPIPerf)

Usage:
  mpiscope coll-bench -np N [--sizes B,B,…] [--collectives NAME,…] [--rel-se X] [--min-launches K]
                      [--max-launches K] [--sync-reps K] [--loop-reps K]
                      [--host H,H… | --hostfile F] [--mpirun CMD] [--launcher L] [--mpi openmpi|mpich]
                      [--output FILE.json]

Clock offsets against rank 0 come from --sync-reps ping-pongs per rank (the smallest round trip wins;
half of it bounds the error). Each launch starts on every rank at one future instant of the corrected
clocks; launches with a late rank are discarded, the first is not counted, and each counts the slowest
rank. Launches repeat until the relative standard error is under --rel-se (default 0.05), between
--min-launches (10) and --max-launches (200). The barrier-then-loop mean (--loop-reps calls, default 100)
is printed beside it. Sizes are bytes per rank (default 8,1024,65536); reductions use size/4 ints.
Collectives (default all): ${COLLECTIVES.join(', ')}.
`;

interface RawResult {
  readonly collective: string;
  readonly bytes: number;
  readonly launches: number;
  readonly discardedLate: number;
  /** null when fewer than two launches had every rank on time. */
  readonly mean: number | null;
  readonly standardError: number | null;
  readonly ci95: readonly [number, number] | null;
  readonly barrierLoopMean: number;
}
interface RawClock {
  readonly rank: number;
  readonly offset: number;
  readonly error: number;
  readonly selfCheck: number;
}
interface Raw {
  readonly ranks: number;
  readonly hosts: readonly string[];
  readonly clock: { readonly injectedSkewPerRank: number; readonly ranks: readonly RawClock[] };
  readonly results: readonly RawResult[];
}

function us(s: number): string {
  return `${(s * 1e6).toFixed(s < 1e-4 ? 2 : 1)} µs`;
}

export async function collBenchCommand(argv: readonly string[], cwd: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(COLL_BENCH_HELP);
    return 0;
  }
  const o = parseToolOptions('coll-bench', argv, [
    ...LAUNCH_OPTIONS,
    '--sizes',
    '--collectives',
    '--rel-se',
    '--min-launches',
    '--max-launches',
    '--sync-reps',
    '--loop-reps',
    '--output',
  ]);
  if (o.positional.length > 0)
    throw new UsageError(`unexpected argument ${o.positional[0]}; mpiscope coll-bench takes options only`);
  if (!o.values.has('-np')) throw new UsageError('-np N is required: the number of ranks');
  const np = intOption(o, '-np', undefined, 2);
  const sizesText = o.values.get('--sizes') ?? '8,1024,65536';
  const sizes = sizesText.split(',').filter((s) => s.trim() !== '');
  if (
    sizes.length === 0 ||
    sizes.length > 64 ||
    sizes.some((s) => !/^\d+$/.test(s.trim()) || Number(s) > 1 << 28)
  )
    throw new UsageError(
      `--sizes ${sizesText}: give 1 to 64 message sizes in bytes separated by commas, each at most 268435456 (for example --sizes 8,1024)`,
    );
  const collText = o.values.get('--collectives');
  const colls = collText === undefined ? [...COLLECTIVES] : collText.split(',').map((c) => c.trim());
  const unknown = colls.find((c) => !(COLLECTIVES as readonly string[]).includes(c));
  if (unknown !== undefined || colls.length === 0)
    throw new UsageError(`unknown collective ${unknown ?? '(none)'}; use some of ${COLLECTIVES.join(', ')}`);
  const relText = o.values.get('--rel-se') ?? '0.05';
  const relSe = Number(relText);
  if (!(relSe > 0 && relSe < 1))
    throw new UsageError(`--rel-se must be a fraction between 0 and 1, such as 0.05 (got ${relText})`);
  const minLaunches = intOption(o, '--min-launches', 10, 2, 100_000);
  const maxLaunches = intOption(o, '--max-launches', Math.max(200, minLaunches), 2, 100_000);
  if (maxLaunches < minLaunches)
    throw new UsageError(`--max-launches ${maxLaunches} is below --min-launches ${minLaunches}`);
  const syncReps = intOption(o, '--sync-reps', 100, 1, 1_000_000);
  const loopReps = intOption(o, '--loop-reps', 100, 1, 1_000_000);
  const hosts = hostOptions(o);
  checkFits(
    parseHostSlots(
      hosts.hosts,
      hosts.hostfile === undefined ? undefined : readHostfileText(hosts.hostfile, cwd),
    ),
    np,
    hosts.hostfile !== undefined ? `the host file ${hosts.hostfile}` : '--host',
  );
  const output = resolve(cwd, o.values.get('--output') ?? 'coll-bench.json');
  const flavor = await chooseFlavor(o.values.get('--mpi'), hosts.mpirun, hosts.launcher);
  const program = await ensureTool('coll-bench', flavor);
  const tmp = mkdtempSync(join(dirname(output), '.mpiscope-coll-bench-'));
  try {
    const raw = join(tmp, 'raw.json');
    const started = new Date().toISOString();
    const args = [
      raw,
      sizes.join(','),
      colls.join(','),
      relSe,
      minLaunches,
      maxLaunches,
      syncReps,
      loopReps,
    ].map(String);
    // Ranks that wait for each other yield their core (Open MPI busy-polls otherwise), so that a job with more
    // ranks than cores still times the network rather than the scheduler; the user's own setting wins.
    const rankEnv: Record<string, string> =
      process.env.OMPI_MCA_mpi_yield_when_idle === undefined ? { OMPI_MCA_mpi_yield_when_idle: '1' } : {};
    const skew = process.env.MPISCOPE_CB_CLOCK_SKEW;
    if (skew !== undefined) rankEnv.MPISCOPE_CB_CLOCK_SKEW = skew;
    const { code, launcher } = await launchTool(program, args, { np, ...hosts, rankEnv }, cwd);
    let parsed: Raw;
    try {
      parsed = JSON.parse(readFileSync(raw, 'utf8')) as Raw;
    } catch {
      throw new UsageError(
        `the coll-bench job failed (launcher exit status ${code}); its output above says why`,
      );
    }
    if (code !== 0)
      throw new UsageError(
        `the coll-bench job failed (launcher exit status ${code}); its output above says why`,
      );
    const clock = parsed.clock.ranks.map((c) => ({
      ...c,
      // The rank's start was within the offset's own error of where it should have been, plus 10 µs for the
      // time to send one zero-byte message beyond half the best round trip.
      selfCheckPassed: c.rank === 0 || Math.abs(c.selfCheck) <= c.error + 10e-6,
    }));
    const file = {
      format: 'mpiscope-coll-bench',
      version: 1,
      started,
      mpi: { flavor, launcher },
      parameters: {
        sizes: sizes.map(Number),
        collectives: colls,
        relSe,
        minLaunches,
        maxLaunches,
        syncReps,
        loopReps,
      },
      hosts: parsed.hosts,
      clock: { injectedSkewPerRank: parsed.clock.injectedSkewPerRank, ranks: clock },
      unit: 'seconds',
      results: parsed.results,
    };
    writeFileSync(output, `${JSON.stringify(file, null, 1)}\n`);
    const out = process.stdout;
    out.write(`mpiscope coll-bench: ${np} ranks on ${new Set(parsed.hosts).size} host(s), ${flavor}\n`);
    out.write(`clock offsets against rank 0 (best of ${syncReps} round trips):\n`);
    for (const c of clock.slice(1))
      out.write(
        `  rank ${c.rank} (${parsed.hosts[c.rank]}): ${c.offset >= 0 ? '+' : ''}${us(c.offset)} ± ${us(c.error)}; self-check start ${c.selfCheck >= 0 ? '+' : ''}${us(c.selfCheck)} ${c.selfCheckPassed ? 'ok' : 'OFF (ranks share cores or the host is loaded: the synchronized timings below are not trustworthy)'}\n`,
      );
    out.write(
      `${'collective'.padEnd(15)}${'bytes'.padStart(9)}${'launches'.padStart(10)}${'late'.padStart(6)}${'mean'.padStart(12)}${'± SE'.padStart(12)}${'95% CI'.padStart(26)}${'barrier+loop'.padStart(14)}\n`,
    );
    for (const r of parsed.results) {
      const head = `${r.collective.padEnd(15)}${String(r.bytes).padStart(9)}${String(r.launches).padStart(10)}${String(r.discardedLate).padStart(6)}`;
      const timed =
        r.mean === null || r.standardError === null || r.ci95 === null
          ? '  no launch had every rank on time'.padEnd(50)
          : `${us(r.mean).padStart(12)}${us(r.standardError).padStart(12)}${`${us(r.ci95[0])} – ${us(r.ci95[1])}`.padStart(26)}`;
      out.write(`${head}${timed}${us(r.barrierLoopMean).padStart(14)}\n`);
    }
    out.write(`written to ${output}\n`);
    return 0;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
