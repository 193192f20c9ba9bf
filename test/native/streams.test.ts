// The job's standard streams under `mpiscope run` are what they are under the launcher alone: stdin reaches
// rank 0, stdout is byte for byte the job's, a job that fails on its own exits 3, and Ctrl-C ends the job
// (and prints the report) with 130. Each is compared with the same program under plain mpirun/mpiexec.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Session } from '../../server/src/session/session';
import { compileMpi, installedFlavors, processesMatching, repoRoot } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-streams-'));
after(() => rmSync(work, { recursive: true, force: true }));

const SOURCES: Record<string, string> = {
  // Rank 0 reads all of stdin and every rank prints its checksum and length (only rank 0 gets input).
  'stdin-sum': `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  unsigned long sum = 0, n = 0; int c;
  if (rank == 0) while ((c = getchar()) != EOF) { sum = sum * 31 + (unsigned char)c; n++; }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d sum %lu n %lu\\n", rank, sum, n);
  MPI_Finalize();
  return 0;
}
`,
  // Rank 0 writes every byte value and multibyte UTF-8 text, in pieces of awkward sizes, then the job ends.
  'bytes-out': `#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    unsigned char buf[4099];
    for (int round = 0; round < 64; round++) {
      for (int i = 0; i < (int)sizeof buf; i++) buf[i] = (unsigned char)(i * 7 + round);
      fwrite(buf, 1, sizeof buf - (size_t)round, stdout);
      const char *text = "h\\xc3\\xa9llo w\\xc3\\xb6rld \\xe2\\x82\\xac \\xf0\\x9f\\x98\\x80\\n";
      fwrite(text, 1, strlen(text), stdout);
    }
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
`,
  // Every rank finishes MPI correctly; then rank 1 fails on its own (exit status 3, or abort()).
  'fails-after': `#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 1 && argc > 1 && strcmp(argv[1], "abort") == 0) abort();
  return rank == 1 ? 3 : 0;
}
`,
  // Rank 0 says it is ready and then sleeps outside MPI; the others wait for it in MPI_Recv. No deadlock
  // (rank 0 could still send): only the user can end it.
  'waits-forever': `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, x = 0; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) { printf("ready\\n"); fflush(stdout); for (;;) sleep(1); }
  MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
`,
};

interface Run {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Run a command with stdin from a file (or /dev/null), collecting stdout as bytes. */
function run(
  cmd: string,
  args: readonly string[],
  opts: {
    stdin?: string;
    timeoutMs?: number;
    onStdout?: (all: Buffer, kill: (s: NodeJS.Signals) => void) => void;
  } = {},
): Promise<Run> {
  const fd = openSync(opts.stdin ?? '/dev/null', 'r');
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: work, stdio: [fd, 'pipe', 'pipe'] });
    closeSync(fd);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      out.push(d);
      opts.onStdout?.(Buffer.concat(out), (s) => child.kill(s));
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const limit = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout: Buffer.concat(out), stderr });
    });
  });
}

function plainLauncher(flavor: string): string[] {
  if (flavor === 'mpich') return ['mpiexec.mpich'];
  return ['mpirun.openmpi', '--oversubscribe', ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : [])];
}

const cli = join(repoRoot(), 'dist', 'cli.js');

for (const flavor of installedFlavors()) {
  describe(`standard streams and exit status (${flavor})`, () => {
    const exe = (name: string): string => {
      const path = join(work, `${name}-${flavor}`);
      writeFileSync(`${path}.c`, SOURCES[name] ?? '');
      compileMpi(flavor, `${path}.c`, path);
      return path;
    };

    test('stdin reaches rank 0, as under the launcher alone', async () => {
      const app = exe('stdin-sum');
      // 5000 bytes: Hydra's stdin forwarding fails with larger regular files even without mpiscope
      // ("process reading stdin too slowly"), and this test compares with the launcher alone.
      const input = join(work, 'input');
      writeFileSync(input, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131 + 7) & 255)));
      const [launcher = '', ...largs] = plainLauncher(flavor);
      const plain = await run(launcher, [...largs, '-np', '2', app], { stdin: input });
      const under = await run(process.execPath, [cli, 'run', '-np', '2', '--', app], { stdin: input });
      const ranks = (r: Run): string[] =>
        r.stdout
          .toString()
          .split('\n')
          .filter((l) => l.startsWith('rank '))
          .sort();
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(under.code, 0, under.stderr);
      assert.match(ranks(plain)[0] ?? '', /^rank 0 sum \d+ n 5000$/);
      assert.deepEqual(ranks(under), ranks(plain));
    });

    test('a stdin file (the launch configuration\'s "stdin") reaches rank 0 through the session', async () => {
      const app = exe('stdin-sum');
      const input = join(work, 'input-session');
      writeFileSync(input, 'forty-two bytes of input for rank zero....\n');
      const session = new Session({ program: app, args: [], np: 2, cwd: work, stdin: input });
      let out = '';
      session.on('output', (text, stream) => {
        if (stream === 'stdout') out += text;
      });
      const result = await session.run();
      assert.equal(result.outcome, 'completed');
      assert.match(out, /^rank 0 sum \d+ n 43$/m);
      assert.match(out, /^rank 1 sum \d+ n 0$/m);
    });

    test("the job's stdout is byte for byte what the launcher alone prints", async () => {
      const app = exe('bytes-out');
      const [launcher = '', ...largs] = plainLauncher(flavor);
      const plain = await run(launcher, [...largs, '-np', '2', app]);
      const under = await run(process.execPath, [cli, 'run', '-np', '2', app]);
      assert.equal(under.code, 0, under.stderr);
      assert.ok(plain.stdout.length > 64 * 4000, `the program wrote ${plain.stdout.length} bytes`);
      // The report follows the job's output.
      assert.ok(
        under.stdout.subarray(0, plain.stdout.length).equals(plain.stdout),
        'the first bytes of stdout under mpiscope are the bytes of the plain run',
      );
      assert.match(under.stdout.subarray(plain.stdout.length).toString(), /^mpiscope: /);
    });

    test('a job that fails on its own exits 3 (not 0), with no finding', async () => {
      const app = exe('fails-after');
      for (const mode of ['exit', 'abort']) {
        const r = await run(process.execPath, [cli, 'run', '-np', '2', app, mode]);
        assert.equal(r.code, 3, `${mode}: ${r.stdout.toString()}\n${r.stderr}`);
        assert.match(r.stdout.toString(), /no findings; the job failed/);
      }
    });

    test('Ctrl-C ends the job as it would end mpirun, prints the report and exits 130', async () => {
      const app = exe('waits-forever');
      let sent = false;
      const r = await run(process.execPath, [cli, 'run', '-np', '3', app], {
        timeoutMs: 60_000,
        onStdout: (all, kill) => {
          if (!sent && all.includes('ready\n')) {
            sent = true;
            kill('SIGINT');
          }
        },
      });
      assert.ok(sent, `the job never said it was ready: ${r.stderr}`);
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stdout.toString(), /the job was terminated/);
      assert.deepEqual(processesMatching(app), [], 'no rank is left running');
    });
  });
}
