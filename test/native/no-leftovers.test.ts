// After mpiscope ends a deadlocked job, no process of that job (mpirun, its helpers, the ranks) is left.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compileMpi, installedFlavors, processesMatching, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-leftovers-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Both ranks receive first: a deadlock the engine proves from the wait-for graph.
const DEADLOCK = `#include <mpi.h>
int main(int argc, char **argv) {
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`;

for (const flavor of installedFlavors()) {
  test(`${flavor}: nothing of a deadlocked job survives mpiscope`, async () => {
    const dir = join(work, flavor);
    mkdirSync(dir);
    const src = join(dir, 'recv-recv.c');
    writeFileSync(src, DEADLOCK);
    // A unique program name, so pgrep finds this job's processes only.
    const exe = join(dir, `leftover-probe-${process.pid}-${flavor}`);
    compileMpi(flavor, src, exe);
    const json = join(dir, 'r.json');
    const r = await runCli(
      ['run', '--json', json, '--deadlock-timeout', '20', '--mpirun', `mpirun.${flavor}`, '-np', '2', exe],
      { cwd: dir, timeoutMs: 60_000 },
    );
    assert.equal(r.code, 1, `exit status 1 (deadlock found); stderr: ${r.stderr}`);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { findings: { kind: string }[] };
    assert.ok(
      report.findings.some((f) => f.kind === 'deadlock'),
      'a deadlock finding',
    );
    assert.deepEqual(processesMatching(exe), [], 'processes of the job still running');
  });
}
