// A job mpiscope cannot observe says so, in one line with what to do: a statically linked program, a rank
// that cannot reach the analyzer, ranks whose MPI calls never arrive (exit 2 when some rank was not observed,
// also when the job hangs without a single event).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { compileMpi, installedFlavors, processesMatching, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-silent-'));
after(() => rmSync(work, { recursive: true, force: true }));

// The ranks named in LOST_RANKS (or all, with "all") start again with an analyzer URL nothing listens on,
// before MPI_Init: their first image said hello, the second cannot connect, so none of their MPI calls
// reach mpiscope. With "hang" the ranks then wait for each other forever.
const LOSES_RANKS = `#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int launcher_rank(void) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMI_RANK");
  return r ? atoi(r) : -1;
}
int main(int argc, char **argv) {
  const char *lost = argc > 1 ? argv[1] : "";
  int me = launcher_rank();
  char mine[16];
  snprintf(mine, sizeof mine, "%d", me);
  if (!getenv("LOST_AGAIN") && (strcmp(lost, "all") == 0 || strcmp(lost, mine) == 0)) {
    setenv("LOST_AGAIN", "1", 1);
    setenv("MPISCOPE_URL", "ws://127.0.0.1:1/", 1);
    execv("/proc/self/exe", argv);
  }
  MPI_Init(&argc, &argv);
  int rank, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 2 && strcmp(argv[2], "hang") == 0)
    MPI_Recv(&x, 1, MPI_INT, (rank + 1) % 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
`;

test('a statically linked program: exit 2 and the reason LD_PRELOAD cannot work', async () => {
  const src = join(work, 'static.c');
  const exe = join(work, 'static-app');
  // Debian ships no static MPI libraries; a static program of any kind is refused for the same reason,
  // before anything else is asked of it.
  writeFileSync(
    src,
    '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n',
  );
  let built = installedFlavors().some(
    (f) => spawnSync(`mpicc.${f}`, ['-static', '-o', exe, src], { stdio: 'ignore' }).status === 0,
  );
  if (!built) {
    writeFileSync(src, 'int main(void) { return 0; }\n');
    built = spawnSync('cc', ['-static', '-o', exe, src], { stdio: 'ignore' }).status === 0;
  }
  assert.ok(built, 'could not build a static executable (is the C library static archive installed?)');
  const r = await runCli(['run', '-np', '2', exe], { cwd: work, timeoutMs: 30_000 });
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0] ?? '', /^mpiscope: .*static-app is statically linked.*LD_PRELOAD.*without -static/);
});

for (const flavor of installedFlavors()) {
  describe(`ranks mpiscope cannot see (${flavor})`, () => {
    const app = join(work, `loses-ranks-${flavor}`);
    const build = (): void => {
      writeFileSync(`${app}.c`, LOSES_RANKS);
      compileMpi(flavor, `${app}.c`, app);
    };

    test('a rank that cannot reach the analyzer says which rank, on which host, where and why; the report says it is not covered', async () => {
      build();
      const r = await runCli(['run', '-np', '2', app, '1'], { cwd: work, timeoutMs: 60_000 });
      assert.match(
        r.stderr,
        /mpiscope: rank 1 on host \S+ cannot reach the analyzer at ws:\/\/127\.0\.0\.1:1\/: Connection refused; it runs without recording/,
      );
      assert.match(
        r.stderr,
        /mpiscope: the findings do not cover rank 1 .*: rank 1 .*none of its MPI calls reached mpiscope/,
      );
      // Rank 0 was observed and the job completed, but a run only partly checked must not pass as clean in CI.
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stdout, /Not checked: /);
    });

    test('no rank observed: exit 2 with one line that says why', async () => {
      build();
      const r = await runCli(['run', '-np', '2', app, 'all'], { cwd: work, timeoutMs: 60_000 });
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /mpiscope: could not observe this job \(the job exited with 0\): ranks 0, 1 .*none of their MPI calls reached mpiscope/,
      );
    });

    test('a job from which no event ever arrives is ended after --deadlock-timeout, exit 2', async () => {
      build();
      const r = await runCli(['run', '--deadlock-timeout', '2', '-np', '2', app, 'all', 'hang'], {
        cwd: work,
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /could not observe this job \(mpiscope ended the job after 2 s in which no MPI call arrived\)/,
      );
      assert.deepEqual(processesMatching(app), [], 'no rank is left running');
    });
  });
}

test('the shim in a process the rank starts stays inert (no second hello, no line)', async () => {
  const flavor = installedFlavors()[0];
  assert.ok(flavor !== undefined);
  const src = join(work, 'spawns.c');
  const exe = join(work, 'spawns');
  // Each rank runs a shell command through system(): the shell inherits LD_PRELOAD and the launcher's
  // variables but is not the launched program, so it must not connect as the rank again.
  writeFileSync(
    src,
    '#include <mpi.h>\n#include <stdlib.h>\nint main(int c, char **v) { MPI_Init(&c, &v); int rc = system("true"); MPI_Finalize(); return rc; }\n',
  );
  compileMpi(flavor, src, exe);
  const r = await runCli(['run', '-np', '2', exe], { cwd: work, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /refused a connection|connected twice|cannot reach/);
  assert.match(r.stdout, /no findings; the job completed/);
});

// A check the shim turns off itself is named too: the heap check's walks, with a bound made tiny here
// (MPISCOPE_HEAP_WALK_STEPS), stop judging slices of heap blocks on every rank; the report says so, and the slice
// past its block after that goes unreported rather than passing as checked.
const HEAP_SLICES = `#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  enum { N = 2000 };
  static double *blk[N];
  double out[16] = {0}, total = 0;
  MPI_Init(&argc, &argv);
  for (int i = 0; i < N; i++) blk[i] = calloc(8, sizeof(double));
  for (int i = 0; i < N; i += 10) {
    MPI_Allreduce(blk[i] + 1, out, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += out[0];
  }
  MPI_Allreduce(blk[N - 5] + 4, out, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("%g\\n", total + out[0]);
  MPI_Finalize();
  return 0;
}
`;

test('the heap check stops judging slices past its bound: the report names it, on every rank', async () => {
  const flavor = installedFlavors()[0];
  assert.ok(flavor !== undefined);
  const src = join(work, 'heap-slices.c');
  const exe = join(work, 'heap-slices');
  writeFileSync(src, HEAP_SLICES);
  compileMpi(flavor, src, exe);
  const json = join(work, 'heap-slices.json');
  const r = await runCli(['run', '--json', json, '-np', '2', exe], {
    cwd: work,
    timeoutMs: 60_000,
    env: { MPISCOPE_HEAP_WALK_STEPS: '100' },
  });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(
    r.stdout,
    /Not checked: invalid-argument \(heap-buffer-too-small: buffers inside a heap block, past the first calls\): on ranks 0, 1 finding the heap block/,
  );
  const report = JSON.parse(readFileSync(json, 'utf8')) as {
    findings: unknown[];
    skippedChecks: { cause: string }[];
  };
  assert.deepEqual(report.findings, []);
  assert.deepEqual(
    report.skippedChecks.map((s) => s.cause),
    ['bound'],
  );
  // With the default bound the same program's last slice is found, on both ranks.
  const again = await runCli(['run', '-np', '2', exe], { cwd: work, timeoutMs: 60_000 });
  assert.equal(again.code, 1, again.stderr + again.stdout);
  assert.match(again.stdout, /MPI_Allreduce's sendbuf reaches past the end of its heap block/);
  assert.doesNotMatch(again.stdout, /Not checked/);
});

// The shim's handle tables grow past their first 4,096 slots (send-buffer-modified-many-pending.c finds a write into
// the 6,000th pending send's buffer); past their last level they stop tracking, and the report says which check on
// which ranks. MPISCOPE_TABLE_LEVELS=1 keeps them at the first level here: 6,000 sends pending at once on rank 0.
const MANY_PENDING = `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  enum { N = 6000 };
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int *data = malloc(N * sizeof *data);
  MPI_Request *reqs = malloc(N * sizeof *reqs);
  for (int i = 0; i < N; i++) data[i] = i;
  for (int i = 0; i < N; i++) {
    if (rank == 0) MPI_Isend(&data[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
    else MPI_Irecv(&data[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &reqs[i]);
  }
  MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
  free(reqs);
  free(data);
  MPI_Finalize();
  return 0;
}
`;

test('a full handle table: the report names the check it turns off, on the rank where it filled, once', async () => {
  const src = join(work, 'many-pending.c');
  writeFileSync(src, MANY_PENDING);
  for (const flavor of installedFlavors()) {
    const exe = join(work, `many-pending-${flavor}`);
    compileMpi(flavor, src, exe);
    const json = join(work, `many-pending-${flavor}.json`);
    const r = await runCli(['run', '--json', json, '--mpirun', `mpirun.${flavor}`, '-np', '2', exe], {
      cwd: work,
      timeoutMs: 120_000,
      env: { MPISCOPE_TABLE_LEVELS: '1' },
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      findings: unknown[];
      skippedChecks: { cause: string; checks: string[]; reason: string }[];
    };
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.skippedChecks, [
      {
        cause: 'bound',
        checks: ['send-buffer-modified (sends started while the bound was reached)'],
        reason:
          "on rank 0 more nonblocking sends were pending at once than the shim's table of pending sends holds.",
      },
    ]);
    // With the tables' default levels nothing is left unchecked.
    const again = await runCli(['run', '--mpirun', `mpirun.${flavor}`, '-np', '2', exe], {
      cwd: work,
      timeoutMs: 120_000,
    });
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.doesNotMatch(again.stdout, /Not checked/);
  }
});
