import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
// The client side comes from the server package's own jsonrpc (a second vscode-jsonrpc version is
// installed for the client library; its message types are not interchangeable).
import {
  createConnection,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';
import {
  HoverRequest,
  PublishDiagnosticsNotification,
  type MarkupContent,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver';
import { FakeSession } from '../dap/testing/fake-session';
import { UsageError, type Finding } from '../session/session-api';
import {
  clearFindingsRequest,
  openReportRequest,
  openTraceRequest,
  runRequest,
  runStatusNotification,
  stopRequest,
  timelineNotification,
  traceFindingsRequest,
  traceTimelineRequest,
  type RunStatus,
  traceBatchNotification,
  type TraceBatch,
  type TraceTimelineResult,
} from './protocol';
import { emptyMessages, emptySpans, type TimelineMessage } from '../timeline/timeline-protocol';
import { unpackBlock } from '../timeline/packed-columns';
import { createServer, type MpiscopeServer } from './server';

const source = [
  '#include <mpi.h>',
  'int main(void) {',
  '    MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);',
  '    MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);',
  '}',
];

/** LSP 3.18 allows markdown diagnostic messages; ours are plain strings. */
function text(message: string | MarkupContent | undefined): string {
  return typeof message === 'string' ? message : (message?.value ?? '');
}

describe('language server', { timeout: 10_000 }, () => {
  let dir: string;
  let file: string;
  let uri: string;
  let client: MessageConnection;
  let server: MpiscopeServer;
  let sessions: FakeSession[];
  let published: PublishDiagnosticsParams[];
  let statuses: RunStatus[];
  let timeline: TimelineMessage[];
  let traceBatches: TraceBatch[];
  /** How many times a trace's findings pass ran (the fake traceTimeline's). */
  let findingPasses = 0;
  const findingsBatch: TimelineMessage = {
    type: 'data',
    seq: 1,
    ranks: 2,
    now: 10,
    functions: [],
    sites: [],
    spans: emptySpans(),
    messages: emptyMessages(),
    findings: [],
    open: [],
    ended: true,
  };

  /** A batch of the fake trace's timeline: two calls and the message between them. */
  const timelineBatch: TimelineMessage = {
    ...findingsBatch,
    seq: 0,
    ended: false,
    spans: { rank: [0, 1], start: [1, 2], end: [5, 1e12 + 0.5], fn: [3, 4], site: [-1, 7], comm: [0, 0] },
    messages: { src: [0], sendTime: [1], dst: [1], recvTime: [2 ** 40], bytes: [3e9], tag: [-1] },
  };

  function deadlock(): Finding {
    return {
      kind: 'deadlock',
      severity: 'error',
      message: 'Ranks 0 and 1 each wait for the other.',
      locations: [
        { rank: 0, file, line: 3, function: 'main', call: 'MPI_Recv from rank 1, tag 7', detail: '' },
        { rank: 1, file, line: 4, function: 'main', call: 'MPI_Recv from rank 0, tag 7', detail: '' },
      ],
    };
  }

  /** Resolves once the condition holds; checked after each turn of the event loop (messages arrive in between). */
  function until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => (condition() ? resolve() : void setImmediate(check));
      check();
    });
  }

  function publishedCount(count: number): Promise<void> {
    return until(() => published.length >= count);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mpiscope-lsp-'));
    findingPasses = 0;
    file = join(dir, 'ring.c');
    uri = pathToFileURL(file).toString();
    writeFileSync(file, source.join('\n'));
    sessions = [];
    published = [];
    statuses = [];
    timeline = [];
    traceBatches = [];
    const up = new PassThrough();
    const down = new PassThrough();
    const connection = createConnection(up, down);
    server = createServer(connection, {
      docsBase: 'file:///ext/docs/findings',
      replayTrace: (path) =>
        path.endsWith('.trace')
          ? Promise.resolve({ findings: [deadlock()], ranks: 2 })
          : Promise.reject(new UsageError(`${path} is not a trace`)),
      traceTimeline: (path, onMessage) => {
        if (!path.endsWith('.mpitrace')) return Promise.reject(new UsageError(`${path} is not a trace`));
        onMessage({ type: 'reset', ranks: 2, program: '/bin/ring' });
        onMessage(timelineBatch);
        onMessage({ ...timelineBatch, seq: 1 });
        return Promise.resolve({
          findings: () => {
            findingPasses++;
            return Promise.resolve({
              report: { findings: [deadlock()], ranks: 2 },
              messages: [findingsBatch],
            });
          },
        });
      },
      startSession: (options) => {
        const s = new FakeSession(options);
        sessions.push(s);
        return s;
      },
    });
    connection.listen();
    client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
    client.onNotification(PublishDiagnosticsNotification.type, (p) => void published.push(p));
    client.onNotification(runStatusNotification, (s) => void statuses.push(s));
    client.onNotification(timelineNotification, (m) => void timeline.push(m));
    client.onNotification(traceBatchNotification, (b) => void traceBatches.push(b));
    client.listen();
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await client.sendNotification('initialized', {});
  });

  afterEach(async () => {
    await server.dispose();
    client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes each location of a finding on its line while the job runs, linked to the others', async () => {
    const status = await client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 });
    assert.equal((status as RunStatus).state, 'running');
    const s = sessions[0];
    assert.ok(s);
    s.finding(deadlock());
    await publishedCount(1);
    const last = published.at(-1);
    assert.equal(last?.uri, uri);
    const diags = last?.diagnostics ?? [];
    assert.equal(diags.length, 2);
    const [d0, d1] = diags;
    assert.deepEqual(d0?.range, {
      start: { line: 2, character: 4 },
      end: { line: 2, character: source[2]?.length },
    });
    assert.equal(d0?.code, 'deadlock');
    assert.equal(d0?.codeDescription?.href, 'file:///ext/docs/findings/deadlock.md');
    assert.equal(d0?.source, 'mpiscope');
    assert.equal(d0?.severity, 1);
    assert.match(text(d0?.message), /^rank 0: MPI_Recv from rank 1, tag 7 — Ranks 0 and 1/);
    assert.deepEqual(
      d0?.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line, r.message]),
      [[uri, 3, 'rank 1: MPI_Recv from rank 0, tag 7']],
    );
    assert.equal(d1?.range.start.line, 3);
    assert.equal(d1?.relatedInformation?.[0]?.location.range.start.line, 2);
    await until(() => statuses.at(-1)?.findings === 1);
  });

  it('streams the running job to the timeline: a reset, then its calls and findings as data batches', async () => {
    await client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 });
    await until(() => timeline.length >= 1);
    assert.deepEqual(timeline[0], { type: 'reset', ranks: 2, program: '/bin/ring' });
    const recv = { id: 3, name: 'MPI_Recv', cls: 'recv', params: [] };
    sessions[0]?.rankEvents([
      { type: 'enter', rank: 0, seq: 1, time: 1000, fn: recv, site: 0, args: { source: 1, tag: 7 } },
    ]);
    sessions[0]?.finding(deadlock());
    sessions[0]?.end({ findings: [deadlock()], ranks: 2, exitCode: null, outcome: 'deadlock' });
    await until(() => timeline.some((m) => m.type === 'data' && m.findings.length > 0));
    const data = timeline.filter((m) => m.type === 'data');
    assert.ok(
      data.some((m) => m.open.some((c) => c.rank === 0)),
      'rank 0 is shown inside its MPI_Recv',
    );
    assert.deepEqual(
      data.flatMap((m) => m.findings.map((f) => f.kind)),
      ['deadlock'],
    );
  });

  it('keeps diagnostics after the job ends and clears them on request', async () => {
    await client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 });
    sessions[0]?.finding(deadlock());
    await client.sendRequest(stopRequest.method);
    await until(() => statuses.at(-1)?.state === 'ended');
    assert.equal(statuses.at(-1)?.outcome, 'terminated');
    const before = published.length;
    await client.sendRequest(clearFindingsRequest.method);
    await publishedCount(before + 1);
    assert.deepEqual(published.at(-1), { uri, diagnostics: [] });
  });

  it('answers a hover on a line of the last run with what each rank did there', async () => {
    await client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 });
    sessions[0]?.finding(deadlock());
    const hover = await client.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 2, character: 6 },
    });
    const value =
      hover && typeof hover.contents === 'object' && 'value' in hover.contents ? hover.contents.value : '';
    assert.match(value, /\| 0 \| MPI_Recv from rank 1, tag 7 — \*\*deadlock\*\* \|/);
    const none = await client.sendRequest('textDocument/hover', {
      textDocument: { uri },
      position: { line: 0, character: 0 },
    });
    assert.equal(none, null);
  });

  it('shows a JSON report as diagnostics, and rejects a file that is not one', async () => {
    const report = join(dir, 'report.json');
    writeFileSync(
      report,
      JSON.stringify({
        findings: [
          {
            ...deadlock(),
            locations: deadlock().locations.map(({ rank, file: f, line, function: fn }) => ({
              rank,
              file: f,
              line,
              function: fn,
            })),
          },
        ],
        ranks: 2,
        exitCode: 1,
      }),
    );
    const result = await client.sendRequest(openReportRequest.method, { path: report });
    assert.deepEqual(result, { findings: 1, files: 1 });
    await publishedCount(1);
    assert.equal(published.at(-1)?.diagnostics.length, 2);
    assert.match(text(published.at(-1)?.diagnostics[0]?.message), /^rank 0: main — /);

    writeFileSync(report, '{"nope": 1}');
    await assert.rejects(
      client.sendRequest(openReportRequest.method, { path: report }),
      /has no "findings" array/,
    );
  });

  it('replays a trace into diagnostics and passes on why a file is not one', async () => {
    const result = await client.sendRequest(openTraceRequest.method, { path: join(dir, 'run.trace') });
    assert.deepEqual(result, { findings: 1, files: 1 });
    await publishedCount(1);
    assert.equal(published.at(-1)?.diagnostics.length, 2);
    await until(() => statuses.at(-1)?.outcome === 'report');
    await assert.rejects(
      client.sendRequest(openTraceRequest.method, { path: '/x.json' }),
      /\/x.json is not a trace/,
    );
  });

  it('gives the trace editor the timeline first, then its findings into the Problems panel', async () => {
    const path = join(dir, 'run.mpitrace');
    const first: TraceTimelineResult = await client.sendRequest(traceTimelineRequest.method, {
      path,
      stream: 4,
    });
    // Every message was announced before the answer, the data batches' columns as blocks of a file, which
    // the client reads and deletes.
    const announced = traceBatches.splice(0);
    assert.equal(first.batches, 3);
    assert.deepEqual(
      announced.map((b) => [b.stream, b.columns, b.message]),
      [
        [4, first.columns, { type: 'reset', ranks: 2, program: '/bin/ring' }],
        [4, first.columns, { ...timelineBatch, spans: emptySpans(), messages: emptyMessages() }],
        [4, first.columns, { ...timelineBatch, seq: 1, spans: emptySpans(), messages: emptyMessages() }],
      ],
    );
    const file = readFileSync(first.columns);
    const plain = (cols: object): Record<string, number[]> =>
      Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]));
    assert.ok(timelineBatch.type === 'data');
    for (const b of announced.slice(1)) {
      // Each block is stored deflated (packed-files.ts); the page inflates it before unpacking.
      const packed = inflateRawSync(file.subarray(b.offset, b.offset + b.bytes));
      const block = unpackBlock(packed, 0);
      assert.equal(block.next, packed.byteLength);
      assert.deepEqual(plain(block.spans), timelineBatch.spans);
      assert.deepEqual(plain(block.messages), timelineBatch.messages);
    }
    assert.equal(announced[2]?.offset, announced[1]?.bytes);
    assert.equal(file.length, (announced[1]?.bytes ?? 0) * 2);
    assert.ok(first.timing.received <= first.timing.decoded);
    // The trace editor names the folder its webview may fetch from: the file goes in a folder of its own there.
    const second: TraceTimelineResult = await client.sendRequest(traceTimelineRequest.method, {
      path,
      stream: 5,
      folder: dir,
    });
    assert.notEqual(second.columns, first.columns);
    assert.equal(dirname(dirname(second.columns)), dir);
    assert.equal(dirname(dirname(first.columns)), tmpdir());
    // The timeline comes before any finding is judged: nothing in the Problems panel yet.
    assert.equal(findingPasses, 0);
    assert.equal(published.length, 0);
    assert.notEqual(first.id, second.id, 'each opening has its own findings');
    const found = await client.sendRequest(traceFindingsRequest.method, { id: first.id });
    assert.deepEqual(found, { findings: 1, files: 1, messages: [findingsBatch] });
    await publishedCount(1);
    assert.equal(published.at(-1)?.diagnostics.length, 2);
    await assert.rejects(
      client.sendRequest(traceFindingsRequest.method, { id: first.id }),
      /no trace timeline \d+ is waiting for its findings/,
    );
    assert.equal(findingPasses, 1);
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('mpiscope-timeline-')).length;
    await assert.rejects(
      client.sendRequest(traceTimelineRequest.method, { path: '/x.json', stream: 6 }),
      /\/x.json is not a trace/,
    );
    const after = readdirSync(tmpdir()).filter((n) => n.startsWith('mpiscope-timeline-')).length;
    assert.equal(after, before, 'a failed opening leaves no columns file behind');
    // Files the client did not delete go when the server stops.
    assert.ok(existsSync(second.columns));
    await server.dispose();
    assert.ok(!existsSync(first.columns) && !existsSync(second.columns), 'columns files deleted on dispose');
  });

  it('refuses a second job while one runs', async () => {
    await client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 });
    await assert.rejects(
      client.sendRequest(runRequest.method, { program: '/bin/ring', args: [], np: 2 }),
      /already running/,
    );
  });
});
