// `mpiscope export --chrome` on a real run's trace, on every installed MPI: a job whose rank 0 sends to
// rank 1 and whose ranks then deadlock in MPI_Recv, run with --trace, exported; the file must be the Trace
// Event Format's JSON object form with a thread per rank, the calls as slices, the message as a flow from
// rank 0 to rank 1, and the deadlock as instant events on both ranks at the source line.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { compileMpi, installedFlavors, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-export-'));
after(() => rmSync(work, { recursive: true, force: true }));

const SOURCE = `#include <mpi.h>
int main(int argc, char **argv) {
  int rank, x = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(&x, 1, MPI_INT, 1 - rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* line 8: both wait */
  MPI_Finalize();
  return 0;
}
`;

interface Ev {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  id?: number;
  args?: Record<string, unknown>;
}

for (const flavor of installedFlavors()) {
  describe(`export --chrome (${flavor})`, { timeout: 180_000 }, () => {
    it('writes calls, the message and the deadlock of a real run', async () => {
      const dir = mkdtempSync(join(work, `${flavor}-`));
      writeFileSync(join(dir, 'app.c'), SOURCE);
      compileMpi(flavor, join(dir, 'app.c'), join(dir, 'app'));
      const run = await runCli(['run', '--trace', 'app.mpitrace', '-np', '2', './app'], {
        cwd: dir,
        timeoutMs: 120_000,
        env: { MPISCOPE_MPI: flavor },
      });
      assert.equal(run.code, 1, `the deadlock is found (stderr: ${run.stderr})`);
      const exp = await runCli(['export', '--chrome', 'app.mpitrace'], { cwd: dir, timeoutMs: 60_000 });
      assert.equal(exp.code, 0, exp.stderr);
      assert.match(exp.stdout, /wrote .*app\.json .* 1 findings?/);
      const doc = JSON.parse(readFileSync(join(dir, 'app.json'), 'utf8')) as {
        traceEvents: Ev[];
        displayTimeUnit: string;
      };
      const ev = doc.traceEvents;
      assert.equal(doc.displayTimeUnit, 'ns');
      assert.deepEqual(
        ev.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args?.name]),
        [
          [0, 'rank 0'],
          [1, 'rank 1'],
        ],
      );
      const slices = ev.filter((e) => e.ph === 'X');
      for (const rank of [0, 1]) {
        const names = slices.filter((e) => e.tid === rank).map((e) => e.name);
        assert.ok(names.includes('MPI_Init'), `rank ${rank}: ${names.join(' ')}`);
        assert.ok(names.includes('MPI_Recv'), `rank ${rank}: ${names.join(' ')}`);
      }
      // The blocked receives had not returned: they are slices marked open, up to the end of the trace.
      assert.equal(slices.filter((e) => e.args?.open !== undefined && e.name === 'MPI_Recv').length, 2);
      const starts = ev.filter((e) => e.ph === 's');
      const ends = ev.filter((e) => e.ph === 'f');
      assert.equal(starts.length, 1);
      assert.equal(ends.length, 1);
      assert.deepEqual([starts[0]?.tid, ends[0]?.tid, starts[0]?.id], [0, 1, ends[0]?.id]);
      assert.equal(starts[0]?.args?.tag, 5);
      const send = slices.find((e) => e.tid === 0 && e.name === 'MPI_Send');
      assert.equal(starts[0]?.ts, send?.ts, 'the flow starts on the send');
      const instants = ev.filter((e) => e.ph === 'i');
      assert.deepEqual(instants.map((e) => [e.name, e.tid, e.args?.line]).sort(), [
        ['deadlock', 0, 8],
        ['deadlock', 1, 8],
      ]);
    });
  });
}
