/**
 * `mpiscope map` (after TopoMPI): place ranks on hosts so that the fewest bytes cross hosts, with METIS,
 * from a traced run's point-to-point traffic or a collective algorithm's exchange pattern; print the
 * predicted inter-host bytes before and after, and write an Open MPI rankfile and an MPICH machinefile.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ALGORITHMS, algorithmGraph, interHostBytes, traceGraph, type Algorithm } from '../perf/comm-graph';
import {
  blockPlacement,
  cyclicPlacement,
  machinefile,
  metisPlacement,
  rankfile,
  type Host,
} from '../perf/partition';
import { chooseFlavor, ensureTool } from '../perf/native-tools';
import { parseHostSlots, readHostfileText } from '../perf/tool-launch';
import { UsageError } from '../session/session-api';
import { intOption, parseToolOptions } from './tool-options';

export const MAP_HELP = `mpiscope map — place ranks on hosts to cut the bytes that cross hosts (METIS)

Usage:
  mpiscope map --trace TRACE                       (a run written with mpiscope run --trace)
               | --algorithm recursive-doubling|bruck|ring -np N [--block BYTES]   (an allgather's pattern)
             --host H:SLOTS,… | --hostfile F       (every host with its slot count; uneven slots are fine)
             [--placement block|cyclic] [--rankfile FILE] [--machinefile FILE]
  mpiscope map --library [--mpi openmpi|mpich]     builds the topology-aware MPI_Allgather to preload

The ranks are partitioned onto the hosts by gpmetis (Debian package metis), each host's share weighted by
its slots. Printed: bytes crossing hosts under the launcher's placement (block: each host's slots filled in
turn, mpirun's default; cyclic: one rank per host in turn, --map-by node) and under the new one.
Written: an Open MPI rankfile (mpirun --rankfile FILE, default mapping.rankfile) and an MPICH machinefile
(mpiexec -f FILE, default mapping.machinefile).

--library prints the path of lib-topo-allgather.so (after TopoMPI): preloaded with
MPISCOPE_TOPO_ALLGATHER=recursive-doubling|bruck, its MPI_Allgather runs that algorithm over a numbering
of the ranks, computed at the first call, in which the heavy last steps stay inside a host.
`;

function formatBytes(b: number): string {
  if (b < 1024) return `${b} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = b / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

export async function mapCommand(argv: readonly string[], cwd: string): Promise<number> {
  if (argv.includes('--library')) return library(argv);
  return Promise.resolve(map(argv, cwd));
}

/** `mpiscope map --library [--mpi F]`: build the topology-aware MPI_Allgather for that MPI and say how to use it. */
async function library(argv: readonly string[]): Promise<number> {
  const o = parseToolOptions('map', argv, ['--mpi', '--mpirun', '--launcher'], ['--library']);
  if (o.positional.length > 0)
    throw new UsageError(`unexpected argument ${o.positional[0]}; mpiscope map --library takes --mpi only`);
  const launcher = o.values.get('--launcher');
  const flavor = await chooseFlavor(
    o.values.get('--mpi'),
    o.values.get('--mpirun'),
    launcher === 'mpirun' || launcher === 'mpiexec' || launcher === 'srun' ? launcher : undefined,
  );
  const lib = await ensureTool('lib-topo-allgather', flavor);
  process.stdout.write(
    `${lib}\nfor ${flavor}: run the job with LD_PRELOAD=${lib} and MPISCOPE_TOPO_ALLGATHER=recursive-doubling or bruck (forwarded to the ranks: mpirun -x NAME, mpiexec -genv NAME VALUE); MPISCOPE_TOPO_VERBOSE=1 prints each rank's bytes sent across hosts at MPI_Finalize\n`,
  );
  return 0;
}

function map(argv: readonly string[], cwd: string): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(MAP_HELP);
    return 0;
  }
  const o = parseToolOptions('map', argv, [
    '--trace',
    '--algorithm',
    '-np',
    '--block',
    '--host',
    '--hostfile',
    '--placement',
    '--rankfile',
    '--machinefile',
  ]);
  if (o.positional.length > 0)
    throw new UsageError(`unexpected argument ${o.positional[0]}; see mpiscope map --help`);
  const trace = o.values.get('--trace');
  const algorithm = o.values.get('--algorithm');
  if ((trace === undefined) === (algorithm === undefined))
    throw new UsageError(
      'give either --trace TRACE (a run) or --algorithm NAME -np N (a collective), not both or neither',
    );
  if (algorithm !== undefined && !ALGORITHMS.includes(algorithm as Algorithm))
    throw new UsageError(`unknown --algorithm ${algorithm}; use one of ${ALGORITHMS.join(', ')}`);
  const placementName = o.values.get('--placement') ?? 'block';
  if (placementName !== 'block' && placementName !== 'cyclic')
    throw new UsageError(`--placement must be block or cyclic (got ${placementName})`);
  const hostText = o.values.get('--host');
  const hostfile = o.values.get('--hostfile');
  if ((hostText === undefined) === (hostfile === undefined))
    throw new UsageError(
      'give the hosts with their slots: --host node1:4,node2:4 or --hostfile FILE (one of them)',
    );
  const slots = parseHostSlots(
    hostText?.split(',').map((h) => h.trim()),
    hostfile === undefined ? undefined : readHostfileText(hostfile, cwd),
  );
  const where = hostfile !== undefined ? `the host file ${hostfile}` : '--host';
  if (slots.length === 0) throw new UsageError(`${where} names no host`);
  const missing = slots.find((s) => s.slots === undefined || s.slots < 1);
  if (missing !== undefined)
    throw new UsageError(
      `${where}: host ${missing.host} has no slot count; give every host its slots (node1:4, or "node1 slots=4" in a host file)`,
    );
  const names = new Set<string>();
  for (const s of slots) {
    if (names.has(s.host))
      throw new UsageError(`${where} names host ${s.host} twice; give each host once with its slots`);
    names.add(s.host);
  }
  const hosts: Host[] = slots.map((s) => ({ name: s.host, slots: s.slots ?? 0 }));

  const graph =
    trace !== undefined
      ? traceGraph(resolve(cwd, trace))
      : algorithmGraph(
          algorithm as Algorithm,
          o.values.has('-np')
            ? intOption(o, '-np', undefined, 2, 1 << 16)
            : (() => {
                throw new UsageError('--algorithm needs -np N: the number of ranks of the collective');
              })(),
          intOption(o, '--block', 1 << 20, 1),
        );
  const total = hosts.reduce((a, h) => a + h.slots, 0);
  if (total < graph.ranks)
    throw new UsageError(
      `${where} has ${total} slots on ${hosts.length} hosts but the job has ${graph.ranks} ranks; add slots or hosts`,
    );
  const before = (placementName === 'block' ? blockPlacement : cyclicPlacement)(hosts, graph.ranks);
  const metis = metisPlacement(graph, hosts);
  const bytesBefore = interHostBytes(graph, before);
  const bytesMetis = interHostBytes(graph, metis);
  // METIS is a heuristic: when the launcher's own placement is already better, keep it and say so.
  const after = bytesMetis <= bytesBefore ? metis : before;
  const bytesAfter = Math.min(bytesMetis, bytesBefore);
  let all = 0;
  for (const b of graph.bytes) all += b;
  const pct = (b: number): string => (all > 0 ? `${((100 * b) / all).toFixed(1)}%` : '0%');
  const out = process.stdout;
  out.write(
    `mpiscope map: ${graph.ranks} ranks on ${hosts.length} hosts (${hosts.map((h) => `${h.name}:${h.slots}`).join(', ')}), ${formatBytes(all)} between ranks (${trace !== undefined ? `point-to-point, from ${trace}` : `${algorithm} allgather of ${formatBytes(intOption(o, '--block', 1 << 20, 1))} per rank`})\n`,
  );
  out.write(
    `  inter-host bytes, ${placementName} placement:  ${formatBytes(bytesBefore)} (${pct(bytesBefore)} of all)\n`,
  );
  out.write(
    `  inter-host bytes, METIS placement:  ${formatBytes(bytesAfter)} (${pct(bytesAfter)} of all)${bytesBefore > 0 ? `, ${(((bytesAfter - bytesBefore) / bytesBefore) * 100).toFixed(1)}%` : ''}${bytesMetis > bytesBefore ? ` (METIS found no better placement; the ${placementName} one is kept)` : ''}\n`,
  );
  hosts.forEach((h, k) => {
    const ranks = after.flatMap((p, r) => (p === k ? [r] : []));
    out.write(`  ${h.name}: ${ranks.length > 0 ? `ranks ${ranks.join(' ')}` : 'no rank'}\n`);
  });
  const rf = resolve(cwd, o.values.get('--rankfile') ?? 'mapping.rankfile');
  const mf = resolve(cwd, o.values.get('--machinefile') ?? 'mapping.machinefile');
  writeFileSync(rf, rankfile(after, hosts));
  writeFileSync(mf, machinefile(after, hosts));
  out.write(`  wrote ${rf} (Open MPI: mpirun --rankfile FILE) and ${mf} (MPICH: mpiexec -f FILE)\n`);
  return 0;
}
