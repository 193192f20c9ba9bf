/**
 * Every custom LSP message between the mpiscope language server and the VS Code client.
 *
 * The server's copy is server/src/lsp/protocol.ts. Everything between the protocol:begin and
 * protocol:end markers must be identical in both files (server/src/lsp/protocol-drift.test.ts fails otherwise):
 * change one, copy it to the other.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageclient';
import { TIMELINE_NOTIFICATION, type TimelineMessage } from '../../server/src/timeline/timeline-protocol';

// protocol:begin

/** What to run: the launch configuration's fields, with defaults already resolved. */
export interface RunParams {
  program: string;
  args: string[];
  np: number;
  mpirun?: string;
  mpirunArgs?: string[];
  cwd?: string;
  env?: Record<string, string>;
  deadlockTimeout?: number;
  /** Write every event to this trace file (replay it later with mpiscope/openTrace). */
  traceFile?: string;
}

/** Start a job without the debugger; findings appear as diagnostics while it runs. */
export const runRequest = new RequestType<RunParams, RunStatus, void>('mpiscope/run');

/** End the running job, if any. */
export const stopRequest = new RequestType0<void, void>('mpiscope/stop');

/** Remove every mpiscope diagnostic and forget what the last run saw. */
export const clearFindingsRequest = new RequestType0<void, void>('mpiscope/clearFindings');

export interface OpenReportParams {
  /** Absolute path of a JSON report written by `mpiscope run --json`. */
  path: string;
}

export interface OpenReportResult {
  findings: number;
  /** Distinct source files that received diagnostics. */
  files: number;
}

/** Show a JSON report's findings as diagnostics (replacing the previous run's). */
export const openReportRequest = new RequestType<OpenReportParams, OpenReportResult, void>(
  'mpiscope/openReport',
);

/** Rebuild a run's findings from its trace file (`mpiscope run --trace`) and show them as diagnostics. */
export const openTraceRequest = new RequestType<OpenReportParams, OpenReportResult, void>(
  'mpiscope/openTrace',
);

export interface TraceTimelineParams extends OpenReportParams {
  /** Names this opening's mpiscope/traceBatch notifications (the client's choice). */
  stream: number;
  /**
   * An existing folder to write the columns file under (in a new folder of its own) instead of the temp
   * folder: the trace editor's webview may load resources from it, so its page fetches the blocks itself.
   */
  folder?: string;
}

/**
 * One message of a trace's timeline, sent while the trace is decoded, before mpiscope/traceTimeline answers:
 * the trace editor draws the first batches while the rest is decoded. A data batch's span and message columns
 * are empty here: they are the block [offset, offset + bytes) of the file `columns`
 * (timeline/packed-columns.ts: unpackBlock), written before this was sent.
 */
export interface TraceBatch {
  stream: number;
  message: TimelineMessage;
  columns: string;
  offset: number;
  bytes: number;
}

export const traceBatchNotification = new NotificationType<TraceBatch>('mpiscope/traceBatch');

export interface TraceTimelineResult {
  /** The file of the batches' columns; every batch has been announced (mpiscope/traceBatch): delete it once read. */
  columns: string;
  /** How many messages were announced (a reset, then data batches: the whole job, no finding). */
  batches: number;
  /** Names this opening's findings for mpiscope/traceFindings. */
  id: number;
  /**
   * When (ms since the epoch) the server got the request and had decoded the whole trace (or read it from the
   * trace's index: fromIndex 1, else 0).
   */
  timing: { received: number; decoded: number; fromIndex: number };
}

/**
 * A trace file's timeline for the trace editor, drawn before its findings are judged: the trace is only
 * decoded (the engine's replay is most of the cost of opening it), its batches announced as they are made.
 * The editor asks mpiscope/traceFindings next. (A million events' columns are ~20 MB: as JSON they cost
 * more than drawing them, hence the file.)
 */
export const traceTimelineRequest = new RequestType<TraceTimelineParams, TraceTimelineResult, void>(
  'mpiscope/traceTimeline',
);

export interface TraceFindingsParams {
  /** TraceTimelineResult.id of the opening. */
  id: number;
}

export interface TraceFindingsResult extends OpenReportResult {
  /** The data batch that adds the findings to the timeline, after the batches of mpiscope/traceTimeline. */
  messages: TimelineMessage[];
}

/**
 * The findings of a trace opened by mpiscope/traceTimeline: its replay through the engine, each finding placed
 * where it was found; they become diagnostics, as with mpiscope/openTrace. Once per id.
 */
export const traceFindingsRequest = new RequestType<TraceFindingsParams, TraceFindingsResult, void>(
  'mpiscope/traceFindings',
);

export type RunState = 'idle' | 'running' | 'paused' | 'ended';

export interface RunStatus {
  state: RunState;
  /** The program being run, or "" when idle. */
  program: string;
  ranks: number;
  /** Ranks currently blocked in MPI. */
  blocked: number;
  findings: number;
  /** How the job ended, when state is 'ended': completed, deadlock, terminated, failed. */
  outcome?: string;
  /** When state is 'ended': the checks that did not run or ran on part of the run, one line each ("what: why"). */
  notChecked?: string[];
}

/** Sent by the server whenever the job's status changes (start, rank state, finding, end). */
export const runStatusNotification = new NotificationType<RunStatus>('mpiscope/runStatus');

/** The current status, for a client that starts late. */
export const runStatusRequest = new RequestType0<RunStatus, void>('mpiscope/runStatus');

export interface DebugAdapterEndpoint {
  host: string;
  port: number;
  /**
   * The secret a launch request must carry as `__mpiscopeToken`: the port is on loopback, and this
   * keeps other local users from starting programs through it.
   */
  token: string;
}

/** Where the debug adapter (served by the language server process) listens. */
export const debugAdapterEndpointRequest = new RequestType0<DebugAdapterEndpoint, void>(
  'mpiscope/debugAdapterEndpoint',
);

/**
 * The command of the code action "Replay with the other message" on a message-race diagnostic
 * (workspace/executeCommand; the client registers it from the server's executeCommandProvider). Reruns the last
 * job with the race's receive forced to `sender`; the outcome is attached to the race's diagnostics.
 */
export const REPLAY_RACE_COMMAND = 'mpiscope.replayRace';

export interface ReplayRaceArguments {
  /** The race's id (RaceReplay.id: RANK.K.SENDER). */
  id: string;
  /** The world rank whose message the receive takes. */
  sender: number;
}

/** Arguments of the DAP custom request 'mpiscope.debugRank' (sent to the mpi debug session). */
export interface DebugRankArguments {
  rank: number;
  /** The native debugger to attach with: 'cppdbg' (ms-vscode.cpptools) or 'lldb' (vadimcn.vscode-lldb). */
  debuggerType: 'cppdbg' | 'lldb';
}

/** The job's timeline, in batches (TimelineMessage is defined in server/src/timeline/timeline-protocol.ts). */
export const timelineNotification = new NotificationType<TimelineMessage>(TIMELINE_NOTIFICATION);

// protocol:end
