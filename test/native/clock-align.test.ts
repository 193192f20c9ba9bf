// Clock alignment (issue 11 §5): one rank's record clock is skewed by an offset and a drift
// (MPISCOPE_TEST_CLOCK_SKEW, honoured by the shim for tests only), as a host with a wrong clock; the trace's
// timeline must still have every message arrive after it was sent, thanks to the offsets the shim measured
// against rank 0 at MPI_Init and MPI_Finalize. The same trace aligned by realtime alone (the CLOCK records
// without their measurements) must show the skew, so the test cannot pass without the measurement.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureShim } from '../../server/src/session/shim-locator';
import type { MpiFlavor } from '../../server/src/session/mpi-flavor';
import { readTrace, SESSION_RANK } from '../../server/src/session/trace-file';
import { createFrameDecoder } from '../../server/src/session/engine-port';
import { TimelineModel } from '../../server/src/timeline/timeline-model';
import { traceClocks } from '../../server/src/timeline/trace-clocks';
import { compileMpi, installedFlavors, runCli } from '../lib/mpiscope-cli';

/** Rank 0 and rank 1 ping-pong 40 times, 10 ms apart: half a second for the drift to show. */
const PINGPONG = `#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 40; i++) {
        if (rank == 0) {
            usleep(10000);
            MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
`;

const work = mkdtempSync(join(tmpdir(), 'mpiscope-clock-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(async () => {
  for (const flavor of installedFlavors()) await ensureShim(flavor as MpiFlavor);
});

/** Half the widest measured interval of rank 1: how far the alignment may be off (the fastest ping-pong's bound). */
let uncertainty = 0;

/** The messages of the trace's timeline: [send time, receive time] pairs; `measured` false drops the measurements. */
function messages(trace: string, measured: boolean): { send: number; recv: number }[] {
  const frames = readTrace(trace);
  const model = new TimelineModel(2);
  if (measured) for (const c of traceClocks(frames, 2)) model.preloadClock(c);
  const decoders = new Map<number, ReturnType<typeof createFrameDecoder>>();
  let measurements = 0;
  for (const f of frames) {
    if (f.kind !== 'binary' || f.rank === SESSION_RANK) continue;
    let d = decoders.get(f.rank);
    if (d === undefined) decoders.set(f.rank, (d = createFrameDecoder(f.rank)));
    for (const e of d.decode(f.data)) {
      if (e.type === 'clock' && e.bounds !== undefined) {
        measurements++;
        if (e.rank === 1) uncertainty = Math.max(uncertainty, (e.bounds.hi - e.bounds.lo) / 2);
        if (!measured) continue;
      }
      model.push(e);
    }
  }
  if (measured) assert.ok(measurements >= 4, `CLOCK measurements in the trace: ${measurements}`);
  const m = model.takeBatch()?.messages;
  const out: { send: number; recv: number }[] = [];
  for (let k = 0; k < (m?.src.length ?? 0); k++)
    out.push({ send: m?.sendTime[k] as number, recv: m?.recvTime[k] as number });
  return out;
}

for (const flavor of installedFlavors()) {
  test(`${flavor}: a rank 50 ms behind and 2000 ppm slow still has every message arrive after it was sent`, async () => {
    const source = join(work, `pingpong-${flavor}.c`);
    const exe = join(work, `pingpong-${flavor}`);
    const trace = join(work, `pingpong-${flavor}.trace`);
    writeFileSync(source, PINGPONG);
    compileMpi(flavor, source, exe);
    const cli = await runCli(['run', '--trace', trace, '--mpirun', `mpirun.${flavor}`, '-np', '2', exe], {
      cwd: work,
      timeoutMs: 90_000,
      env: { MPISCOPE_TEST_CLOCK_SKEW: '1:-50000000:-2000', MPISCOPE_CLOCK_ALIGN: '1' },
    });
    assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);

    const aligned = messages(trace, true);
    assert.equal(aligned.length, 80, 'every send and its receive paired');
    // On a quiet machine the fastest ping-pong takes microseconds and no message is early at all; on a loaded one
    // (every round trip waits for the scheduler) the interval widens, and the alignment is right within it.
    // Plus 50 us: a stamp is converted to ns with the TSC rate known when it is sent, the ping-pong's with the
    // rate known then (msc_clock.c refines it over the run; tens of ppm early on).
    const early = aligned.filter((x) => x.recv < x.send - uncertainty - 50_000);
    assert.deepEqual(early, [], `no message arrives before it was sent (uncertainty ${uncertainty} ns)`);
    assert.ok(
      uncertainty < 10_000_000,
      `the measurement bounds the offset to less than 10 ms: ${uncertainty} ns`,
    );

    // Realtime alone puts rank 1 50 ms early: its receives before rank 0's sends, and rank 0's receives after.
    const naive = messages(trace, false);
    assert.ok(
      naive.filter((x) => x.recv < x.send - 40_000_000).length >= 30,
      `the skew shows without the measurements: ${JSON.stringify(naive.slice(0, 4))}`,
    );
  });
}
