// Quiet calls under the shim (native-shim/spec/mpi-api.json "quiet": MPI_Pack, MPI_Comm_rank…): a loop of them is
// not recorded call by call (ESyS-Particle packs one double per MPI_Pack, tens of millions a run, and the job under
// mpiscope ran over 15 times as long as bare), but a call the shim found wrong is, and every call is once a second
// thread called MPI, so the run's findings do not change.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compileMpi, installedFlavors, readReport, runCli, traceEvents } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-quiet-'));
after(() => rmSync(work, { recursive: true, force: true }));

const LOOP = 100_000;
const AFTER_THREAD = 3_000;
// Each rank packs one double LOOP times, once with a negative count (line 25: the shim's finding), then starts a
// thread that calls MPI_Comm_rank, and packs AFTER_THREAD times more.
const source = `#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
static void *other(void *arg) { int r; (void)arg; MPI_Comm_rank(MPI_COMM_WORLD, &r); return NULL; }
static int pack(int count) { static char buf[64]; double d = 1.0; int pos = 0;
    return MPI_Pack(&d, count, MPI_DOUBLE, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD); }
int main(int argc, char **argv)
{
    int provided, rank, failed = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < ${LOOP}; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (pack(i == ${LOOP / 2} ? -1 : 1) != MPI_SUCCESS) failed++;
    }
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < ${AFTER_THREAD}; i++) pack(1);
    if (rank == 0) printf("failed %d provided %d\\n", failed, provided);
    MPI_Finalize();
    return 0;
}
`;
const BAD_PACK_LINE = 6;

for (const flavor of installedFlavors()) {
  test(`${flavor}: a loop of quiet calls is sampled; a wrong one is recorded, and all once a second thread called MPI`, async () => {
    const src = join(work, `quiet-${flavor}.c`);
    const exe = join(work, `quiet-${flavor}`);
    writeFileSync(src, source);
    compileMpi(flavor, src, exe);
    const trace = join(work, `quiet-${flavor}.trace`);
    const json = join(work, `quiet-${flavor}.json`);
    const cli = await runCli(
      ['run', '--json', json, '--trace', trace, '--mpirun', `mpirun.${flavor}`, '-np', '2', exe],
      { cwd: work, timeoutMs: 90_000 },
    );
    assert.match(cli.stdout, /failed 1 provided 3/, `${cli.stdout}\n${cli.stderr}`);
    const report = readReport(json);
    const found = report.findings.map(
      (f) => `${f.kind} ${f.locations.map((l) => `${l.rank}:${l.line}`).join(',')}`,
    );
    assert.deepEqual(found, [`invalid-argument 0:${BAD_PACK_LINE},1:${BAD_PACK_LINE}`]);

    const packs = new Map<number, number>();
    for (const e of traceEvents(trace))
      if (e.type === 'enter' && e.fn.name === 'MPI_Pack') packs.set(e.rank, (packs.get(e.rank) ?? 0) + 1);
    for (const rank of [0, 1]) {
      const n = packs.get(rank) ?? 0;
      // Every pack after the thread; of the loop, the first 64, one in 1024 of the rest, and the wrong one.
      assert.ok(
        n >= AFTER_THREAD + 1 && n <= AFTER_THREAD + 64 + LOOP / 512,
        `rank ${rank}: ${n} MPI_Pack recorded of ${LOOP + AFTER_THREAD}`,
      );
    }
  });
}
