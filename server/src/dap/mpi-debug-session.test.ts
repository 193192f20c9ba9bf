import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { RankEvent, RankState } from '../engine/model/types';
import { functionNamed } from '../protocol/spec';
import type { Finding } from '../session/session-api';
import { serveDebugAdapter, type DapServer } from './dap-server';
import { FakeSession } from './testing/fake-session';
import { RawDapClient } from './testing/raw-dap-client';

const TOKEN = 'test-token';
const ringSites = new Map([
  [0x10, { file: '/src/ring.c', line: 14, function: 'main' }],
  [0x20, { file: '/src/ring.c', line: 21, function: 'main' }],
]);

function blocked(rank: number, peer: number, site: number): RankState {
  return {
    rank,
    state: 'blocked',
    call: { rank, site, call: 'MPI_Recv', detail: `MPI_Recv from rank ${peer}, tag 7` },
  };
}

const deadlock: Finding = {
  kind: 'deadlock',
  severity: 'error',
  message: 'Ranks 0 and 1 each wait in MPI_Recv for the other; neither sends.',
  locations: [
    {
      rank: 0,
      file: '/src/ring.c',
      line: 14,
      function: 'main',
      call: 'MPI_Recv from rank 1, tag 7',
      detail: '',
    },
    {
      rank: 1,
      file: '/src/ring.c',
      line: 21,
      function: 'main',
      call: 'MPI_Recv from rank 0, tag 7',
      detail: '',
    },
  ],
};

describe('mpi debug adapter', { timeout: 10_000 }, () => {
  let server: DapServer;
  let dc: DebugClient;
  let sessions: FakeSession[];

  beforeEach(async () => {
    sessions = [];
    server = await serveDebugAdapter({
      token: TOKEN,
      startSession: (options) => {
        const s = new FakeSession(options, ringSites);
        sessions.push(s);
        return s;
      },
    });
    // The runtime and executable are unused: start(port) connects to the in-process server.
    dc = new DebugClient('node', 'unused', 'mpi');
    await dc.start(server.port);
  });

  afterEach(
    async () => {
      await dc.stop();
      await server.close();
    },
    { timeout: 5_000 },
  );

  async function launch(extra: Record<string, unknown> = {}): Promise<FakeSession> {
    await Promise.all([
      dc.configurationSequence(),
      dc.launch({ program: '/src/ring', np: 2, __mpiscopeToken: TOKEN, ...extra }),
    ]);
    const s = sessions[0];
    assert.ok(s, 'launch started a session');
    return s;
  }

  it('passes the launch configuration to the session', async () => {
    const s = await launch({ args: ['-n', '3'], mpirunArgs: ['--oversubscribe'], deadlockTimeout: 5 });
    assert.equal(s.options.program, '/src/ring');
    assert.equal(s.options.np, 2);
    assert.deepEqual(s.options.args, ['-n', '3']);
    assert.deepEqual(s.options.mpirunArgs, ['--oversubscribe']);
    assert.equal(s.options.deadlockTimeout, 5);
    assert.equal(s.options.keepAlive, true, 'a deadlocked job stays alive for inspection under the debugger');
  });

  it('refuses a launch without the token, and a launch without a program', async () => {
    await assert.rejects(
      dc.launch({ program: '/src/ring', np: 2 }),
      /only accepts launches from the mpiscope extension/,
    );
    await assert.rejects(dc.launch({ __mpiscopeToken: TOKEN, np: 2 }), /"program" is missing/);
    assert.equal(sessions.length, 0);
  });

  it('shows ranks as threads named by their current MPI call', async () => {
    const s = await launch();
    let threads = (await dc.threadsRequest()).body.threads.map((t) => t.name);
    assert.deepEqual(threads, ['rank 0 — starting', 'rank 1 — starting']);
    const renamed = dc.waitForEvent('thread');
    s.rank(blocked(0, 1, 0x10));
    s.rank({ rank: 1, state: 'running' });
    await renamed;
    threads = (await dc.threadsRequest()).body.threads.map((t) => t.name);
    assert.deepEqual(threads, ['rank 0 — MPI_Recv from 1, tag 7 (blocked)', 'rank 1 — running']);
  });

  it('stops on a finding with reason exception, the call site as top frame and the kind as exception', async () => {
    const s = await launch();
    s.rank(blocked(0, 1, 0x10));
    s.rank(blocked(1, 0, 0x20));
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.finding(deadlock);
    const event = await stopped;
    assert.equal(event.body.reason, 'exception');
    assert.equal(event.body.allThreadsStopped, true);
    assert.equal(event.body.threadId, 1);
    // The Call Stack shows `description` as the thread's state: the kind once, not "deadlock: deadlock: …".
    assert.equal(event.body.description, 'Paused on deadlock');
    assert.equal(event.body.text, deadlock.message);
    assert.ok(s.paused, 'the ranks are held');

    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    assert.equal(info.body.exceptionId, 'deadlock');
    assert.match(info.body.description ?? '', /each wait in MPI_Recv/);

    const stack = await dc.stackTraceRequest({ threadId: 2 });
    const top = stack.body.stackFrames[0];
    assert.equal(top?.source?.path, '/src/ring.c');
    assert.equal(top?.line, 21);
    assert.equal(top?.name, 'MPI_Recv from rank 0, tag 7 in main');

    const vars = await dc.variablesRequest({ variablesReference: top?.id ?? 0 });
    const pid = vars.body.variables.find((v) => v.name === 'pid');
    assert.equal(pid?.value, '4001');
  });

  it('does not stop on findings when stopOnFinding is false', async () => {
    const s = await launch({ stopOnFinding: false });
    const output = dc.assertOutput('important', 'mpiscope found deadlock — ');
    s.finding(deadlock);
    await output;
    assert.equal(s.paused, false);
  });

  it('prefixes each line of a rank output with the rank', async () => {
    const s = await launch();
    const first = dc.assertOutput('stdout', '[rank 1] hello\n[rank 1] world\n');
    s.output('hello\nwor', 'stdout', 1);
    s.output('ld\n', 'stdout', 1);
    await first;
  });

  it('breaks on an MPI function breakpoint and rejects other names', async () => {
    const initialized = dc.waitForEvent('initialized');
    const launched = dc.launch({ program: '/src/ring', np: 2, __mpiscopeToken: TOKEN });
    await initialized;
    const bps = await dc.setFunctionBreakpointsRequest({
      breakpoints: [{ name: 'MPI_Barrier' }, { name: 'main' }],
    });
    assert.deepEqual(
      bps.body.breakpoints.map((b) => b.verified),
      [true, false],
    );
    await dc.configurationDoneRequest();
    await launched;
    const s = sessions[0];
    assert.ok(s);
    assert.deepEqual(s.options.breakOn, ['MPI_Barrier'], 'the ranks break from their first call');
    const lines = await dc.setBreakpointsRequest({
      source: { path: '/src/ring.c' },
      breakpoints: [{ line: 3 }],
    });
    assert.equal(lines.body.breakpoints[0]?.verified, false);
    assert.match(lines.body.breakpoints[0]?.message ?? '', /function breakpoint such as MPI_Recv/);

    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.held({ rank: 1, seq: 5, function: 'MPI_Barrier', reason: 'breakpoint', site: 0x20 });
    const event = await stopped;
    assert.equal(event.body.reason, 'function breakpoint');
    assert.equal(event.body.threadId, 2);
    assert.ok(s.paused, 'every rank is held');
  });

  /** The ENTER of an MPI_Recv as the session's 'events' carry it. */
  function recvEnter(rank: number, seq: number, source: number, tag: number): RankEvent {
    return {
      type: 'enter',
      rank,
      seq,
      time: seq,
      site: 0x20,
      fn: functionNamed('MPI_Recv'),
      args: { buf: 0x1000, count: 1, datatype: 7, source, tag, comm: 1, status: 0 },
    };
  }

  it('stops at a conditional MPI breakpoint only when the arguments and the rank match, and counts hits', async () => {
    const initialized = dc.waitForEvent('initialized');
    const launched = dc.launch({ program: '/src/ring', np: 4, __mpiscopeToken: TOKEN });
    await initialized;
    const bps = await dc.setFunctionBreakpointsRequest({
      breakpoints: [
        { name: 'MPI_Recv', condition: 'source == 3 && tag == 7 && rank in 0-1', hitCondition: '2' },
      ],
    });
    assert.deepEqual(
      bps.body.breakpoints.map((b) => b.verified),
      [true],
    );
    await dc.configurationDoneRequest();
    await launched;
    const s = sessions[0];
    assert.ok(s);
    const stops: DebugProtocol.StoppedEvent[] = [];
    dc.on('stopped', (e) => stops.push(e as DebugProtocol.StoppedEvent));
    const settle = () => new Promise((r) => setTimeout(r, 50));
    // Wrong tag; right call on rank 2 (outside 0-1); the first matching hit (hit count 2 not reached yet).
    s.rankEvents([recvEnter(0, 1, 3, 8)]);
    s.held({ rank: 0, seq: 1, function: 'MPI_Recv', reason: 'breakpoint', site: 0x20 });
    await settle();
    s.rankEvents([recvEnter(2, 1, 3, 7)]);
    s.held({ rank: 2, seq: 1, function: 'MPI_Recv', reason: 'breakpoint', site: 0x20 });
    await settle();
    // The acknowledgement may come before the ENTER: the condition waits for it.
    s.held({ rank: 1, seq: 4, function: 'MPI_Recv', reason: 'breakpoint', site: 0x20 });
    s.rankEvents([recvEnter(1, 4, 3, 7)]);
    await settle();
    assert.equal(stops.length, 0, 'no stop before the second matching hit');
    // The hits are judged on the hitting rank alone: the job is never paused for them, and each hit that
    // does not stop releases only its rank.
    assert.deepEqual(s.options.judgedBreaks, ['MPI_Recv'], 'the session holds only the hitting rank');
    assert.deepEqual(s.calls, ['release 0', 'release 2', 'release 1']);
    assert.equal(s.paused, false);
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.rankEvents([recvEnter(0, 9, 3, 7)]);
    s.held({ rank: 0, seq: 9, function: 'MPI_Recv', reason: 'breakpoint', site: 0x20 });
    const event = await stopped;
    assert.equal(event.body.reason, 'function breakpoint');
    assert.equal(event.body.threadId, 1);
    assert.match(
      event.body.text ?? '',
      /MPI_Recv on rank 0 \(source == 3 && tag == 7 && rank in 0-1, hit 2\)/,
    );
    assert.ok(s.paused);
  });

  it('judges conditional breakpoints on the hitting rank, unless the function also has a plain one', async () => {
    const s = await launch();
    await dc.setFunctionBreakpointsRequest({
      breakpoints: [
        { name: 'MPI_Recv', condition: 'tag == 7' },
        { name: 'MPI_Send', hitCondition: '3' },
      ],
    });
    assert.deepEqual(s.judgedSet, ['MPI_Recv', 'MPI_Send']);
    await dc.setFunctionBreakpointsRequest({
      breakpoints: [{ name: 'MPI_Recv', condition: 'tag == 7' }, { name: 'PMPI_Recv' }],
    });
    assert.deepEqual(s.breakSet, ['MPI_Recv']);
    assert.deepEqual(s.judgedSet, [], 'a plain breakpoint on MPI_Recv stops at every hit');
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.rankEvents([recvEnter(0, 3, 1, 8)]);
    s.held({ rank: 0, seq: 3, function: 'MPI_Recv', reason: 'breakpoint', site: 0x20 });
    assert.equal((await stopped).body.reason, 'function breakpoint');
    assert.ok(s.paused);
  });

  it('answers mpiscope.messageQueues from the session, saying whether the job is stopped', async () => {
    const s = await launch();
    await assert.rejects(dc.customRequest('mpiscope.messageQueues'), /has not started its analysis yet/);
    s.queues = { entries: [], edges: [{ from: 0, to: 1, kind: 'receive', inCycle: false }], cycles: [] };
    const running = await dc.customRequest('mpiscope.messageQueues');
    assert.deepEqual(running.body, { paused: false, ranks: 2, ...s.queues });
    const paused = dc.waitForEvent('stopped');
    await dc.pauseRequest({ threadId: 1 });
    await paused;
    assert.equal(
      ((await dc.customRequest('mpiscope.messageQueues')).body as { paused: boolean }).paused,
      true,
    );
  });

  it('answers a bad breakpoint condition with one line', async () => {
    await launch();
    await assert.rejects(
      dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Recv', condition: 'dest == 3' }] }),
      /^Error: MPI_Recv has no argument "dest": use rank or one of .*source, tag/,
    );
    await assert.rejects(
      dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Recv', condition: 'tag == == 3' }] }),
      /MPI_Recv: a number, a name or "\(" expected, not "=="/,
    );
    await assert.rejects(
      dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Send', hitCondition: 'often' }] }),
      /MPI_Send: cannot read the hit count "often"/,
    );
  });

  it('stops again at a second hit of the same call site, and not on the stale state', async () => {
    const s = await launch();
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'PMPI_Barrier' }] });
    assert.deepEqual(s.breakSet, ['MPI_Barrier'], 'a PMPI_ breakpoint is its MPI_ function');
    const barrier = { rank: 0, site: 0x20, call: 'MPI_Barrier', detail: 'MPI_Barrier' };
    s.rank({ rank: 0, state: 'in-call', call: barrier });
    const first = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.held({ rank: 0, seq: 7, function: 'MPI_Barrier', reason: 'breakpoint', site: 0x20 });
    assert.equal((await first).body.reason, 'function breakpoint');
    await dc.continueRequest({ threadId: 1 });
    // The loop comes round: the sampled state never changed (same call, same site), the shim says so anyway.
    s.rank({ rank: 0, state: 'in-call', call: barrier });
    const second = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.held({ rank: 0, seq: 9, function: 'MPI_Barrier', reason: 'breakpoint', site: 0x20 });
    const event = await second;
    assert.equal(event.body.reason, 'function breakpoint');
    assert.equal(event.body.threadId, 1);
  });

  it("renames the stopped thread only once its stack trace was answered (VS Code drops a stop's focus otherwise)", async () => {
    const s = await launch();
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'MPI_Barrier' }] });
    const seen: number[] = [];
    dc.on('thread', (e: DebugProtocol.ThreadEvent) => seen.push(e.body.threadId));
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.held({ rank: 1, seq: 5, function: 'MPI_Barrier', reason: 'breakpoint', site: 0x20 });
    assert.equal((await stopped).body.threadId, 2);
    // Both ranks' states change just after the stop, in one burst: rank 0's rename goes out, rank 1's waits.
    const other = dc.waitForEvent('thread');
    s.rank({
      rank: 1,
      state: 'in-call',
      call: { rank: 1, site: 0x20, call: 'MPI_Barrier', detail: 'MPI_Barrier' },
    });
    s.rank(blocked(0, 1, 0x10));
    await other;
    assert.deepEqual(seen, [1], "only rank 0's thread event before the stopped thread's stack trace");
    const renamed = dc.waitForEvent('thread') as Promise<DebugProtocol.ThreadEvent>;
    const stack = await dc.stackTraceRequest({ threadId: 2 });
    assert.equal(stack.body.stackFrames[0]?.line, 21);
    assert.equal((await renamed).body.threadId, 2, 'the held rename, once the stack trace was answered');
    const names = (await dc.threadsRequest()).body.threads.map((t) => t.name);
    assert.deepEqual(names, ['rank 0 — MPI_Recv from 1, tag 7 (blocked)', 'rank 1 — MPI_Barrier']);
  });

  it('shows a held rank at its held call, with the frames below it from the shim', async () => {
    const s = await launch();
    s.backtraces.set(1, [
      { file: '/src/ring.c', line: 30, function: 'exchange' },
      { file: '/src/ring.c', line: 44, function: 'main' },
    ]);
    // The sampled state still shows the previous call: the acknowledgement wins.
    s.rank({
      rank: 1,
      state: 'in-call',
      call: { rank: 1, site: 0x10, call: 'MPI_Send', detail: 'MPI_Send to rank 0' },
    });
    const stopped = dc.waitForEvent('stopped');
    await dc.pauseRequest({ threadId: 2 });
    await stopped;
    s.held({ rank: 1, seq: 12, function: 'MPI_Recv', reason: 'pause', site: 0x20 });
    await new Promise((r) => setImmediate(r));
    const frames = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames;
    assert.deepEqual(
      frames.map((f) => [f.name, f.source?.path, f.line]),
      [
        ['MPI_Recv in main', '/src/ring.c', 21],
        ['exchange', '/src/ring.c', 30],
        ['main', '/src/ring.c', 44],
      ],
    );
    await dc.continueRequest({ threadId: 2 });
    const after = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames;
    assert.equal(after.length, 1, 'released: only the sampled call, no stale frames');
  });

  it('pauses and continues every rank through the session', async () => {
    const s = await launch();
    const stopped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    await dc.pauseRequest({ threadId: 1 });
    assert.equal((await stopped).body.reason, 'pause');
    assert.equal(s.paused, true);
    const cont = await dc.continueRequest({ threadId: 1 });
    assert.equal(cont.body.allThreadsContinued, true);
    assert.equal(s.paused, false);
  });

  it('says a paused rank still computing is held at its next MPI call, until it is', async () => {
    const s = await launch();
    s.rank({ rank: 0, state: 'running' });
    const before = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.equal(before[0]?.name, '(running, not in MPI)');
    const stopped = dc.waitForEvent('stopped');
    await dc.pauseRequest({ threadId: 1 });
    await stopped;
    const pausing = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.equal(pausing[0]?.name, '(running, not in MPI: held at its next MPI call)');
    s.held({ rank: 0, seq: 5, function: 'MPI_Recv', reason: 'pause', site: 0x20 });
    await new Promise((r) => setImmediate(r));
    const held = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.equal(held[0]?.name, 'MPI_Recv in main');
  });

  it('steps a rank to its next MPI call', async () => {
    const s = await launch();
    s.rank(blocked(0, 1, 0x10));
    const paused = dc.waitForEvent('stopped');
    await dc.pauseRequest({ threadId: 1 });
    await paused;
    s.calls.length = 0;
    await dc.nextRequest({ threadId: 1 });
    assert.deepEqual(s.calls, ['step 0'], 'only the stepped rank is released, to be held at its next call');
    const stepped = dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
    s.held({ rank: 1, seq: 3, function: 'MPI_Send', reason: 'pause', site: 0x20 });
    s.held({ rank: 0, seq: 4, function: 'MPI_Send', reason: 'pause', site: 0x20 });
    const event = await stepped;
    assert.equal(event.body.reason, 'step');
    assert.equal(event.body.threadId, 1, 'the stepped rank, not the first one seen');
  });

  it('explains why it cannot debug a rank when the client has no startDebugging', async () => {
    await launch();
    await assert.rejects(
      dc.customRequest('mpiscope.debugRank', { rank: 0, debuggerType: 'cppdbg' }),
      /cannot start child debug sessions/,
    );
    await assert.rejects(dc.customRequest('mpiscope.debugRank', { rank: 0 }), /needs \{ rank, debuggerType/);
  });

  /** Launch over a raw connection that supports startDebugging. */
  async function rawLaunch(): Promise<{ raw: RawDapClient; s: FakeSession }> {
    const raw = new RawDapClient(server.port);
    const init = await raw.request('initialize', {
      adapterID: 'mpi',
      pathFormat: 'path',
      supportsStartDebuggingRequest: true,
    });
    assert.ok(init.success, init.message);
    await raw.request('configurationDone');
    const launched = await raw.request('launch', { program: '/src/ring', np: 2, __mpiscopeToken: TOKEN });
    assert.ok(launched.success, launched.message);
    const s = sessions[0];
    assert.ok(s);
    return { raw, s };
  }

  it('ends the job when the client goes away without disconnecting', async () => {
    const { raw, s } = await rawLaunch();
    const gone = new Promise<void>((resolve) => s.on('end', () => resolve()));
    raw.socket.destroy();
    await gone;
    assert.ok(s.calls.includes('stop'));
  });

  it('debugs a rank by asking the editor to attach a native debugger to its pid', async () => {
    const { raw } = await rawLaunch();
    const reverse: DebugProtocol.Request[] = [];
    raw.onReverseRequest = (request) => {
      reverse.push(request);
      return { success: true };
    };
    const response = await raw.request('mpiscope.debugRank', { rank: 1, debuggerType: 'cppdbg' });
    assert.ok(response.success, response.message);
    assert.equal(reverse[0]?.command, 'startDebugging');
    assert.deepEqual(reverse[0]?.arguments, {
      request: 'attach',
      configuration: {
        type: 'cppdbg',
        request: 'attach',
        name: 'rank 1 (pid 4001)',
        program: '/src/ring',
        processId: '4001',
        MIMode: 'gdb',
      },
    });
    raw.onReverseRequest = () => ({ success: false });
    const refused = await raw.request('mpiscope.debugRank', { rank: 0, debuggerType: 'lldb' });
    assert.equal(refused.success, false);
    assert.match(refused.message ?? '', /Could not attach to rank 0/);
    raw.socket.destroy();
  });

  it('ends the job on terminate and reports termination', async () => {
    const s = await launch();
    const terminated = dc.waitForEvent('terminated');
    await dc.terminateRequest();
    await terminated;
    assert.ok(s.calls.includes('stop'));
  });
});
