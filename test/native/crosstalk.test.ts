// Two sessions at once on one machine, and a job whose ranks fork and run helper processes: no crosstalk. Each
// session's ranks reach only their own analyzer (the token), a forked child records nothing and does not end
// its parent's stream (its atexit handler finds the shim off), and a helper run through the shell stays inert.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compileMpi, installedFlavors, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-crosstalk-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Correct, with a fork in every rank (the child exits through exit(), so atexit handlers run) and a helper
// started through the shell, between MPI calls.
const FORKING = `#include <mpi.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, v = 1, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20; i++) {
        pid_t child = fork();
        if (child == 0) exit(0);
        waitpid(child, NULL, 0);
        MPI_Sendrecv(&v, 1, MPI_INT, 1 - rank, i, &w, 1, MPI_INT, 1 - rank, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (system("true") != 0) return 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`;

// One finding: rank 0's message is never received (line 8).
const UNMATCHED = `#include <mpi.h>
int main(int argc, char **argv) {
    int rank, v = 1, i;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 200; i++) MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { MPI_Isend(&v, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, &r); MPI_Request_free(&r); }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`;

interface Report {
  findings: { kind: string; locations: { line: number }[] }[];
  program: string;
  rankEndings: { rank: number; how: string }[];
}

for (const flavor of installedFlavors()) {
  test(`${flavor}: two sessions at once, ranks that fork and run helpers: each report is its own job's`, async () => {
    const dir = join(work, flavor);
    mkdirSync(dir);
    const jobs = [
      { name: 'forking', source: FORKING },
      { name: 'unmatched', source: UNMATCHED },
    ];
    for (const j of jobs) {
      writeFileSync(join(dir, `${j.name}.c`), j.source);
      compileMpi(flavor, join(dir, `${j.name}.c`), join(dir, j.name));
    }
    // Both sessions run at the same time, each with 2 ranks.
    const runs = await Promise.all(
      jobs.map((j) =>
        runCli(
          [
            'run',
            '--json',
            join(dir, `${j.name}.json`),
            '--mpirun',
            `mpirun.${flavor}`,
            '-np',
            '2',
            join(dir, j.name),
          ],
          { cwd: dir, timeoutMs: 120_000 },
        ),
      ),
    );
    const [forking, unmatched] = jobs.map(
      (j) => JSON.parse(readFileSync(join(dir, `${j.name}.json`), 'utf8')) as Report,
    );
    for (const r of runs)
      assert.doesNotMatch(r.stderr, /refused a connection|closed the connection/, r.stderr);
    assert.equal(runs[0]?.code, 0, `the forking job: ${runs[0]?.stderr ?? ''}`);
    assert.deepEqual(forking?.findings, []);
    assert.deepEqual(
      forking?.rankEndings.map((e) => e.how),
      ['finalized', 'finalized'],
      'forked children did not end the ranks',
    );
    assert.ok(forking?.program.endsWith('forking'));
    assert.deepEqual(
      unmatched?.findings.map((f) => [f.kind, f.locations.map((l) => l.line)]),
      [['unmatched-message', [8]]],
    );
    assert.ok(unmatched?.program.endsWith('unmatched'));
  });
}
