// A rank that ends badly (native-shim/README.md, "How a rank's stream ends"): by SIGSEGV, SIGABRT, SIGBUS,
// MPI_Abort, exit() without MPI_Finalize, an uncaught C++ exception, or SIGKILL from outside. For each, on both
// MPIs: every MPI call the rank made before the fault is in the trace (the program prints how many it made), the
// report says how the rank ended and where (the faulting line for a signal, from the crashing thread's stack;
// the last call for the others), the rest of the job is ended and no process of it is left, and the report comes
// (also when rebuilt from the trace).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readTrace } from '../../server/src/session/trace-file';
import { installedFlavors, processesMatching, repoRoot, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-faults-'));
after(() => rmSync(work, { recursive: true, force: true }));

const SOURCE = String.raw`// A rank that ends badly, one way per mode (argv[1]); rank 1 fails, the others wait for a message from it.
// Every MPI call goes through CALL, which counts it: the count is printed before the fault, so the test can
// check that the trace holds every call the rank made.
#include <mpi.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

static int calls;
#define CALL(x) (calls++, (x))

static void say(int rank)
{
    std::printf("mpiscope-fault rank %d calls %d pid %d\n", rank, calls, (int)getpid());
    std::fflush(stdout);
}

static void fail(const char *mode, int rank)
{
    if (!std::strcmp(mode, "segv")) {
        say(rank);
        *(volatile int *)nullptr = 1; // FAULT segv
    } else if (!std::strcmp(mode, "abort")) {
        say(rank);
        std::abort(); // FAULT abort
    } else if (!std::strcmp(mode, "bus")) {
        // A page of a file that has shrunk under its mapping: touching it is SIGBUS on Linux.
        FILE *f = std::tmpfile();
        int fd = fileno(f);
        if (ftruncate(fd, 4096) != 0) std::abort();
        volatile char *p = (volatile char *)mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (ftruncate(fd, 0) != 0) std::abort();
        say(rank);
        p[0] = 1; // FAULT bus
    } else if (!std::strcmp(mode, "mpi-abort")) {
        calls++; // MPI_Abort itself is recorded before it runs.
        say(rank);
        MPI_Abort(MPI_COMM_WORLD, 7); // FAULT mpi-abort
    } else if (!std::strcmp(mode, "exit")) {
        CALL(MPI_Barrier(MPI_COMM_SELF)); // FAULT exit
        say(rank);
        std::exit(3);
    } else if (!std::strcmp(mode, "throw")) {
        say(rank);
        throw std::runtime_error("mpiscope fault test"); // FAULT throw
    } else if (!std::strcmp(mode, "kill")) {
        // Waits for the SIGKILL the test sends once the trace holds every call made so far.
        int v = 0;
        calls++; // this receive, whose ENTER is sent before it blocks
        say(rank);
        MPI_Recv(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // FAULT kill
    }
}

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    CALL(MPI_Init(&argc, &argv));
    CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CALL(MPI_Comm_size(MPI_COMM_WORLD, &size));
    for (int i = 0; i < 20; i++) CALL(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        for (int i = 0; i < 100; i++)
            CALL(MPI_Sendrecv(&i, 1, MPI_INT, 0, i, &v, 1, MPI_INT, 0, i, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        fail(argc > 1 ? argv[1] : "", rank);
    } else {
        // Never satisfied: the job ends when rank 1 fails and the launcher ends the others.
        CALL(MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CALL(MPI_Finalize());
    return 0;
}
`;

/** The line of the source marked with "// FAULT mode". */
function markedLine(mode: string): number {
  const i = SOURCE.split('\n').findIndex((l) => l.endsWith(`// FAULT ${mode}`));
  assert.ok(i >= 0, `no FAULT ${mode} marker`);
  return i + 1;
}

/** ENTER records (kind 1 at byte 0 of a 64-byte record) of one rank in a trace: one per MPI call it made. */
function entersOf(trace: string, rank: number): number {
  let n = 0;
  for (const f of readTrace(trace)) {
    if (f.rank !== rank || f.kind !== 'binary') continue;
    for (let at = 0; at + 64 <= f.data.length; at += 64) if (f.data[at] === 1) n++;
  }
  return n;
}

interface Ending {
  rank: number;
  how: string;
  code?: number;
  signal?: string;
  lastCall: string;
  file: string;
  line: number;
}

interface Expected {
  how: string;
  signal?: string;
  code?: number;
  lastCall?: string;
}

const MODES: Record<string, Expected> = {
  segv: { how: 'signal', signal: 'SIGSEGV' },
  abort: { how: 'signal', signal: 'SIGABRT' },
  bus: { how: 'signal', signal: 'SIGBUS' },
  throw: { how: 'signal', signal: 'SIGABRT' },
  'mpi-abort': { how: 'abort', code: 7, lastCall: 'MPI_Abort' },
  exit: { how: 'exit-without-finalize', lastCall: 'MPI_Barrier' },
  kill: { how: 'disconnected', lastCall: 'MPI_Recv' },
};

function compile(flavor: string, dir: string): string {
  const src = join(dir, 'faults.cc');
  writeFileSync(src, SOURCE);
  // A unique program name, so pgrep finds this job's processes only.
  const exe = join(dir, `fault-probe-${process.pid}-${flavor}`);
  // mpicc, not mpicxx: Open MPI's mpicxx links its C++ bindings, whose constructors call MPI_Initialized
  // behind the program's back (calls the program cannot count). gcc compiles .cc as C++ (mpi.h told to skip
  // those bindings); libstdc++ by hand.
  const r = spawnSync(
    `mpicc.${flavor}`,
    ['-g', '-O0', '-DOMPI_SKIP_MPICXX', '-DMPICH_SKIP_MPICXX', '-o', exe, src, '-lstdc++'],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.equal(r.status, 0, `mpicc.${flavor} failed: ${r.stderr}`);
  return exe;
}

const PRINTED = /mpiscope-fault rank 1 calls (\d+) pid (\d+)/;

/**
 * mpiscope run on the program in one mode. For 'kill', rank 1 waits in MPI_Recv after printing its count; once
 * the trace holds that many of its calls, this sends it SIGKILL (from outside: the shim cannot run).
 */
function runMode(
  flavor: string,
  exe: string,
  mode: string,
  dir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const trace = join(dir, `${mode}.trace`);
  const args = [
    join(repoRoot(), 'dist', 'cli.js'),
    'run',
    '--json',
    join(dir, `${mode}.json`),
    '--trace',
    trace,
    '--deadlock-timeout',
    '30',
    '--mpirun',
    `mpirun.${flavor}`,
    '-np',
    '2',
    exe,
    mode,
  ];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killing = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = PRINTED.exec(stdout);
      if (mode !== 'kill' || m === null || killing) return;
      killing = true;
      const calls = Number(m[1]);
      const pid = Number(m[2]);
      const poll = (): void => {
        if (existsSync(trace) && entersOf(trace, 1) >= calls) process.kill(pid, 'SIGKILL');
        else setTimeout(poll, 20);
      };
      poll();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(deadline);
      done({ code, stdout, stderr });
    });
  });
}

for (const flavor of installedFlavors()) {
  describe(`a rank that ends badly (${flavor})`, { concurrency: 1 }, () => {
    const dir = join(work, flavor);
    mkdirSync(dir, { recursive: true });
    let exe = '';
    test('the fault program compiles', () => {
      exe = compile(flavor, dir);
    });
    for (const [mode, want] of Object.entries(MODES)) {
      test(`${mode}: every call is in the trace, the report says how and where rank 1 ended, the job is cleaned up`, async () => {
        const r = await runMode(flavor, exe, mode, dir);
        const printed = PRINTED.exec(r.stdout);
        assert.ok(
          printed !== null,
          `the program printed its count; stdout: ${r.stdout}\nstderr: ${r.stderr}`,
        );
        // The report still comes: a finding (1) or the job's own failure (3); never 2, 0 or a hang.
        assert.ok(r.code === 1 || r.code === 3, `exit status 1 or 3, got ${r.code}; stderr: ${r.stderr}`);
        const trace = join(dir, `${mode}.trace`);
        assert.equal(entersOf(trace, 1), Number(printed[1]), 'every MPI call of rank 1 is in the trace');

        const report = JSON.parse(readFileSync(join(dir, `${mode}.json`), 'utf8')) as {
          rankEndings: Ending[];
        };
        const ending = report.rankEndings.find((e) => e.rank === 1);
        assert.ok(ending !== undefined, 'rank 1 has an ending');
        assert.equal(ending.how, want.how);
        if (want.signal !== undefined) assert.equal(ending.signal, want.signal);
        if (want.code !== undefined) assert.equal(ending.code, want.code);
        if (want.lastCall !== undefined) assert.equal(ending.lastCall, want.lastCall);
        assert.ok(ending.file.endsWith('faults.cc'), `where: ${JSON.stringify(ending)}`);
        assert.equal(
          ending.line,
          markedLine(mode),
          `the line of "// FAULT ${mode}": ${JSON.stringify(ending)}`,
        );
        const human = r.stdout + r.stderr;
        assert.match(
          human,
          new RegExp(
            `rank 1 (died of ${want.signal ?? '-'}|aborted|exited without|vanished).*faults\\.cc:${markedLine(mode)}`,
          ),
        );

        // Rebuilt from the trace, the report says the same.
        const replay = await runCli(['report', trace, '--json', join(dir, `${mode}-replay.json`)], {
          cwd: dir,
        });
        assert.ok(replay.code === 1 || replay.code === 3, `mpiscope report: ${replay.stderr}`);
        const again = JSON.parse(readFileSync(join(dir, `${mode}-replay.json`), 'utf8')) as {
          rankEndings: Ending[];
        };
        assert.deepEqual(
          again.rankEndings.find((e) => e.rank === 1),
          ending,
        );
        assert.deepEqual(processesMatching(exe), [], 'processes of the job still running');
      });
    }
    test('a trace cut mid-record: mpiscope report reads up to the cut and says where it stopped', async () => {
      const trace = join(dir, 'segv.trace');
      const whole = readFileSync(trace);
      const cutTrace = join(dir, 'cut.trace');
      // 100 bytes before the end: inside the last frame, whatever it is.
      writeFileSync(cutTrace, whole.subarray(0, whole.length - 100));
      const r = await runCli(['report', cutTrace, '--json', join(dir, 'cut.json')], { cwd: dir });
      assert.ok(r.code === 0 || r.code === 1 || r.code === 3, `exit ${r.code}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(`cut\\.trace stops at byte \\d+ of ${whole.length - 100}: it ends inside`),
      );
      const report = JSON.parse(readFileSync(join(dir, 'cut.json'), 'utf8')) as { rankEndings: Ending[] };
      assert.equal(report.rankEndings.length, 2, 'a report of both ranks');
    });
  });
}
