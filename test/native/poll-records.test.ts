// Polling loops under the shim: MPI_Iprobe / MPI_Test calls that find nothing are not recorded one by one
// (a loop makes millions; the analyzer fell behind and records were dropped), but the polls that find
// something are, so the run's findings do not change.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KIND, layouts } from '../../server/src/protocol/spec';
import { readTrace } from '../../server/src/session/trace-file';
import { compileMpi, installedFlavors, runCli, traceEvents } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-polls-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Rank 0 sends two messages late; rank 1 polls for the first with MPI_Iprobe and for the second with
// MPI_Test on an MPI_Irecv, for the third with MPI_Testsome, counting its polls, then prints the counts. Rank 0
// sends the third with an MPI_Isend of one int from a global (no finding sends its ENTER early), which both MPIs
// complete inside the call; then the fourth, which rank 1 polls for with MPI_Request_get_status (a poll that
// leaves the request active: ABySS polls so, and each empty poll was two records) before its MPI_Wait.
const source = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
static int third = 3;
int main(int argc, char **argv)
{
    int rank, x = 1, y = 0, flag = 0;
    long probes = 0, tests = 0, somes = 0, statuses = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        usleep(300000);
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        usleep(300000);
        MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        usleep(300000);
        MPI_Request sreq;
        MPI_Isend(&third, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &sreq);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        usleep(300000);
        MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
            probes++;
        }
        MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request req;
        MPI_Irecv(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
        for (flag = 0; !flag; tests++)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        int done = 0, index;
        MPI_Irecv(&y, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &req);
        for (; done == 0; somes++)
            MPI_Testsome(1, &req, &done, &index, MPI_STATUSES_IGNORE);
        MPI_Irecv(&y, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        for (flag = 0; !flag; statuses++)
            MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("polls %ld %ld %ld %ld\\n", probes, tests, somes, statuses);
    }
    MPI_Finalize();
    return 0;
}
`;

for (const flavor of installedFlavors()) {
  test(`${flavor}: polls that find nothing are not recorded one by one; those that find something are`, async () => {
    const src = join(work, `polls-${flavor}.c`);
    const exe = join(work, `polls-${flavor}`);
    writeFileSync(src, source);
    compileMpi(flavor, src, exe);
    const trace = join(work, `polls-${flavor}.trace`);
    const json = join(work, `polls-${flavor}.json`);
    const cli = await runCli(
      ['run', '--json', json, '--trace', trace, '--mpirun', `mpirun.${flavor}`, '-np', '2', exe],
      {
        cwd: work,
        timeoutMs: 90_000,
      },
    );
    assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
    const m = /polls (\d+) (\d+) (\d+) (\d+)/.exec(cli.stdout);
    assert.ok(m, cli.stdout);
    const [probes, tests, somes, statuses] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
    const calls = new Map<string, { enter: number; found: number }>();
    for (const e of traceEvents(trace)) {
      if (e.type !== 'enter' && e.type !== 'exit') continue;
      const c = calls.get(e.fn.name) ?? { enter: 0, found: 0 };
      if (e.type === 'enter') c.enter++;
      else if (e.outputs['flag'] === 1 || (e.fn.name === 'MPI_Testsome' && e.outputs['outcount'] === 1))
        c.found++;
      calls.set(e.fn.name, c);
    }
    const iprobe = calls.get('MPI_Iprobe') ?? { enter: 0, found: 0 };
    const mpiTest = calls.get('MPI_Test') ?? { enter: 0, found: 0 };
    // The successful poll of each loop is there; of the empty ones, about one in a thousand.
    assert.equal(iprobe.found, 1);
    assert.equal(mpiTest.found, 1);
    assert.ok(iprobe.enter <= 2 + probes / 512, `${iprobe.enter} MPI_Iprobe recorded of ${probes}`);
    assert.ok(mpiTest.enter <= 2 + tests / 512, `${mpiTest.enter} MPI_Test recorded of ${tests}`);
    const testsome = calls.get('MPI_Testsome') ?? { enter: 0, found: 0 };
    assert.equal(testsome.found, 1);
    assert.ok(testsome.enter <= 2 + somes / 512, `${testsome.enter} MPI_Testsome recorded of ${somes}`);
    const getStatus = calls.get('MPI_Request_get_status') ?? { enter: 0, found: 0 };
    assert.equal(getStatus.found, 1);
    assert.ok(
      getStatus.enter <= 2 + statuses / 512,
      `${getStatus.enter} MPI_Request_get_status recorded of ${statuses}`,
    );
    assert.ok(
      statuses > 1000,
      `only ${statuses} MPI_Request_get_status polls: the loop was too short to tell`,
    );
    assert.ok(probes + tests > 2000, `only ${probes + tests} polls: the loops were too short to tell`);

    // The records themselves: a poll that completed something is its ENTER and one COMPLETE_EXIT (its COMPLETE
    // and EXIT in one record, written with the ENTER in one reservation), not ENTER, COMPLETE, EXIT; so is an
    // MPI_Isend that MPI completed inside the call (the COMPLETE of its made-up request and its EXIT). Testsome's
    // EXIT has indices, so its COMPLETE stays a record of its own.
    const kinds = new Map<string, number>();
    for (const f of readTrace(trace)) {
      if (f.kind !== 'binary') continue;
      for (let at = 0; at < f.data.length; at += 64) {
        const kind = f.data.readUInt8(at);
        if (kind !== KIND.COMPLETE && kind !== KIND.COMPLETE_EXIT) continue;
        const key = `${layouts[f.data.readUInt16LE(at + 2)]?.spec.name} ${kind === KIND.COMPLETE ? 'COMPLETE' : 'COMPLETE_EXIT'}`;
        kinds.set(key, (kinds.get(key) ?? 0) + 1);
      }
    }
    const count = (key: string) => kinds.get(key) ?? 0;
    const seen = JSON.stringify(Object.fromEntries(kinds));
    assert.equal(count('MPI_Iprobe COMPLETE'), 0, seen);
    assert.equal(count('MPI_Iprobe COMPLETE_EXIT'), 1, seen);
    assert.equal(count('MPI_Test COMPLETE'), 0, seen);
    assert.equal(count('MPI_Test COMPLETE_EXIT'), 1, seen);
    assert.equal(count('MPI_Testsome COMPLETE'), 1, seen);
    assert.equal(count('MPI_Isend COMPLETE'), 0, seen);
    // Either MPI completed the Isend at once (its COMPLETE_EXIT) or its Wait did; and the fourth receive's Wait.
    assert.equal(count('MPI_Isend COMPLETE_EXIT') + count('MPI_Wait COMPLETE_EXIT'), 2, seen);
  });
}
