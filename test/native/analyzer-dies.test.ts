// The analyzer dies mid-run (kill -9 of mpiscope itself): the application goes on and finishes with the same
// output and exit status as without mpiscope. The analyzer is stopped (SIGSTOP) for seconds: the ranks wait on
// their full rings (native-shim/README.md, "The ring") and nothing is lost. The shim sees its connection drop and becomes a pass-through
// (native-shim/README.md, "How a rank's stream ends"); the launcher, in its own process group, outlives the
// CLI. mpirun's exit status is caught by a wrapper given as --mpirun, since the CLI that started it is gone.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { functions } from '../../server/src/protocol/spec';
import { mergeSpills, spillFilesOf } from '../../server/src/session/spill';
import { readTrace, readTraceUpToCut, type TraceFrame } from '../../server/src/session/trace-file';
import { compileMpi, installedFlavors, processesMatching, repoRoot } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-analyzer-dies-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Long enough to be killed under (a few seconds on a loaded machine): ITERATIONS exchanges, each after a short sleep; the result and a status of 5.
const ITERATIONS = 500;
const SOURCE = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, v, w = 0;
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < ${ITERATIONS}; i++) {
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

// Ranks that stream faster than a stopped analyzer's sockets can hold (tens of MB each: more than loopback TCP
// buffers), so that each rank's sender blocks in its socket's send for the whole stop, beyond its 5 s timeout.
// MPI_Initialized: a loop of MPI_Comm_rank is sampled by the shim (native-shim/spec/README.md, "quiet").
const FLOOD_CALLS = 1_500_000;
const FLOOD = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, r = 0, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < ${FLOOD_CALLS}; i++) {
        MPI_Initialized(&r);
        sum += r;
    }
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d sum %d\\n", rank, sum);
    MPI_Finalize();
    return 0;
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

/** MPI_Initialized's function id in the records (spec order). */
const INITIALIZED = functions.findIndex((f) => f.name === 'MPI_Initialized');

/** MPI_Sendrecv's function id in the records (spec order). */
const SENDRECV = functions.findIndex((f) => f.name === 'MPI_Sendrecv');

/** ENTER records of function `fn` (MPI_Sendrecv by default) of each of the two ranks in these frames. */
function entersOf(frames: readonly TraceFrame[], fn = SENDRECV): number[] {
  const counts = [0, 0];
  for (const f of frames)
    if (f.kind === 'binary')
      for (let at = 0; at + 64 <= f.data.length; at += 64)
        if (f.data[at] === 1 && f.data.readUInt16LE(at + 2) === fn)
          counts[f.rank] = (counts[f.rank] ?? 0) + 1;
  return counts;
}

const sorted = (s: string): string[] =>
  s
    .split('\n')
    .filter((l) => /^rank \d+ sum/.test(l))
    .sort();

for (const flavor of installedFlavors()) {
  test(`${flavor}: the analyzer stopped for 3 s mid-run: the job is throttled, not broken, and nothing is lost`, async () => {
    const dir = join(work, `${flavor}-stop`);
    mkdirSync(dir);
    const app = join(dir, `stop-probe-${process.pid}-${flavor}`);
    writeFileSync(`${app}.c`, SOURCE);
    compileMpi(flavor, `${app}.c`, app);
    const trace = join(dir, 'run.trace');
    const json = join(dir, 'run.json');
    let stopped = false;
    const under = await run(
      process.execPath,
      [
        join(repoRoot(), 'dist', 'cli.js'),
        'run',
        '--json',
        json,
        '--trace',
        trace,
        // A 64-record ring, so that the stop fills it and the ranks must wait for room.
        '--mpirun',
        flavor === 'openmpi'
          ? 'mpirun.openmpi -x MPISCOPE_RING_RECORDS=64'
          : 'mpiexec.mpich -genv MPISCOPE_RING_RECORDS 64',
        '-np',
        '2',
        app,
      ],
      (cli) => {
        const poll = (): void => {
          const frames = existsSync(trace) ? readTrace(trace).filter((f) => f.kind === 'binary') : [];
          if (new Set(frames.map((f) => f.rank)).size < 2) return void setTimeout(poll, 20);
          stopped = true;
          cli.kill('SIGSTOP');
          // The stop is what is under test, not a wait for readiness: the ranks fill their 64-record rings
          // within a few exchanges, then wait for the analyzer.
          setTimeout(() => cli.kill('SIGCONT'), 3000);
        };
        poll();
      },
    );
    assert.ok(stopped, 'the analyzer was stopped while records arrived');
    // The program exits 5 on its own: no finding, and the job's own failure is mpiscope's 3.
    assert.equal(under.code, 3);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { lostRecords: number; findings: unknown[] };
    assert.equal(report.lostRecords, 0, 'no record dropped');
    assert.deepEqual(report.findings, []);
    // Every exchange of both ranks is in the trace: one MPI_Sendrecv ENTER each.
    assert.deepEqual(entersOf(readTrace(trace)), [ITERATIONS, ITERATIONS]);
    assert.deepEqual(spillFilesOf(trace), [], 'a stopped analyzer is no dead one: nothing spilled');
    assert.deepEqual(sorted(under.stdout).length, 2);
  });

  test(`${flavor}: the analyzer stopped for longer than a send may wait, with the ranks streaming: no rank is lost`, async () => {
    const dir = join(work, `${flavor}-flood`);
    mkdirSync(dir);
    const app = join(dir, `flood-probe-${process.pid}-${flavor}`);
    writeFileSync(`${app}.c`, FLOOD);
    compileMpi(flavor, `${app}.c`, app);
    const trace = join(dir, 'run.trace');
    const json = join(dir, 'run.json');
    let stopped = false;
    let stderr = '';
    const under = await run(
      process.execPath,
      [
        join(repoRoot(), 'dist', 'cli.js'),
        'run',
        '--json',
        json,
        '--trace',
        trace,
        // Each send of the shim waits at most 0.5 s for the analyzer to take a byte (5 s by default), then
        // waits on while the connection is alive; the stop below lasts 4 s.
        '--mpirun',
        flavor === 'openmpi'
          ? 'mpirun.openmpi -x MPISCOPE_SEND_TIMEOUT_MS=500'
          : 'mpiexec.mpich -genv MPISCOPE_SEND_TIMEOUT_MS 500',
        '-np',
        '2',
        app,
      ],
      (cli) => {
        cli.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
        const poll = (): void => {
          const frames = existsSync(trace) ? readTrace(trace).filter((f) => f.kind === 'binary') : [];
          if (new Set(frames.map((f) => f.rank)).size < 2) return void setTimeout(poll, 20);
          stopped = true;
          cli.kill('SIGSTOP');
          // Eight times the send timeout: a sender blocked that long on a live analyzer waits on.
          setTimeout(() => cli.kill('SIGCONT'), 4000);
        };
        poll();
      },
    );
    assert.ok(stopped, 'the analyzer was stopped while records arrived');
    assert.doesNotMatch(stderr, /lost the analyzer/, 'no rank gave the analyzer up');
    assert.equal(under.code, 0, stderr.slice(-2000));
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      lostRecords: number;
      findings: unknown[];
      rankEndings?: { rank: number; how: string }[];
    };
    assert.equal(report.lostRecords, 0, 'no record dropped');
    assert.deepEqual(report.findings, []);
    assert.deepEqual(
      (report.rankEndings ?? []).filter((e) => e.how !== 'finalized'),
      [],
      'every rank finalized, none disconnected',
    );
    assert.deepEqual(entersOf(readTrace(trace), INITIALIZED), [FLOOD_CALLS, FLOOD_CALLS]);
    assert.deepEqual(spillFilesOf(trace), [], 'a stopped analyzer is no dead one: nothing spilled');
    assert.equal(sorted(under.stdout).length, 2);
  });

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

    // What the ranks could not send went to one spill file each, next to the trace, and the report merges it:
    // every exchange the program made is there once, and both ranks finalized (their END came by the spill).
    const spills = spillFilesOf(trace);
    assert.deepEqual(
      spills.map((f) => f.slice(trace.length)),
      ['.rank0.spill', '.rank1.spill'],
    );
    const seen = entersOf(readTraceUpToCut(trace).frames);
    assert.ok(
      seen[0]! < ITERATIONS && seen[1]! < ITERATIONS,
      `the dead analyzer saw part of the run: ${seen.join(', ')}`,
    );
    assert.deepEqual(entersOf(mergeSpills(trace, readTraceUpToCut(trace).frames, 2).frames), [
      ITERATIONS,
      ITERATIONS,
    ]);
    const json = join(dir, 'merged.json');
    const report = spawnSync(
      process.execPath,
      [join(repoRoot(), 'dist', 'cli.js'), 'report', '--json', json, trace],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.match(report.stderr, /merged \d+ records the analyzer never received from 2 spill files/);
    const merged = JSON.parse(readFileSync(json, 'utf8')) as {
      findings: { kind: string }[];
      lostRecords: number;
      rankEndings: { how: string; lastCall: string }[];
      spill: { records: number; files: string[]; missingFrames: number };
    };
    assert.ok(merged.spill.records > 0, 'records came from the spills');
    assert.equal(merged.spill.missingFrames, 0, 'every frame in flight was kept by the ranks');
    assert.deepEqual(merged.findings, [], 'a correct program: nothing unmatched once the spills are merged');
    assert.deepEqual(
      merged.rankEndings.map((e) => e.how),
      ['finalized', 'finalized'],
    );
  });
}
