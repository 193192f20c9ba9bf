/**
 * The analyzer's transport side alone: what a frame costs the session's thread before and around the engine.
 * A recorded trace (`mpiscope run --trace`) is replayed by a child process (client.mjs) to the session's own
 * WebSocket server (RankServer), one connection per rank, and this process's CPU (process.cpuUsage: the main
 * thread and V8's helpers) is measured from the first hello to the last close, for three depths of the
 * session's frame handler — `transport` (the frame is taken and dropped), `decode` (Analysis.frame decodes it
 * into the columns, the engine is not fed), `analyze` (decoded and fed to the engine, as `mpiscope run`) — and
 * for frames as recorded and cut into frames of fixed record counts. A benchmark, not a test.
 *
 * `--read-every MS` sets the session's read gate (RankServer's READ_EVERY_MS; 0 reads each frame as it arrives).
 * `--pace MS` spreads each replay over MS milliseconds (the trickle of a running job: many small reads, each a
 * wake-up of the session's thread) instead of sending as fast as the server reads.
 *
 *   node bench/transport/run.mjs TRACE [--sizes 0,256,1024,4096] [--repeat 3] [--pace MS] [--read-every MS]
 */
import { spawn } from 'node:child_process';

import { parseArgs } from 'node:util';
import { Analysis } from '../../server/src/session/analysis';
import { READ_EVERY_MS, RankServer } from '../../server/src/session/rank-server';
import { readTraceUpToCut } from '../../server/src/session/trace-file';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    sizes: { type: 'string', default: '0,256,1024,4096' },
    repeat: { type: 'string', default: '3' },
    pace: { type: 'string', default: '0' },
    'read-every': { type: 'string', default: String(READ_EVERY_MS) },
  },
});
const [traceGiven, clientGiven] = positionals;
if (traceGiven === undefined || clientGiven === undefined) {
  console.error('bench/transport: give a trace recorded with mpiscope run --trace FILE');
  process.exit(2);
}
const tracePath: string = traceGiven;
const client: string = clientGiven;
const sizes = values.sizes.split(',').map(Number);
const repeat = Number(values.repeat);
const pace = Number(values.pace);
const readEvery = Number(values['read-every']);
if (
  sizes.some((s) => !Number.isInteger(s) || s < 0) ||
  !Number.isInteger(repeat) ||
  repeat < 1 ||
  !(pace >= 0) ||
  !(readEvery >= 0)
) {
  console.error(
    'bench/transport: --sizes takes whole numbers of records (0: as recorded), --repeat a count, --pace and --read-every milliseconds',
  );
  process.exit(2);
}
const { frames } = readTraceUpToCut(tracePath);
const ranks = new Set(frames.filter((f) => f.kind === 'binary').map((f) => f.rank)).size;
const records = frames.filter((f) => f.kind === 'binary').reduce((n, f) => n + f.data.length / 64, 0);

type Depth = 'transport' | 'decode' | 'analyze';

interface Result {
  readonly cpuMs: number;
  readonly frames: number;
}

async function once(depth: Depth, size: number): Promise<Result> {
  const analysis = new Analysis(ranks, process.cwd());
  let open = 0;
  let seen = 0;
  let start: NodeJS.CpuUsage | undefined;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const server = await RankServer.listen(
    ranks,
    {
      hello: (rank) => {
        analysis.open(rank);
        open++;
        start ??= process.cpuUsage();
      },
      frame: (rank, data) => {
        seen++;
        if (depth !== 'transport') analysis.frame(rank, data, false, depth === 'analyze');
      },
      control: () => undefined,
      closed: () => {
        if (--open === 0) done();
      },
      rejected: (why) => console.error(`bench/transport: a connection was rejected: ${why}`),
    },
    {},
    { readEveryMs: readEvery },
  );
  const child = spawn(
    process.execPath,
    [client, server.url, server.token, tracePath, String(size), String(pace)],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  await finished;
  const used = process.cpuUsage(start);
  await new Promise((resolve) => child.on('close', resolve));
  await server.close();
  await analysis.dispose();
  return { cpuMs: (used.user + used.system) / 1000, frames: seen };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(
  `bench/transport: ${tracePath}: ${ranks} ranks, ${records.toLocaleString('en')} records; the session's CPU (main thread and V8 helpers), median of ${repeat}, connections read every ${readEvery} ms (0: as frames arrive)${pace > 0 ? `, each replay spread over ${pace} ms` : ''}`,
);
async function main(): Promise<void> {
  // A warm-up, so that the first measured run does not pay for compiling the handlers.
  await once('analyze', 0);
  for (const size of sizes) {
    const row: string[] = [];
    let count = 0;
    for (const depth of ['transport', 'decode', 'analyze'] as const) {
      const runs: Result[] = [];
      for (let i = 0; i < repeat; i++) runs.push(await once(depth, size));
      const ms = median(runs.map((r) => r.cpuMs));
      count = runs[0]?.frames ?? 0;
      row.push(`${depth} ${ms.toFixed(0)} ms (${((ms * 1000) / records).toFixed(2)} us/record)`);
    }
    console.log(
      `frames of ${size === 0 ? 'the recorded sizes' : `${size} records`} (${count.toLocaleString('en')} frames): ${row.join(', ')}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(`bench/transport: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
