// The cost of a conditional MPI breakpoint whose condition is never true, through the real debug adapter and
// session on a real job (issue 11 §3). Rank 0 sends `iterations` messages to rank 1 (MPI_Send, tag 1); ranks
// 2 and 3 exchange as many with each other (MPI_Sendrecv) and never call MPI_Send; every iteration of every
// rank also sleeps 1 ms (work). The breakpoint is
// MPI_Send when `tag == 99`: rank 0 hits it at every send, and it never stops. Three modes, in one run:
//   none    no breakpoint: the job alone;
//   whole   every hit holds the whole job while the condition is read (each rank at its next MPI call), then
//           resumes it: what the adapter did before, and still does with a session that cannot release one
//           rank (this mode hides the session's releaseRank and judgedBreaks from the adapter);
//   judged  the hit holds rank 0 alone; the adapter reads the condition and releases rank 0.
// Printed per mode (median of --runs, ratios to `none`): the job's wall time from configurationDone to its
// exit; the time of rank 0's loop (it waits at every hit in every mode with a breakpoint) and the longest
// loop of ranks 2 and up, which never hit the breakpoint: what a false condition costs the rest of the job.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { serveDebugAdapter } from '../../server/src/dap/dap-server';
import type { SessionFactory } from '../../server/src/dap/session-port';
import { startSession } from '../../server/src/lsp/session-factory';
import type { HeldRank } from '../../server/src/session/session-api';

const { values } = parseArgs({
  options: {
    np: { type: 'string', default: '4' },
    iterations: { type: 'string', default: '300' },
    runs: { type: 'string', default: '3' },
    mpicc: { type: 'string', default: 'mpicc.openmpi' },
  },
});
const np = Number(values.np);
const runs = Number(values.runs);

const PROGRAM = `#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 100, x = 0, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        else if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if ((rank ^ 1) < size)
            MPI_Sendrecv(&i, 1, MPI_INT, rank ^ 1, 2, &y, 1, MPI_INT, rank ^ 1, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        usleep(1000); /* a millisecond of work per iteration, so that every rank's loop spans the hits */
    }
    printf("loop %d %.6f\\n", rank, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
`;

type Mode = 'none' | 'whole' | 'judged';
interface Sample {
  ms: number;
  hits: number;
  /** Seconds of rank 0's loop (it makes every hit), and the longest loop of the ranks that never call MPI_Send. */
  rank0: number;
  others: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function once(dir: string, program: string, mode: Mode): Promise<Sample> {
  const counts = { hits: 0 };
  const factory: SessionFactory = async (options) => {
    const port = await startSession(mode === 'whole' ? { ...options, judgedBreaks: undefined } : options);
    port.on('held', (h: HeldRank) => {
      if (h.reason === 'breakpoint') counts.hits++;
    });
    if (mode !== 'whole') return port;
    // The adapter sees a session without releaseRank: it holds the job at each hit, as before.
    return new Proxy(port, {
      get(target, key) {
        if (key === 'releaseRank') return undefined;
        const v: unknown = Reflect.get(target, key);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  const server = await serveDebugAdapter({ startSession: factory, token: 'bench' });
  const dc = new DebugClient('node', 'unused', 'mpi');
  await dc.start(server.port);
  const loops = new Map<number, number>();
  dc.on('output', (e: { body: { output: string } }) => {
    for (const m of e.body.output.matchAll(/loop (\d+) ([\d.]+)/g)) loops.set(Number(m[1]), Number(m[2]));
  });
  try {
    const initialized = dc.waitForEvent('initialized');
    const exited = dc.waitForEvent('exited', 600_000) as Promise<{ body: { exitCode: number } }>;
    const launched = dc.launch({
      program,
      args: [values.iterations],
      np,
      cwd: dir,
      __mpiscopeToken: 'bench',
    });
    await initialized;
    if (mode !== 'none')
      await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Send', condition: 'tag == 99' }] });
    const t0 = performance.now();
    await dc.configurationDoneRequest();
    await launched;
    const code = (await exited).body.exitCode;
    const ms = performance.now() - t0;
    if (code !== 0) throw new Error(`the job exited with ${code} in mode ${mode}`);
    const others = [...loops].filter(([r]) => r >= 2).map(([, t]) => t);
    if (loops.size !== np) throw new Error(`only ${loops.size} of ${np} ranks printed their loop's time`);
    return { ms, ...counts, rank0: loops.get(0) ?? NaN, others: Math.max(...others) };
  } finally {
    await dc.stop();
    await server.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-bench-condbreak-'));
  try {
    const program = join(dir, 'sends');
    writeFileSync(`${program}.c`, PROGRAM);
    execFileSync(values.mpicc, ['-g', '-O0', `${program}.c`, '-o', program]);
    const modes: Mode[] = ['none', 'whole', 'judged'];
    const samples = new Map<Mode, Sample[]>(modes.map((m) => [m, []]));
    for (let run = 0; run < runs; run++) {
      // Interleaved, so that the machine's load weighs on every mode alike.
      for (const mode of modes) {
        const s = await once(dir, program, mode);
        samples.get(mode)?.push(s);
        console.log(
          `run ${run + 1} ${mode.padEnd(6)} ${s.ms.toFixed(0)} ms, loops: rank 0 ${(s.rank0 * 1000).toFixed(0)} ms, ranks 2+ ${(s.others * 1000).toFixed(0)} ms; ${s.hits} hits`,
        );
      }
    }
    const base = median((samples.get('none') ?? []).map((s) => s.ms));
    const baseOthers = median((samples.get('none') ?? []).map((s) => s.others));
    console.log(
      `\n${np} ranks, ${values.iterations} sends of rank 0 under MPI_Send when tag == 99 (never true), ${values.mpicc}, median of ${runs}`,
    );
    for (const mode of modes) {
      const xs = samples.get(mode) ?? [];
      const ms = median(xs.map((s) => s.ms));
      const others = median(xs.map((s) => s.others));
      const rank0 = median(xs.map((s) => s.rank0));
      console.log(
        `${mode.padEnd(8)}job ${ms.toFixed(0).padStart(6)} ms ${(ms / base).toFixed(2)}x   rank 0 loop ${(rank0 * 1000).toFixed(0).padStart(6)} ms   ranks 2+ loop ${(others * 1000).toFixed(0).padStart(6)} ms ${(others / baseOthers).toFixed(2)}x   hits ${median(xs.map((s) => s.hits))}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
