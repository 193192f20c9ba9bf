// The analyzer dies mid-run (kill -9 of mpiscope itself): the application goes on and finishes with the same
// output and exit status as without mpiscope. The shim sees its connection drop and becomes a pass-through
// (native-shim/README.md, "How a rank's stream ends"); the launcher, in its own process group, outlives the
// CLI. mpirun's exit status is caught by a wrapper given as --mpirun, since the CLI that started it is gone.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readTrace } from '../../server/src/session/trace-file';
import { compileMpi, installedFlavors, processesMatching, repoRoot } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-analyzer-dies-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Long enough to be killed under: 1500 exchanges, each after a short sleep; the result and a status of 5.
const SOURCE = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, v, w = 0;
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 1500; i++) {
        v = i * (rank + 1);
        usleep(500);
        MPI_Sendrecv(&v, 1, MPI_INT, 1 - rank, 0, &w, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += w;
    }
    printf("rank %d sum %ld\\n", rank, sum);
    MPI_Finalize();
    return 5;
}
`;

interface Run {
  code: number | null;
  stdout: string;
}

function run(
  cmd: string,
  args: string[],
  onStdout?: (child: ReturnType<typeof spawn>) => void,
): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.resume();
    onStdout?.(child);
    const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
    // 'close': every holder of the pipes is done, the launcher and the ranks included.
    child.on('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout });
    });
  });
}

function plainLauncher(flavor: string): string[] {
  if (flavor === 'mpich') return ['mpiexec.mpich'];
  return ['mpirun.openmpi', '--oversubscribe', ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : [])];
}

const sorted = (s: string): string[] =>
  s
    .split('\n')
    .filter((l) => /^rank \d+ sum/.test(l))
    .sort();

for (const flavor of installedFlavors()) {
  test(`${flavor}: kill -9 of the analyzer mid-run: the job finishes with the output and status it has without mpiscope`, async () => {
    const dir = join(work, flavor);
    mkdirSync(dir);
    const app = join(dir, `dies-probe-${process.pid}-${flavor}`);
    writeFileSync(`${app}.c`, SOURCE);
    compileMpi(flavor, `${app}.c`, app);
    const [launcher = '', ...largs] = plainLauncher(flavor);
    const plain = await run(launcher, [...largs, '-np', '2', app]);
    assert.equal(sorted(plain.stdout).length, 2, `the plain run printed both results: ${plain.stdout}`);

    const status = join(dir, 'status');
    const wrapper = join(dir, 'launcher.sh');
    writeFileSync(wrapper, `#!/bin/sh\nmpirun.${flavor} "$@"\nrc=$?\necho $rc > ${status}\nexit $rc\n`);
    chmodSync(wrapper, 0o755);
    const trace = join(dir, 'run.trace');
    let killedAt = 0;
    const under = await run(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'run', '--trace', trace, '--mpirun', wrapper, '-np', '2', app],
      (cli) => {
        // Killed once both ranks' records are arriving: the analyzer dies in the middle of the exchanges.
        const poll = (): void => {
          const frames = existsSync(trace) ? readTrace(trace).filter((f) => f.kind === 'binary') : [];
          if (new Set(frames.map((f) => f.rank)).size === 2) {
            killedAt = frames.length;
            cli.kill('SIGKILL');
          } else setTimeout(poll, 20);
        };
        poll();
      },
    );
    assert.ok(killedAt > 0, 'the analyzer was killed while records arrived');
    assert.equal(under.code, null, 'the CLI died of SIGKILL');
    assert.deepEqual(sorted(under.stdout), sorted(plain.stdout), 'the same results');
    assert.equal(
      Number(readFileSync(status, 'utf8')),
      plain.code,
      "the launcher's exit status, as without mpiscope",
    );
    assert.deepEqual(processesMatching(app), [], 'no process of the job left');
  });
}
