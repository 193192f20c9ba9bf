/**
 * `mpiscope net-test`: delays between every pair of ranks (after PARUS network_test), written as one JSON
 * file (docs/net-test-format.md) and optionally as CSV; `mpiscope view FILE` or VS Code shows it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  NET_TEST_FORMAT,
  NET_TEST_MODES,
  NET_TEST_VERSION,
  parseRawOutput,
  toCsv,
  type NetTestFile,
  type NetTestMode,
} from '../perf/net-test-file';
import { chooseFlavor, ensureTool } from '../perf/native-tools';
import { checkFits, launchTool, parseHostSlots, readHostfileText } from '../perf/tool-launch';
import { UsageError } from '../session/session-api';
import { hostOptions, intOption, LAUNCH_OPTIONS, parseToolOptions } from './tool-options';

export const NET_TEST_HELP = `mpiscope net-test — delays of messages between every pair of ranks

Usage:
  mpiscope net-test -np N [--mode M] [--begin B] [--end E] [--step S] [--reps R]
                    [--noise-length L] [--noise-count C] [--noise-procs P] [--seed X]
                    [--host H,H… | --hostfile F] [--mpirun CMD] [--launcher L] [--mpi openmpi|mpich]
                    [--output FILE.json] [--csv FILE.csv]

Modes (--mode, default one_to_one):
  one_to_one               one pair at a time, Send/Recv, timed at the receiver
  async_one_to_one         the same with Isend/Irecv/Wait
  all_to_all               every rank at once, Isend/Irecv, from posting a receive to its Waitany
  send_recv_and_recv_send  both directions of each pair (ping-pong halved), N/2 pairs at a time: N even
  noise_blocking, noise    one pair measured while P random other ranks exchange C messages of L bytes
                           (blocking Sendrecv, or Isend/Irecv); P even, at most N-2

Message lengths B, B+S, … up to E bytes (default 0 to 1024 step 256), R repetitions each (default 20).
Each length gives N×N matrices of the minimum, median, mean and standard deviation of the delay (s).
The file (default net-test.nettest.json; VS Code opens *.nettest.json as heatmaps, and mpiscope view FILE
writes them as a web page) holds the ranks' hosts, the MPI, the mode and the parameters.
`;

const MAX_LENGTH = 1 << 30;

export async function netTestCommand(argv: readonly string[], cwd: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(NET_TEST_HELP);
    return 0;
  }
  const o = parseToolOptions('net-test', argv, [
    ...LAUNCH_OPTIONS,
    '--mode',
    '--begin',
    '--end',
    '--step',
    '--reps',
    '--noise-length',
    '--noise-count',
    '--noise-procs',
    '--seed',
    '--output',
    '--csv',
  ]);
  if (o.positional.length > 0)
    throw new UsageError(`unexpected argument ${o.positional[0]}; mpiscope net-test takes options only`);
  if (!o.values.has('-np')) throw new UsageError('-np N is required: the number of ranks to measure');
  const np = intOption(o, '-np', undefined, 2);
  const mode = (o.values.get('--mode') ?? 'one_to_one') as NetTestMode;
  if (!NET_TEST_MODES.includes(mode))
    throw new UsageError(`unknown --mode ${mode}; use one of ${NET_TEST_MODES.join(', ')}`);
  const begin = intOption(o, '--begin', 0, 0, MAX_LENGTH);
  const end = intOption(o, '--end', Math.max(begin, 1024), 0, MAX_LENGTH);
  const step = intOption(o, '--step', 256, 1, MAX_LENGTH);
  if (end < begin)
    throw new UsageError(
      `the message range is empty: --begin ${begin} is above --end ${end}; give --begin at most --end`,
    );
  const reps = intOption(o, '--reps', 20, 1, 1_000_000);
  const noisy = mode === 'noise' || mode === 'noise_blocking';
  const noiseProcs = intOption(o, '--noise-procs', noisy ? Math.max(0, (np - 2) & ~1) : 0, 0);
  const noiseLength = intOption(o, '--noise-length', 1024, 0, MAX_LENGTH);
  const noiseCount = intOption(o, '--noise-count', 10, 0, 1_000_000);
  const seed = intOption(o, '--seed', 1, 0);
  if (mode === 'send_recv_and_recv_send' && np % 2 !== 0)
    throw new UsageError(
      `mode send_recv_and_recv_send pairs every rank with one partner per round, so it needs an even number of ranks (got -np ${np})`,
    );
  if (noisy && (noiseProcs % 2 !== 0 || noiseProcs > np - 2))
    throw new UsageError(
      `--noise-procs ${noiseProcs}: the noisy ranks exchange in pairs and exclude the measured pair, so give an even number at most ${np - 2}`,
    );
  const hosts = hostOptions(o);
  checkFits(
    parseHostSlots(
      hosts.hosts,
      hosts.hostfile === undefined ? undefined : readHostfileText(hosts.hostfile, cwd),
    ),
    np,
    hosts.hostfile !== undefined ? `the host file ${hosts.hostfile}` : `--host`,
  );
  const output = resolve(cwd, o.values.get('--output') ?? 'net-test.nettest.json');
  const csv = o.values.get('--csv');

  const flavor = await chooseFlavor(o.values.get('--mpi'), hosts.mpirun, hosts.launcher);
  const program = await ensureTool('net-test', flavor);
  // Rank 0 writes its raw lines beside the output, a folder every host sees on a cluster with a shared file
  // system (as the program itself must be), where a temporary folder of this host's may not be.
  const tmp = mkdtempSync(join(dirname(output), '.mpiscope-net-test-'));
  try {
    const raw = join(tmp, 'raw.txt');
    const started = new Date().toISOString();
    const args = [raw, mode, begin, end, step, reps, noiseLength, noiseCount, noiseProcs, seed].map(String);
    const { code, launcher } = await launchTool(program, args, { np, ...hosts }, cwd);
    let text = '';
    try {
      text = readFileSync(raw, 'utf8');
    } catch {
      // No output at all: said below.
    }
    const parsed = parseRawOutput(text, np);
    if (code !== 0 || !parsed.complete)
      throw new UsageError(
        `the net-test job failed (launcher exit status ${code}${parsed.complete ? '' : ', results incomplete'}); its output above says why`,
      );
    const file: NetTestFile = {
      format: NET_TEST_FORMAT,
      version: NET_TEST_VERSION,
      mode,
      started,
      mpi: { flavor, launcher },
      parameters: {
        begin,
        end,
        step,
        repetitions: reps,
        ...(noisy ? { noise: { length: noiseLength, count: noiseCount, procs: noiseProcs, seed } } : {}),
      },
      hosts: parsed.hosts,
      unit: 'seconds',
      results: parsed.results,
    };
    writeFileSync(output, `${JSON.stringify(file)}\n`);
    if (csv !== undefined) writeFileSync(resolve(cwd, csv), toCsv(file));
    const distinct = new Set(parsed.hosts).size;
    process.stdout.write(
      `mpiscope net-test: ${mode}, ${np} ranks on ${distinct} host${distinct === 1 ? '' : 's'}, ${parsed.results.length} message length${parsed.results.length === 1 ? '' : 's'} × ${reps} repetitions → ${output}${csv !== undefined ? ` and ${csv}` : ''}\n`,
    );
    return 0;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
