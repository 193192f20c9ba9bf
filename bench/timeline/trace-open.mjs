#!/usr/bin/env node
// Opening a trace in VS Code (prints numbers; not a test). The trace editor asks the language server for
// mpiscope/traceTimeline, which replays the trace through the decoder and engine (as `mpiscope report`
// does), feeds the events to the TimelineModel and resolves the call sites; only then does the webview get
// its batches (that part is bench/timeline/run.mjs's "open"). This measures the server's part, in-process,
// on the same code the language server bundles:
//   replay    replayTrace alone (read, decode, engine analysis), what any report of the trace costs;
//   timeline  traceTimeline, the whole request (replay, model, sites, batches);
// wall time and this process's CPU time (user + system), median of --runs.
//
//   node bench/timeline/trace-open.mjs [--trace FILE] [--np 4] [--iterations 20000] [--runs 3]
// Without --trace, a halo exchange (Irecv/Isend to both neighbours, Waitall, an Allreduce every 50
// iterations) is built with mpicc.openmpi and run under `node dist/cli.js run --trace` (run
// scripts/build.mjs first): 4 ranks × 20,000 iterations make about 400,000 calls, 1.2 M events, 118 MB.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const { values } = parseArgs({
  options: {
    trace: { type: 'string' },
    np: { type: 'string', default: '4' },
    iterations: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
  },
});
const runs = Number(values.runs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const HALO = `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 1000;
    double a = 1, b[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < iters; i++) {
        MPI_Request r[4];
        MPI_Irecv(&b[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b[1], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&a, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&a, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        if (i % 50 == 0) MPI_Allreduce(MPI_IN_PLACE, &a, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
`;

const work = mkdtempSync(join(tmpdir(), 'mpiscope-bench-trace-open-'));
try {
  let trace = values.trace;
  if (trace === undefined) {
    writeFileSync(join(work, 'halo.c'), HALO);
    execFileSync('mpicc.openmpi', ['-O2', '-g', '-o', 'halo', 'halo.c'], { cwd: work, stdio: 'inherit' });
    trace = join(work, 'halo.mpitrace');
    const cli = join(root, 'dist', 'cli.js');
    execFileSync(
      process.execPath,
      [cli, 'run', '-np', values.np, '--trace', trace, './halo', values.iterations],
      { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const entry = join(work, 'entry.cjs');
  await build({
    stdin: {
      contents: `
        export { traceTimeline } from './server/src/timeline/trace-timeline';
        export { replayTrace } from './server/src/session/replay';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: entry,
    logLevel: 'warning',
  });
  const { traceTimeline, replayTrace } = (await import(pathToFileURL(entry).href)).default;

  const timed = async (f) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const value = await f();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { value, wall, cpu: (cpu.user + cpu.system) / 1000 };
  };
  const replay = [];
  const timeline = [];
  let events = 0;
  let spans = 0;
  let ranks = 0;
  for (let run = 0; run < runs; run++) {
    let n = 0;
    const r = await timed(() => replayTrace(trace, undefined, { events: (batch) => (n += batch.length) }));
    events = n;
    ranks = r.value.start.ranks;
    replay.push(r);
    const t = await timed(() => traceTimeline(trace));
    spans = t.value.messages.reduce((s, m) => s + (m.spans?.rank.length ?? 0), 0);
    timeline.push(t);
    console.log(
      `run ${run + 1}: replay ${r.wall.toFixed(0)} ms (cpu ${r.cpu.toFixed(0)}), timeline ${t.wall.toFixed(0)} ms (cpu ${t.cpu.toFixed(0)})`,
    );
  }
  const mb = statSync(trace).size / 1e6;
  console.log(
    `trace             ${events.toLocaleString('en')} events over ${ranks} ranks, ${spans.toLocaleString('en')} calls, ${mb.toFixed(0)} MB`,
  );
  const line = (name, xs) =>
    console.log(
      `${name.padEnd(18)}median ${median(xs.map((x) => x.wall)).toFixed(0)} ms wall, ${median(xs.map((x) => x.cpu)).toFixed(0)} ms CPU of ${runs} runs`,
    );
  line('replay', replay);
  line('traceTimeline', timeline);
} finally {
  rmSync(work, { recursive: true, force: true });
}
