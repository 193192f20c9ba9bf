import type {
  FindingKind,
  RaceReplay,
  RankEvent,
  RankState,
  Severity,
  SkippedCheck,
} from '../engine/model/types';
import type { RankEnding } from './rank-endings';
import type { SpillSummary } from './spill';
import type { MessageQueues, QueueEntry } from '../engine/point-to-point/message-queues';

/** A finding with its call sites resolved: the shape of the JSON report (see ../shared/DESIGN.md). */
export interface Finding {
  readonly kind: FindingKind;
  readonly severity: Severity;
  readonly message: string;
  readonly locations: readonly Location[];
  /** A message race: its receive and senders, for --replay-race (engine/model/types.ts RaceReplay). */
  readonly race?: RaceReplay;
}

export interface Location {
  readonly rank: number;
  /** Absolute path, or "" when the call site could not be resolved (no debug info). */
  readonly file: string;
  /** 1-based; 0 when unknown. */
  readonly line: number;
  readonly function: string;
  /** The MPI call at this location and what it waits for, e.g. "MPI_Recv from rank 1, tag 7". */
  readonly call: string;
  readonly detail: string;
}

export interface SessionOptions {
  readonly program: string;
  readonly args: readonly string[];
  readonly np: number;
  /** mpirun command (may contain arguments, split on spaces); default: found on PATH. */
  readonly mpirun?: string;
  readonly mpirunArgs?: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Seconds all live ranks may sit in MPI with no event before a hang the wait-for graph cannot explain is reported. */
  readonly deadlockTimeout?: number;
  /** The engine's shard threads (default 1: none; server/src/shards/analyzers.ts). */
  readonly analyzers?: number;
  /** Leave the job running after a deadlock is found (for inspection) instead of ending it. */
  readonly keepAlive?: boolean;
  /** Append every event to this trace file as it arrives. */
  readonly traceFile?: string;
  /**
   * MPI functions (e.g. "MPI_Barrier") that hold the job from its first call: when any rank enters one, every
   * rank stops at its next MPI call (see Session.pause). Passed to the ranks at launch (MPISCOPE_BREAK), so
   * calls made before a rank's connection is up still break.
   */
  readonly breakOn?: readonly string[];
  /**
   * Those of breakOn whose hits the debugger judges first (a condition, a hit count): a hit holds only the
   * rank that made it, and the debugger releases it or pauses the job (Session.releaseRank, Session.pause).
   */
  readonly judgedBreaks?: readonly string[];
  /** Which launcher: default srun inside a Slurm allocation, else mpirun (see launch-plan.ts). */
  readonly launcher?: 'mpirun' | 'mpiexec' | 'srun';
  /** The hosts to run on (passed to the launcher; each may carry :slots). Not with hostfile. */
  readonly hosts?: readonly string[];
  /** A host file for the launcher (Open MPI or Hydra format). Not with hosts. */
  readonly hostfile?: string;
  /** ADDR[:PORT] the analyzer listens on; default: loopback for one host, else chosen from the interfaces. */
  readonly listen?: string;
  /** wss with a self-signed certificate made for the session, its fingerprint pinned in the ranks (tls-cert.ts). */
  readonly tls?: boolean;
  /** A file whose contents are rank 0's stdin (as `mpirun … < file`); default: no input. */
  readonly stdin?: string;
  /**
   * The job's stdin, stdout and stderr are this process's own, as under mpirun (the CLI): output is then
   * byte for byte the job's and is not emitted as 'output' events.
   */
  readonly inheritStdio?: boolean;
  /**
   * The memcheck mode (loads and stores of memory owned by pending operations): true requires a program built
   * with `mpiscope cc/cxx/fc`; undefined turns it on when the program was (memcheck-mode.ts).
   */
  readonly memcheck?: boolean;
  /**
   * --replay-race: the receiving world rank's wildcard-th wildcard receive (1-based) is forced to take the
   * message of world rank sender (MPISCOPE_REPLAY_RACE, native-shim/src/msc_replay.c); the rest runs free.
   */
  readonly replayRace?: { readonly rank: number; readonly wildcard: number; readonly sender: number };
}

export interface SessionResult {
  readonly findings: readonly Finding[];
  readonly ranks: number;
  /** mpirun's exit status, or null when we ended the job. */
  readonly exitCode: number | null;
  /** How the job ended: 'completed', 'deadlock' (ended by us), 'terminated' (by the user), 'failed'. */
  readonly outcome: 'completed' | 'deadlock' | 'terminated' | 'failed';
  /** Records the ranks' shims dropped (set when some were): the checks that need them all were skipped. */
  readonly lostRecords?: number;
  /** Checks that did not run or ran on part of the run, and why (set when there are some): never silently off. */
  readonly skippedChecks?: readonly SkippedCheck[];
  /** How each rank ended (finalized, exited, a signal and where, aborted, vanished), in rank order. */
  readonly endings?: readonly RankEnding[];
  /** `mpiscope report` merged spill files (the analyzer died mid-run): what they added (spill.ts). */
  readonly spill?: SpillSummary;
}

/** What was launched, once the options are checked and the job is started. */
export interface SessionStart {
  /** Absolute path of the program. */
  readonly program: string;
  readonly ranks: number;
  /** 'openmpi' or 'mpich'. */
  readonly mpi: string;
  /** The launcher and its full argument list. */
  readonly command: readonly string[];
  readonly pid: number;
}

/** A rank stopped at the entry of an MPI call (its shim acknowledged a pause or hit a breakpoint). */
export interface HeldRank {
  readonly rank: number;
  /** The call's sequence number in its rank: every stop is a new seq, even at the same call site. */
  readonly seq: number;
  /** The MPI function, e.g. "MPI_Barrier". */
  readonly function: string;
  /** 'breakpoint': it entered a function breakpoint; 'pause': it was asked to stop at its next call. */
  readonly reason: 'breakpoint' | 'pause';
  /** Return address of the call (RawLocation.site), for Session.resolveSite. */
  readonly site: number;
}

/** Events a running session emits, for the CLI, the language server and the debug adapter. */
export interface SessionEvents {
  start: (info: SessionStart) => void;
  finding: (finding: Finding) => void;
  /**
   * A finding already emitted gained locations: another rank made the same call with the same invalid argument
   * after the first was shown (session/rank-merge.ts). `finding` is the whole finding now; the result lists it so.
   */
  'finding-ranks': (finding: Finding, added: readonly Location[]) => void;
  rank: (state: RankState) => void;
  /** Process output; rank is undefined when it cannot be attributed. */
  output: (text: string, stream: 'stdout' | 'stderr', rank: number | undefined) => void;
  end: (result: SessionResult) => void;
  /** A rank is held at an MPI call entry until resume(); its deeper frames come from backtrace(rank). */
  held: (held: HeldRank) => void;
  /** Every decoded event of one frame, in the rank's order (the timeline's feed). */
  events: (events: readonly RankEvent[]) => void;
}

/** A user-facing error: one line, what failed, why, what to do. The CLI prints it and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The message queues of a job with call sites resolved (Session.messageQueues; the DAP request mpiscope.messageQueues). */
export interface MessageQueueView {
  readonly entries: readonly (QueueEntry & {
    readonly file: string;
    readonly line: number;
    readonly function: string;
  })[];
  readonly edges: MessageQueues['edges'];
  readonly cycles: MessageQueues['cycles'];
}
