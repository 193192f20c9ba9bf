import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  ResponseError,
  ErrorCodes,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver';
import { parseRaceId } from '../session/replay-race';
import { raceActions } from './race-actions';
import { serveDebugAdapter, type DapServer } from '../dap/dap-server';
import type { SessionFactory } from '../dap/session-port';
import { UsageError } from '../session/session-api';
import type { TimelineMessage } from '../timeline/timeline-protocol';
import { DiagnosticStore } from './diagnostic-store';
import { HoverIndex } from './hover-index';
import { PackedFiles } from './packed-files';
import {
  clearFindingsRequest,
  debugAdapterEndpointRequest,
  openReportRequest,
  openTraceRequest,
  REPLAY_RACE_COMMAND,
  type ReplayRaceArguments,
  runRequest,
  runStatusNotification,
  timelineNotification,
  traceBatchNotification,
  traceTimelineRequest,
  traceFindingsRequest,
  runStatusRequest,
  stopRequest,
  type DebugAdapterEndpoint,
} from './protocol';
import { readReport, type Report } from './report-file';
import { SessionHub } from './session-hub';
import { SourceLines } from './source-lines';

export interface ServerOptions {
  readonly startSession: SessionFactory;
  /** Base URI of docs/findings (each kind's page is `${docsBase}/${kind}.md`). */
  readonly docsBase: string;
  /** Rebuilds a run from its trace file; without it, mpiscope/openTrace says trace replay is unavailable. */
  readonly replayTrace?: (path: string) => Promise<Report>;
  /**
   * A trace's timeline, then on demand its report and the batch adding its findings (the trace editor);
   * without it, mpiscope/traceTimeline says unavailable.
   */
  readonly traceTimeline?: (
    path: string,
    /** Each message of the timeline as it is made: a reset, then data batches. */
    onMessage: (message: TimelineMessage) => void,
  ) => Promise<{
    /** The timeline came from the trace's index (timeline/trace-index.ts), not from decoding it. */
    fromIndex?: boolean;
    findings: () => Promise<{ report: Report; messages: TimelineMessage[] }>;
  }>;
}

export interface MpiscopeServer {
  readonly hub: SessionHub;
  /** Stops the job and closes the debug adapter port. */
  dispose(): Promise<void>;
}

/** Errors a person can act on travel as their message; anything else is a bug and says so. */
function toResponseError(error: unknown): ResponseError<void> {
  const message = error instanceof Error ? error.message : String(error);
  return new ResponseError(
    error instanceof UsageError ? ErrorCodes.InvalidParams : ErrorCodes.InternalError,
    message,
  );
}

/**
 * The language server's features on a given connection. main.ts gives it the IPC connection; tests
 * give it one over in-memory streams.
 */
export function createServer(connection: Connection, options: ServerOptions): MpiscopeServer {
  const lines = new SourceLines();
  const diagnostics = new DiagnosticStore(
    (uri, list) => void connection.sendDiagnostics({ uri, diagnostics: list }),
    {
      docsBase: options.docsBase,
      lineText: lines.lineText,
    },
  );
  const hovers = new HoverIndex();
  const hub = new SessionHub(
    (sessionOptions) => {
      lines.clear();
      return options.startSession(sessionOptions);
    },
    diagnostics,
    hovers,
    (status) => void connection.sendNotification(runStatusNotification, status),
    (message) => void connection.sendNotification(timelineNotification, message),
  );

  const token = randomBytes(16).toString('hex');
  let dap: Promise<DapServer> | undefined;
  /** Trace editors' openings whose findings were not asked for yet (mpiscope/traceFindings), by id. */
  const traceFindings = new Map<
    number,
    { path: string; findings: () => Promise<{ report: Report; messages: TimelineMessage[] }> }
  >();
  let nextTrace = 1;
  const packed = new PackedFiles();

  connection.onInitialize((): InitializeResult => ({
    capabilities: {
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      executeCommandProvider: { commands: [REPLAY_RACE_COMMAND] },
    },
    serverInfo: { name: 'mpiscope' },
  }));

  connection.onHover((params) => {
    if (!params.textDocument.uri.startsWith('file:')) return null;
    return hovers.hover(fileURLToPath(params.textDocument.uri), params.position.line + 1);
  });

  connection.onCodeAction((params) => raceActions(params.context.diagnostics));
  connection.onExecuteCommand(async (params) => {
    if (params.command !== REPLAY_RACE_COMMAND)
      return toResponseError(new UsageError(`unknown command ${params.command}`));
    try {
      const args = params.arguments?.[0] as ReplayRaceArguments | undefined;
      if (args === undefined || typeof args.id !== 'string' || !Number.isInteger(args.sender))
        throw new UsageError(`${REPLAY_RACE_COMMAND} needs {id, sender}: the race's id and a world rank`);
      const outcome = await hub.replayRace(parseRaceId(args.id, String(args.sender)));
      void connection.window.showInformationMessage(
        `mpiscope: race ${outcome.race}: ${outcome.outcome}. ${outcome.summary}`,
      );
      return outcome;
    } catch (error) {
      if (error instanceof UsageError) void connection.window.showErrorMessage(`mpiscope: ${error.message}`);
      return toResponseError(error);
    }
  });
  connection.onRequest(runRequest, async (params) => {
    try {
      await hub.start({ ...params, args: params.args ?? [] });
      return hub.status();
    } catch (error) {
      return toResponseError(error);
    }
  });
  connection.onRequest(stopRequest, () => hub.stop());
  connection.onRequest(clearFindingsRequest, () => hub.clear());
  connection.onRequest(runStatusRequest, () => hub.status());
  connection.onRequest(openReportRequest, async (params) => {
    try {
      const report = await readReport(params.path);
      lines.clear();
      hub.showFindings(report.findings, report.ranks, params.path);
      return { findings: report.findings.length, files: diagnostics.fileCount };
    } catch (error) {
      return toResponseError(error);
    }
  });
  connection.onRequest(openTraceRequest, async (params) => {
    try {
      if (!options.replayTrace) throw new UsageError('This mpiscope server cannot replay traces.');
      const report = await options.replayTrace(params.path);
      lines.clear();
      hub.showFindings(report.findings, report.ranks, params.path);
      return { findings: report.findings.length, files: diagnostics.fileCount };
    } catch (error) {
      return toResponseError(error);
    }
  });
  connection.onRequest(traceTimelineRequest, async (params) => {
    try {
      const received = Date.now();
      if (!options.traceTimeline) throw new UsageError('This mpiscope server cannot replay traces.');
      const writer = packed.open(typeof params.folder === 'string' ? params.folder : undefined);
      let batches = 0;
      try {
        const { findings, fromIndex } = await options.traceTimeline(params.path, (message) => {
          const { header, offset, bytes } = writer.write(message);
          batches++;
          void connection.sendNotification(traceBatchNotification, {
            stream: params.stream,
            message: header,
            columns: writer.file,
            offset,
            bytes,
          });
        });
        const id = nextTrace++;
        traceFindings.set(id, { path: params.path, findings });
        writer.close();
        const timing = { received, decoded: Date.now(), fromIndex: fromIndex === true ? 1 : 0 };
        return { columns: writer.file, batches, id, timing };
      } catch (error) {
        // Nothing will read what was written (the client deletes the file only when told its name).
        packed.remove(writer);
        throw error;
      }
    } catch (error) {
      return toResponseError(error);
    }
  });
  connection.onRequest(traceFindingsRequest, async (params) => {
    try {
      const opened = traceFindings.get(params.id);
      if (opened === undefined)
        throw new UsageError(
          `no trace timeline ${params.id} is waiting for its findings; ask mpiscope/traceTimeline first (each opening's findings are given once)`,
        );
      // Given once: the opening's model is let go with it.
      traceFindings.delete(params.id);
      const { report, messages } = await opened.findings();
      lines.clear();
      hub.showFindings(report.findings, report.ranks, opened.path);
      return { findings: report.findings.length, files: diagnostics.fileCount, messages };
    } catch (error) {
      return toResponseError(error);
    }
  });
  connection.onRequest(debugAdapterEndpointRequest, async (): Promise<DebugAdapterEndpoint> => {
    // Served on first use: most sessions of the editor never debug an MPI job.
    dap ??= serveDebugAdapter({ startSession: (o) => hub.start(o), token });
    const server = await dap;
    return { host: server.host, port: server.port, token };
  });

  return {
    hub,
    dispose: async () => {
      await hub.stop();
      packed.dispose();
      if (dap) await (await dap).close();
    },
  };
}
