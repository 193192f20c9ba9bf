import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { PublishDiagnosticsNotification, type PublishDiagnosticsParams } from 'vscode-languageserver';
import {
  createConnection,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';
import { runRequest, runStatusNotification, type RunStatus } from '../lsp/protocol';
import { createServer, type MpiscopeServer } from '../lsp/server';
import { startSession } from '../lsp/session-factory';
import { serveDebugAdapter, type DapServer } from './dap-server';
import type { MessageQueuesResponse } from './message-queues-request';

/** Two ranks that both receive first: lines 11 and 14 block forever. */
const RING = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("ready %d\\n", rank); fflush(stdout);
    int other = 1 - rank;
    if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
`;

/** Why this machine cannot run a real job, or undefined when it can. */
function missing(): string | undefined {
  try {
    execFileSync('mpicc', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    return 'mpicc is not installed';
  }
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'native-shim', 'spec', 'records.json'))) {
      return existsSync(join(dir, 'native-shim', 'build.sh'))
        ? undefined
        : 'the shim has no build script yet';
    }
  }
  return 'no mpiscope checkout above the test';
}

const skip = missing();

/** Alive and not a zombie: a container's init may never reap the ranks mpirun leaves behind. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

interface AdapterJob {
  readonly dir: string;
  readonly source: string;
  readonly program: string;
  readonly dc: DebugClient;
}

/**
 * Inside a describe: compiles `code` as NAME.c with `mpicc -g -O0` into a fresh folder, serves the debug
 * adapter and connects a DebugClient to it; afterwards ends every process of the job that is still there
 * and fails when one outlived the test.
 */
function adapterOnProgram(name: string, code: string, mpicc = 'mpicc'): AdapterJob {
  const job = {} as { -readonly [K in keyof AdapterJob]: AdapterJob[K] } & { server: DapServer };
  before(async () => {
    job.dir = mkdtempSync(join(tmpdir(), `mpiscope-${name}-`));
    job.source = join(job.dir, `${name}.c`);
    job.program = join(job.dir, name);
    writeFileSync(job.source, code);
    execFileSync(mpicc, ['-g', '-O0', job.source, '-o', job.program], { timeout: 60_000 });
    job.server = await serveDebugAdapter({ startSession, token: 't' });
    job.dc = new DebugClient('node', 'unused', 'mpi');
    await job.dc.start(job.server.port);
  });
  after(async () => {
    await job.dc.stop();
    await job.server.close();
    const left = killLeftovers(job.dir);
    rmSync(job.dir, { recursive: true, force: true });
    assert.deepEqual(left, [], 'no process of the job outlived it');
  });
  return job;
}

describe('debug adapter on a real 2-rank deadlock', { skip, timeout: 60_000 }, () => {
  const job = adapterOnProgram('ring', RING);

  it('stops on the deadlock with both ranks in MPI_Recv, then terminates every process', async () => {
    let stdout = '';
    job.dc.on('output', (e: DebugProtocol.OutputEvent) => {
      if (e.body.category === 'stdout') stdout += e.body.output;
    });
    const stopped = job.dc.waitForEvent('stopped', 40_000) as Promise<DebugProtocol.StoppedEvent>;
    await Promise.all([
      job.dc.configurationSequence(),
      job.dc.launch({ program: job.program, np: 2, cwd: job.dir, deadlockTimeout: 5, __mpiscopeToken: 't' }),
    ]);
    const event = await stopped;
    assert.equal(event.body.reason, 'exception');
    assert.match(stdout, /^\[rank 0\] ready 0$/m, 'output is attributed to its rank');
    assert.match(stdout, /^\[rank 1\] ready 1$/m);
    const info = await job.dc.exceptionInfoRequest({ threadId: event.body.threadId ?? 1 });
    assert.equal(info.body.exceptionId, 'deadlock');

    const threads = (await job.dc.threadsRequest()).body.threads;
    assert.equal(threads.length, 2);
    for (const t of threads) assert.match(t.name, /^rank \d — MPI_Recv/);
    const lines = new Set<number>();
    const pids: number[] = [];
    for (const t of threads) {
      const top = (await job.dc.stackTraceRequest({ threadId: t.id })).body.stackFrames[0];
      assert.equal(top?.source?.path, job.source);
      lines.add(top?.line ?? 0);
      const vars = await job.dc.variablesRequest({ variablesReference: top?.id ?? 0 });
      const pid = Number(vars.body.variables.find((v) => v.name === 'pid')?.value);
      assert.ok(pid > 0, 'the rank reported its pid');
      pids.push(pid);
    }
    assert.deepEqual(
      [...lines].sort((a, b) => a - b),
      [11, 14],
    );

    const terminated = job.dc.waitForEvent('terminated', 20_000);
    await job.dc.terminateRequest();
    await terminated;
    for (const pid of pids) assert.ok(!running(pid), `rank process ${pid} is gone`);
  });
});

describe('language server on a real 2-rank deadlock', { skip, timeout: 60_000 }, () => {
  let dir: string;
  let source: string;
  let client: MessageConnection;
  let server: MpiscopeServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mpiscope-lsp-'));
    source = join(dir, 'ring.c');
    writeFileSync(source, RING);
    execFileSync('mpicc', ['-g', '-O0', source, '-o', join(dir, 'ring')], { timeout: 60_000 });
    const up = new PassThrough();
    const down = new PassThrough();
    const connection = createConnection(up, down);
    server = createServer(connection, { startSession, docsBase: 'file:///docs' });
    connection.listen();
    client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
    client.listen();
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
  });

  after(async () => {
    await server.dispose();
    client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the deadlock on both ranks lines while the job runs, then reports how it ended', async () => {
    const diagnostics = new Promise<PublishDiagnosticsParams>((resolve) =>
      client.onNotification(PublishDiagnosticsNotification.type, (p) => {
        if (p.diagnostics.length >= 2) resolve(p);
      }),
    );
    const ended = new Promise<RunStatus>((resolve) =>
      client.onNotification(runStatusNotification, (s) => {
        if (s.state === 'ended') resolve(s);
      }),
    );
    await client.sendRequest(runRequest, {
      program: join(dir, 'ring'),
      args: [],
      np: 2,
      cwd: dir,
      deadlockTimeout: 5,
    });
    const published = await diagnostics;
    assert.equal(published.uri, pathToFileURL(source).toString());
    assert.deepEqual(published.diagnostics.map((d) => [d.code, d.range.start.line + 1]).sort(), [
      ['deadlock', 11],
      ['deadlock', 14],
    ]);
    for (const d of published.diagnostics)
      assert.equal(d.relatedInformation?.length, 1, 'each rank links to the other');
    const status = await ended;
    assert.equal(status.outcome, 'deadlock');
    assert.equal(status.findings, 1);
  });
});

/** Every rank passes one barrier (line 6) and finishes. */
const BARRIER = `#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &(int){0});
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`;

describe('debug adapter function breakpoints on a real job', { skip, timeout: 60_000 }, () => {
  const job = adapterOnProgram('barrier', BARRIER);

  it('holds the job at MPI_Barrier, and continue lets it complete', async () => {
    const initialized = job.dc.waitForEvent('initialized');
    const stopped = job.dc.waitForEvent('stopped', 20_000) as Promise<DebugProtocol.StoppedEvent>;
    const launched = job.dc.launch({ program: job.program, np: 2, cwd: job.dir, __mpiscopeToken: 't' });
    await initialized;
    await job.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Barrier' }] });
    await job.dc.configurationDoneRequest();
    await launched;
    const event = await stopped;
    assert.equal(event.body.reason, 'function breakpoint');
    const threadId = event.body.threadId ?? 1;
    const top = (await job.dc.stackTraceRequest({ threadId })).body.stackFrames[0];
    assert.equal(top?.line, 6);
    assert.match(top?.name ?? '', /^MPI_Barrier/);

    // A rank that reaches the barrier only after this continue stops there in its turn (every hit of a function
    // breakpoint stops, as in any debugger): it is continued as a user would, once per rank at most. Before, the
    // test waited for the end after one continue and hung whenever rank 1 was late (CI, session 19).
    const exited = job.dc.waitForEvent('exited', 30_000) as Promise<DebugProtocol.ExitedEvent>;
    const later: DebugProtocol.StoppedEvent[] = [];
    const again = (e: DebugProtocol.StoppedEvent): void => {
      later.push(e);
      void job.dc.continueRequest({ threadId: e.body.threadId ?? 1 });
    };
    job.dc.on('stopped', again);
    try {
      await job.dc.continueRequest({ threadId });
      assert.equal((await exited).body.exitCode, 0);
    } finally {
      job.dc.off('stopped', again);
    }
    assert.ok(later.length <= 1, `stops after the first: ${later.length}`);
    for (const e of later) assert.equal(e.body.reason, 'function breakpoint');
  });
});

/** A barrier reached twice from the same line of a helper (line 4, called from line 10). */
const LOOP = `#include <mpi.h>
static void step(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 2; i++)
        step();
    MPI_Finalize();
    return 0;
}
`;

/** End, by pid, every process whose command line names dir (this test's own programs): none may outlive it. */
function killLeftovers(dir: string): number[] {
  const killed: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir) || !running(pid)) continue;
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return killed;
}

for (const mpicc of ['mpicc.openmpi', 'mpicc.mpich']) {
  describe(
    `held ranks on a real job (${mpicc})`,
    { skip: skip ?? missingCompiler(mpicc), timeout: 60_000 },
    () => {
      const job = adapterOnProgram('loop', LOOP, mpicc);

      it('stops at every hit of the same call site, with the caller as a deeper frame', async () => {
        const initialized = job.dc.waitForEvent('initialized');
        let stopped = job.dc.waitForEvent('stopped', 20_000) as Promise<DebugProtocol.StoppedEvent>;
        const launched = job.dc.launch({ program: job.program, np: 2, cwd: job.dir, __mpiscopeToken: 't' });
        await initialized;
        await job.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Barrier' }] });
        await job.dc.configurationDoneRequest();
        await launched;
        for (let hit = 0; hit < 2; hit++) {
          const event = await stopped;
          assert.equal(event.body.reason, 'function breakpoint', `hit ${hit}`);
          const threadId = event.body.threadId ?? 1;
          const frames = (await job.dc.stackTraceRequest({ threadId })).body.stackFrames;
          // The name says what the call waits for once the rank's state has caught up with the stop.
          assert.match(frames[0]?.name ?? '', /^MPI_Barrier( on MPI_COMM_WORLD)? in step$/, `hit ${hit}`);
          assert.deepEqual(
            frames.map((f) => [f.source?.path, f.line]),
            [
              [job.source, 4],
              [job.source, 10],
            ],
            `hit ${hit}: the barrier in step, called from main`,
          );
          assert.equal(frames[1]?.name, 'main');
          stopped = job.dc.waitForEvent('stopped', 20_000) as Promise<DebugProtocol.StoppedEvent>;
          if (hit === 1) break;
          await job.dc.continueRequest({ threadId });
        }
        // A rank late to a barrier stops there after the others were continued (each hit stops): continued as a
        // user would, until the job ends — two ranks, two barriers, so at most two stops more.
        const exited = job.dc.waitForEvent('exited', 30_000) as Promise<DebugProtocol.ExitedEvent>;
        let later = 0;
        const again = (e: DebugProtocol.StoppedEvent): void => {
          later++;
          void job.dc.continueRequest({ threadId: e.body.threadId ?? 1 });
        };
        job.dc.on('stopped', again);
        try {
          await job.dc.continueRequest({ threadId: 1 });
          assert.equal((await exited).body.exitCode, 0);
        } finally {
          job.dc.off('stopped', again);
        }
        assert.ok(later <= 2, `stops after the second: ${later}`);
      });
    },
  );
}

function missingCompiler(mpicc: string): string | undefined {
  try {
    execFileSync(mpicc, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return undefined;
  } catch {
    return `${mpicc} is not installed`;
  }
}

/** Both ranks receive first, inside a helper (line 4, called from line 11): a deadlock one call deep. */
const DEEP_RING = `#include <mpi.h>
static void wait_for(int other, int *value)
{
    MPI_Recv(value, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv)
{
    int rank, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    wait_for(1 - rank, &value);
    MPI_Send(&value, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
`;

for (const mpicc of ['mpicc.openmpi', 'mpicc.mpich']) {
  describe(
    `blocked ranks on a real deadlock (${mpicc})`,
    { skip: skip ?? missingCompiler(mpicc), timeout: 60_000 },
    () => {
      const job = adapterOnProgram('deep', DEEP_RING, mpicc);

      it('shows each blocked rank inside the helper, called from main', async () => {
        const stopped = job.dc.waitForEvent('stopped', 40_000) as Promise<DebugProtocol.StoppedEvent>;
        await Promise.all([
          job.dc.configurationSequence(),
          job.dc.launch({
            program: job.program,
            np: 2,
            cwd: job.dir,
            deadlockTimeout: 5,
            __mpiscopeToken: 't',
          }),
        ]);
        assert.equal((await stopped).body.reason, 'exception');
        for (const t of (await job.dc.threadsRequest()).body.threads) {
          const frames = (await job.dc.stackTraceRequest({ threadId: t.id })).body.stackFrames;
          assert.match(frames[0]?.name ?? '', /^MPI_Recv .* in wait_for$/, t.name);
          assert.deepEqual(
            frames.map((f) => [f.source?.path, f.line]),
            [
              [job.source, 4],
              [job.source, 11],
            ],
            `${t.name}: the receive in wait_for, called from main`,
          );
          assert.equal(frames[1]?.name, 'main');
        }
        const terminated = job.dc.waitForEvent('terminated', 20_000);
        await job.dc.terminateRequest();
        await terminated;
      });
    },
  );
}

/** Rank 1 sends tags 0..3 to rank 0 from line 9; rank 0 receives them on line 8. */
const TAGS = `#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int tag = 0; tag < 4; tag++) {
        if (rank == 0) MPI_Recv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else MPI_Send(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
`;

for (const mpicc of ['mpicc.openmpi', 'mpicc.mpich']) {
  describe(
    `conditional breakpoints and single-rank steps on a real job (${mpicc})`,
    { skip: skip ?? missingCompiler(mpicc), timeout: 60_000 },
    () => {
      const job = adapterOnProgram('tags', TAGS, mpicc);

      it('stops at MPI_Send only for tag 2 on rank 1, then steps rank 1 alone to its next call', async () => {
        const initialized = job.dc.waitForEvent('initialized');
        const stopped = job.dc.waitForEvent('stopped', 30_000) as Promise<DebugProtocol.StoppedEvent>;
        const launched = job.dc.launch({ program: job.program, np: 2, cwd: job.dir, __mpiscopeToken: 't' });
        await initialized;
        await job.dc.setFunctionBreakpointsRequest({
          breakpoints: [{ name: 'MPI_Send', condition: 'tag == 2 && rank in 1' }],
        });
        await job.dc.configurationDoneRequest();
        await launched;
        const event = await stopped;
        assert.equal(event.body.reason, 'function breakpoint');
        assert.equal(event.body.threadId, 2, 'rank 1');
        assert.match(event.body.text ?? '', /MPI_Send on rank 1 \(tag == 2 && rank in 1\)/);
        const top = (await job.dc.stackTraceRequest({ threadId: 2 })).body.stackFrames[0];
        assert.deepEqual([top?.source?.path, top?.line], [job.source, 9]);
        const vars = async (threadId: number) =>
          (await job.dc.variablesRequest({ variablesReference: threadId * 1000 })).body.variables;
        assert.equal((await vars(2)).find((v) => v.name === 'tag')?.value, '2', 'held at the send of tag 2');

        // Rank 1 alone runs: its send of tag 2 goes (eagerly), and it is held at the send of tag 3.
        const stepped = job.dc.waitForEvent('stopped', 20_000) as Promise<DebugProtocol.StoppedEvent>;
        await job.dc.nextRequest({ threadId: 2 });
        const step = await stepped;
        assert.equal(step.body.reason, 'step');
        assert.equal(step.body.threadId, 2);
        assert.equal((await vars(2)).find((v) => v.name === 'tag')?.value, '3', 'held at the send of tag 3');
        // Rank 0 never got a continue of its own: it is held before the loop (line 6) or in (or at) a receive of
        // line 8, never past the loop.
        const rank0 = (await job.dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
        assert.ok(
          rank0.some((f) => f.source?.path === job.source && (f.line === 8 || f.line === 6)),
          JSON.stringify(rank0.map((f) => [f.name, f.line])),
        );

        const exited = job.dc.waitForEvent('exited', 30_000) as Promise<DebugProtocol.ExitedEvent>;
        await job.dc.continueRequest({ threadId: 2 });
        assert.equal((await exited).body.exitCode, 0);
      });
    },
  );
}

describe('message queues of a real deadlock', { skip, timeout: 60_000 }, () => {
  const job = adapterOnProgram('ringq', RING);

  it('lists both pending receives with their lines, and the cycle between the two ranks', async () => {
    const stopped = job.dc.waitForEvent('stopped', 40_000) as Promise<DebugProtocol.StoppedEvent>;
    await Promise.all([
      job.dc.configurationSequence(),
      job.dc.launch({ program: job.program, np: 2, cwd: job.dir, deadlockTimeout: 5, __mpiscopeToken: 't' }),
    ]);
    assert.equal((await stopped).body.reason, 'exception');
    const q = (await job.dc.customRequest('mpiscope.messageQueues')).body as MessageQueuesResponse;
    assert.equal(q.paused, true);
    assert.deepEqual(
      q.entries.map((e) => [e.kind, e.rank, e.peer, e.tag, e.file, e.line]),
      [
        ['receive', 0, 1, 0, job.source, 11],
        ['receive', 1, 0, 0, job.source, 14],
      ],
    );
    assert.deepEqual(q.cycles, [[0, 1]]);
    assert.ok(q.edges.every((e) => e.inCycle));
    const terminated = job.dc.waitForEvent('terminated', 20_000);
    await job.dc.terminateRequest();
    await terminated;
  });
});
