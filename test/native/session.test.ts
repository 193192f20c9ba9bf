// The session against a fake launcher: the test plays the ranks' shims over the real WebSocket protocol,
// so the session's own machinery (launch arguments, token, hello, frames, trace, replay, deadlock handling,
// ending the job) is tested without depending on the shim.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import type { RankEvent } from '../../server/src/engine/model/types';
import { functionNamed } from '../../server/src/protocol/spec';
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
import { replayTrace } from '../../server/src/session/replay';
import { Session } from '../../server/src/session/session';
import type { SessionStart } from '../../server/src/session/session-api';
import { isAlive } from '../../server/src/session/process-tree';
import { compileMpi, onPath } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-session-'));
const exe = join(work, 'app');
const fakeMpirun = join(work, 'fake-mpirun');
let mainOffset = 0;
after(() => rmSync(work, { recursive: true, force: true }));

before(() => {
  const src = join(work, 'app.c');
  writeFileSync(
    src,
    '#include <mpi.h>\nint main(int c, char **v) {\n  MPI_Init(&c, &v);\n  MPI_Finalize();\n  return 0;\n}\n',
  );
  compileMpi('openmpi', src, exe);
  // Claims to be Open MPI's mpirun; runs until the test writes to its FIFO (or it is killed).
  writeFileSync(
    fakeMpirun,
    '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "mpirun (Open MPI) 4.1.4"; exit 0; fi\nexec cat "$FAKE_FIFO"\n',
  );
  chmodSync(fakeMpirun, 0o755);
  const nm = spawnSync('nm', [exe], { encoding: 'utf8' }).stdout;
  mainOffset = Number.parseInt(/^([0-9a-f]+) T main$/m.exec(nm)?.[1] ?? '0', 16);
});

function fifo(name: string): string {
  const p = join(work, name);
  assert.equal(spawnSync('mkfifo', [p]).status, 0);
  return p;
}

/** The value of `-x NAME=VALUE` in the launcher's arguments. */
/** A variable the launcher passes to the ranks: on its command line (-x NAME=VALUE), or from its own
 * environment when the command line only names it (-x NAME: the token, kept out of ps). */
function rankEnv(info: SessionStart, name: string): string {
  const arg = info.command.find((a) => a.startsWith(`${name}=`));
  if (arg !== undefined) return arg.slice(name.length + 1);
  assert.ok(info.command.includes(name), `${name} is passed to the ranks`);
  // While the launcher execs (the fake is a script that execs cat), its environ reads empty for a moment.
  let entry: string | undefined;
  for (let tries = 0; entry === undefined && tries < 100; tries++) {
    if (tries > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    const environ = readFileSync(`/proc/${info.pid}/environ`, 'latin1').split('\0');
    entry = environ.find((e) => e.startsWith(`${name}=`));
  }
  assert.ok(entry !== undefined, `${name} is in the launcher's environment`);
  return entry.slice(name.length + 1);
}

function connect(info: SessionStart, rank: number, size: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${rankEnv(info, 'MPISCOPE_URL')}?token=${rankEnv(info, 'MPISCOPE_TOKEN')}`);
    ws.once('open', () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          version: 1,
          rank,
          size,
          pid: 0,
          host: '',
          library: 'openmpi',
          libraryVersion: '4.1.4',
          threadLevel: 0,
        }),
      );
      resolve(ws);
    });
    ws.once('error', reject);
  });
}

const closed = (ws: WebSocket): Promise<void> =>
  new Promise((r) => (ws.readyState === ws.CLOSED ? r() : ws.once('close', () => r())));

function call(rank: number, seq: number, name: string, args: Record<string, number>, site = 0): RankEvent[] {
  const fn = functionNamed(name);
  return [
    { type: 'enter', rank, seq, time: seq * 1000, fn, site, args },
    { type: 'exit', rank, seq, time: seq * 1000 + 500, fn, returnCode: 0, outputs: {} },
  ];
}

const frame = (events: readonly RankEvent[]): Buffer => Buffer.from(frameOf(events.map(encodeEvent)));

/**
 * A session of 2 ranks of the test program under the fake launcher, which runs until `release` is written.
 * `options` adds to (or overrides) the session options.
 */
function fakeJob(
  name: string,
  options: Partial<ConstructorParameters<typeof Session>[0]> = {},
): { session: Session; release: string } {
  const release = fifo(name);
  const session = new Session({
    program: exe,
    args: [],
    np: 2,
    mpirun: fakeMpirun,
    env: { MPISCOPE_SHIM: '/dev/null', FAKE_FIFO: release },
    ...options,
  });
  return { session, release };
}

test('a clean run: hello and frames reach the session, the trace replays to the same report', async () => {
  const trace = join(work, 'clean.trace');
  const { session, release } = fakeJob('clean', { traceFile: trace });
  let started: SessionStart | undefined;
  session.on('start', (info) => {
    started = info;
    void (async () => {
      const sockets = await Promise.all([0, 1].map((r) => connect(info, r, 2)));
      sockets.forEach((ws, r) => {
        ws.send(
          frame([
            ...call(r, 1, 'MPI_Init', {}),
            ...call(r, 2, 'MPI_Finalize', {}),
            { type: 'end', rank: r, seq: 2, time: 3000, how: 'finalized', code: 0, dropped: 0 },
          ]),
        );
        ws.close();
      });
      await Promise.all(sockets.map(closed));
      await writeFile(release, 'done\n');
    })();
  });
  const result = await session.run();
  assert.equal(result.outcome, 'completed');
  assert.equal(result.exitCode, 0);
  assert.ok(started !== undefined);
  assert.ok(started.command.includes('--oversubscribe'));
  assert.ok(
    started.command.some((a) => a === 'LD_PRELOAD=/dev/null'),
    'the shim is preloaded into the ranks',
  );
  const replayed = await replayTrace(trace);
  assert.equal(replayed.result.outcome, 'completed');
  assert.deepEqual(replayed.result.findings, result.findings);
});

test('a bad frame closes that rank only; a rank that leaves without END is disconnected', async () => {
  const { session, release } = fakeJob('bad');
  const stderr: string[] = [];
  session.on('output', (text, stream) => stream === 'stderr' && stderr.push(text));
  session.on('start', (info) => {
    void (async () => {
      const intruder = new WebSocket(`${rankEnv(info, 'MPISCOPE_URL')}?token=nope`);
      await new Promise((r) => intruder.once('error', r));
      const [a, b] = await Promise.all([connect(info, 0, 2), connect(info, 1, 2)]);
      assert.ok(a !== undefined && b !== undefined);
      a.send(Buffer.alloc(65)); // not a whole record
      b.send(frame(call(1, 1, 'MPI_Init', {})));
      b.close();
      await Promise.all([closed(a), closed(b)]);
      await writeFile(release, 'done\n');
    })();
  });
  const result = await session.run();
  assert.equal(result.outcome, 'completed');
  assert.ok(
    stderr.some((s) => /refused a connection: .*without the session token/.test(s)),
    stderr.join(''),
  );
  assert.ok(
    stderr.some((s) => /closed the connection of rank 0: bad frame/.test(s)),
    stderr.join(''),
  );
  // The run goes on without rank 0's calls: the report says what was not checked, never a bare "no findings".
  const skipped = (result.skippedChecks ?? []).find((s) => s.cause === 'unobserved-ranks');
  assert.match(
    skipped?.reason ?? '',
    /the analyzer closed the connection of rank 0 at a frame it could not read \(bad frame/,
  );
  assert.deepEqual(
    session.rankStates().map((s) => [s.rank, s.ended]),
    [
      [0, 'disconnected'],
      [1, 'disconnected'],
    ],
  );
});

test('a deadlock is reported while the job hangs, before the hang timeout, and the job is ended', async () => {
  const trace = join(work, 'deadlock.trace');
  const { session } = fakeJob('deadlock', { deadlockTimeout: 20, traceFile: trace });
  let blockedAt = 0;
  let reportedAt = 0;
  let pid = 0;
  const sockets: WebSocket[] = [];
  session.on('finding', (f) => {
    if (f.kind === 'deadlock' && reportedAt === 0) reportedAt = Date.now();
  });
  session.on('start', (info) => {
    pid = info.pid;
    void (async () => {
      sockets.push(...(await Promise.all([0, 1].map((r) => connect(info, r, 2)))));
      const world = 0x44000000;
      const site = 0x5555_0000_0000 + mainOffset + 8;
      sockets.forEach((ws, r) => {
        ws.send(
          frame([
            ...call(r, 1, 'MPI_Init', {}),
            {
              type: 'comm',
              rank: r,
              seq: 1,
              time: 1000,
              comm: world,
              size: 2,
              myRank: r,
              parent: 0,
              creatorSeq: 0,
              isInter: false,
              members: [0, 1],
              remoteMembers: [],
            },
            { type: 'site', rank: r, seq: 2, time: 2000, address: site, offset: mainOffset + 8, module: exe },
            {
              type: 'enter',
              rank: r,
              seq: 2,
              time: 2000,
              fn: functionNamed('MPI_Recv'),
              site,
              args: {
                buf: 0x1000,
                count: 1,
                datatype: 0x4c000405,
                source: 1 - r,
                tag: 0,
                comm: world,
                status: 0,
              },
            },
          ]),
        );
      });
      blockedAt = Date.now();
    })();
  });
  const result = await session.run();
  sockets.forEach((ws) => ws.terminate());
  assert.equal(result.outcome, 'deadlock');
  assert.equal(result.exitCode, null);
  const deadlock = result.findings.find((f) => f.kind === 'deadlock');
  assert.ok(deadlock !== undefined, `a deadlock finding (got ${JSON.stringify(result.findings)})`);
  // Found by the analysis while the job hangs, not by the 20 s hang timeout (bench/ measures the latency).
  assert.ok(
    reportedAt - blockedAt < 10_000,
    `reported ${reportedAt - blockedAt} ms after the last rank blocked`,
  );
  assert.deepEqual(deadlock.locations.map((l) => l.rank).sort(), [0, 1]);
  for (const l of deadlock.locations) assert.match(l.file, /app\.c$/, 'call sites resolved to the source');
  assert.equal(isAlive(pid), false, 'the launcher was ended');
  const replayed = await replayTrace(trace);
  assert.equal(replayed.result.outcome, 'deadlock');
  assert.deepEqual(replayed.result.findings, result.findings, 'mpiscope report rebuilds the same findings');
});

test('fake launcher prerequisites', () => {
  assert.ok(onPath('mkfifo') && onPath('nm'));
});
