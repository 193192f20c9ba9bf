import type { Severity } from '../engine/model/types';
import { SEVERITIES } from '../report/report-model';
import { UsageError } from '../session/session-api';
import { analyzersProblem, parseAnalyzers } from '../shards/analyzers';
import { parseRaceId, type ReplayTarget } from '../session/replay-race';

export interface RunCommand {
  readonly command: 'run';
  readonly np: number;
  readonly program: string;
  readonly args: readonly string[];
  readonly json?: string;
  readonly sarif?: string;
  readonly trace?: string;
  readonly mpirun?: string;
  readonly launcher?: 'mpirun' | 'mpiexec' | 'srun';
  readonly hosts?: readonly string[];
  readonly hostfile?: string;
  readonly listen?: string;
  readonly deadlockTimeout?: number;
  readonly analyzers?: number;
  readonly keepAlive: boolean;
  /** The least severity that makes the exit status 1 (default error). */
  readonly failOn?: Severity;
  /** --memcheck: require the memcheck mode (a program built with mpiscope cc/cxx/fc). */
  readonly memcheck?: true;
  /** --tls: the ranks connect with wss to a certificate made for the session, pinned by its fingerprint. */
  readonly tls?: true;
  /** --replay-race ID [--sender R]: force that wildcard receive to that sender (session/replay-race.ts). */
  readonly replayRace?: ReplayTarget;
}

export interface ReportCommand {
  readonly command: 'report';
  readonly trace: string;
  readonly json?: string;
  readonly sarif?: string;
  readonly failOn?: Severity;
  readonly analyzers?: number;
}

/** `mpiscope cc|cxx|fc ARGS…`: the compiler wrappers of the memcheck mode; every argument is the compiler's. */
export interface CompilerCommand {
  readonly command: 'cc' | 'cxx' | 'fc';
  readonly args: readonly string[];
}

export type Command =
  | RunCommand
  | ReportCommand
  | CompilerCommand
  | { readonly command: 'help' }
  | { readonly command: 'version' };

const HINT = 'see mpiscope --help';

/** Options that take a value, per command. */
/** Options whose value is a file or command name, never something starting with '-'. */
const FILE_OPTIONS: readonly string[] = [
  '--json',
  '--sarif',
  '--trace',
  '--mpirun',
  '--host',
  '--hostfile',
  '--listen',
  '--launcher',
];
const VALUE_OPTIONS: Record<'run' | 'report', readonly string[]> = {
  run: [
    '--json',
    '--sarif',
    '--trace',
    '--mpirun',
    '--launcher',
    '--host',
    '--hostfile',
    '--listen',
    '--deadlock-timeout',
    '--fail-on',
    '--analyzers',
    '--replay-race',
    '--sender',
    '-np',
  ],
  report: ['--json', '--sarif', '--fail-on', '--analyzers'],
};

/**
 * Parse the command line by hand: `-np N` is a single-dash long option (as mpirun spells it), which
 * node:util parseArgs cannot express. Everything after PROGRAM (or after `--`) belongs to the program.
 */
export function parseArgs(argv: readonly string[]): Command {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') return { command: 'help' };
  if (sub === '--version' || sub === '-V') return { command: 'version' };
  if (sub === 'cc' || sub === 'cxx' || sub === 'fc') return { command: sub, args: rest };
  if (sub !== 'run' && sub !== 'report') {
    throw new UsageError(
      sub.startsWith('-')
        ? `unknown option ${sub}; ${HINT}`
        : `unknown command ${sub}; use mpiscope run, report, export, cc/cxx/fc, net-test, view, coll-bench or map (${HINT})`,
    );
  }
  const values = new Map<string, string>();
  const positional: string[] = [];
  let keepAlive = false;
  let memcheck = false;
  let tls = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (positional.length > 0 && sub === 'run') {
      positional.push(a); // the program's own arguments, passed through untouched
      continue;
    }
    if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (a === '--help' || a === '-h') return { command: 'help' };
    if (sub === 'run' && a === '--keep-alive') {
      keepAlive = true;
      continue;
    }
    if (sub === 'run' && a === '--memcheck') {
      memcheck = true;
      continue;
    }
    if (sub === 'run' && a === '--tls') {
      tls = true;
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      const eq = a.indexOf('=');
      let name = eq > 0 ? a.slice(0, eq) : a;
      if (name === '-n' || name === '--np') name = '-np';
      // mpirun's own spellings, so that a command line moves over unchanged.
      if (name === '-H' || name === '--hosts' || name === '-host' || name === '-hosts') name = '--host';
      if (name === '-hostfile' || name === '--machinefile' || name === '-machinefile' || name === '-f')
        name = '--hostfile';
      if (!VALUE_OPTIONS[sub].includes(name))
        throw new UsageError(`unknown option ${name} for mpiscope ${sub}; ${HINT}`);
      const value = eq > 0 ? a.slice(eq + 1) : rest[++i];
      if (value === undefined) throw new UsageError(`option ${name} needs a value; ${HINT}`);
      // "--json -np 4": the file name is missing, not "-np" (negative numbers are for -np and the timeout to judge).
      if (eq < 0 && FILE_OPTIONS.includes(name) && value.startsWith('-'))
        throw new UsageError(`option ${name} needs a value, not the option ${value}; ${HINT}`);
      values.set(name, value);
      continue;
    }
    positional.push(a);
  }
  const json = values.get('--json');
  const sarif = values.get('--sarif');
  const failOnText = values.get('--fail-on');
  if (failOnText !== undefined && !(SEVERITIES as readonly string[]).includes(failOnText))
    throw new UsageError(
      `--fail-on must be error, warning or note: the least severity of finding that makes the exit status 1 (got ${failOnText})`,
    );
  const failOn = failOnText as Severity | undefined;
  const analyzersText = values.get('--analyzers');
  let analyzers: number | undefined;
  if (analyzersText !== undefined) {
    analyzers = parseAnalyzers(analyzersText);
    const problem = analyzersProblem(analyzers, analyzersText);
    if (problem !== undefined) throw new UsageError(`--analyzers ${problem}`);
  }
  if (sub === 'report') {
    const [trace, extra] = positional;
    if (trace === undefined)
      throw new UsageError(
        `mpiscope report needs a trace file: mpiscope report TRACE [--json FILE] [--sarif FILE] [--analyzers K]`,
      );
    if (extra !== undefined)
      throw new UsageError(`unexpected argument ${extra}; mpiscope report takes one trace file`);
    return {
      command: 'report',
      trace,
      ...(json !== undefined ? { json } : {}),
      ...(sarif !== undefined ? { sarif } : {}),
      ...(failOn !== undefined ? { failOn } : {}),
      ...(analyzers !== undefined ? { analyzers } : {}),
    };
  }
  const npText = values.get('-np');
  if (npText === undefined) throw new UsageError(`-np N is required: the number of ranks to run (${HINT})`);
  const np = /^\d+$/.test(npText) ? Number(npText) : Number.NaN;
  if (!Number.isInteger(np) || np < 1)
    throw new UsageError(`-np must be a whole number of ranks, at least 1 (got ${npText})`);
  const [program, ...args] = positional;
  if (program === undefined) throw new UsageError(`no program given: mpiscope run -np N PROGRAM [ARGS...]`);
  const timeoutText = values.get('--deadlock-timeout');
  let deadlockTimeout: number | undefined;
  if (timeoutText !== undefined) {
    deadlockTimeout = Number(timeoutText);
    if (!(deadlockTimeout > 0) || !Number.isFinite(deadlockTimeout)) {
      throw new UsageError(`--deadlock-timeout must be a positive number of seconds (got ${timeoutText})`);
    }
  }
  const launcher = values.get('--launcher');
  if (launcher !== undefined && launcher !== 'mpirun' && launcher !== 'mpiexec' && launcher !== 'srun')
    throw new UsageError(`--launcher must be mpirun, mpiexec or srun (got ${launcher})`);
  const hostText = values.get('--host');
  const hosts = hostText?.split(',').map((h) => h.trim());
  if (hosts !== undefined && hosts.some((h) => !/^[A-Za-z0-9._-]+(:\d+)?$/.test(h)))
    throw new UsageError(
      `--host ${hostText}: give host names or addresses separated by commas, each optionally with :SLOTS (for example --host node1,node2:4)`,
    );
  if (hosts !== undefined && values.has('--hostfile'))
    throw new UsageError(`give the hosts either with --host or with --hostfile, not both`);
  const raceId = values.get('--replay-race');
  if (raceId === undefined && values.has('--sender'))
    throw new UsageError(`--sender chooses the sender of a replayed race: give it with --replay-race ID`);
  const replayRace = raceId !== undefined ? parseRaceId(raceId, values.get('--sender')) : undefined;
  if (replayRace !== undefined && (replayRace.rank >= np || replayRace.sender >= np))
    throw new UsageError(
      `--replay-race ${raceId}: rank ${Math.max(replayRace.rank, replayRace.sender)} is not a rank of a job of -np ${np}`,
    );
  const opt = (k: string, v: string | undefined): Record<string, string> =>
    v === undefined ? {} : { [k]: v };
  return {
    command: 'run',
    np,
    program,
    args,
    keepAlive,
    ...(memcheck ? { memcheck: true as const } : {}),
    ...(tls ? { tls: true as const } : {}),
    ...opt('json', json),
    ...opt('sarif', sarif),
    ...opt('trace', values.get('--trace')),
    ...opt('mpirun', values.get('--mpirun')),
    ...(launcher !== undefined ? { launcher } : {}),
    ...(hosts !== undefined ? { hosts } : {}),
    ...opt('hostfile', values.get('--hostfile')),
    ...opt('listen', values.get('--listen')),
    ...(deadlockTimeout !== undefined ? { deadlockTimeout } : {}),
    ...(failOn !== undefined ? { failOn } : {}),
    ...(analyzers !== undefined ? { analyzers } : {}),
    ...(replayRace !== undefined ? { replayRace } : {}),
  };
}

export const HELP = `mpiscope — finds the bugs of MPI programs while they run

Usage:
  mpiscope run [--json FILE] [--sarif FILE] [--trace FILE] [--mpirun CMD] [--launcher mpirun|mpiexec|srun]
               [--host H,H… | --hostfile F] [--listen ADDR[:PORT]] [--deadlock-timeout S] [--analyzers K|auto]
               [--keep-alive] [--fail-on error|warning|note] [--memcheck] [--replay-race ID [--sender R]]
               -np N [--] PROGRAM [ARGS...]   (stdin goes to rank 0)
  mpiscope report TRACE [--json FILE] [--sarif FILE] [--analyzers K|auto] [--fail-on error|warning|note]
  mpiscope export --chrome TRACE [-o FILE]    (Chrome trace event JSON for Perfetto)
  mpiscope cc|cxx|fc ARGS...                  (MPISCOPE_MPI=openmpi|mpich picks the MPI)
  mpiscope net-test | view | coll-bench | map …   the network and collective tools (each has --help)
  mpiscope --help | --version

run       runs PROGRAM on N ranks under the mpiscope shim and prints what it finds
report    rebuilds the report of a run from its trace file (written with --trace)
export    writes a trace as Chrome trace event JSON (--chrome), which Perfetto and chrome://tracing open
cc, cxx, fc  the MPI's mpicc/mpicxx/mpif90 with the memcheck mode's instrumentation (CC="mpiscope cc" in a
          build); run such a program under mpiscope run and each load or store of memory that a pending
          operation owns is reported at its line (local-concurrency, rma-race)

  --json FILE             also write the findings as JSON
  --sarif FILE            also write them as SARIF 2.1.0 (for code-scanning tools)
  --trace FILE            write every event to FILE as it arrives
  --mpirun CMD            the launcher command, with arguments of its own ("mpirun --mca btl tcp,self")
  --launcher L            mpirun, mpiexec (of the program's MPI) or srun (Slurm); default: srun inside a
                          Slurm allocation (SLURM_JOB_ID set), else mpirun
  --host H,H…             the hosts to run on (H:SLOTS allowed), passed to the launcher in its own syntax
  --hostfile F            a host file for the launcher (under srun, its hosts become --nodelist)
  --listen ADDR[:PORT]    where the analyzer listens for the ranks; default: 127.0.0.1 when every host is
                          this machine, else the address of the interface on the hosts' subnet
  --tls                   the ranks connect over TLS (wss) to a certificate made for this session, pinned by
                          its SHA-256 in their environment (no CA): for --listen on a network other users
                          or machines share
  --deadlock-timeout S    report a hang after S seconds without progress, also when no rank's MPI calls
                          arrive at all (default 30)
  --analyzers K|auto      split the analysis into K shard threads, or one per core (rank pairs and
                          communicators spread over them; the findings do not depend on K); default 1: one
                          thread
  --keep-alive            leave a deadlocked job running for inspection (Ctrl-C ends it)
  --fail-on SEVERITY      the least severity that makes the exit status 1: error (default), warning (also
                          wrong on some MPI or some run: potential deadlocks, leaks, races) or note (also legal
                          but suspicious)
  --memcheck              require the memcheck mode (on by itself for a program built with mpiscope cc/cxx/fc);
                          a program built without them is refused with exit status 2
  --replay-race ID        rerun a message race the other way: the wildcard receive the race finding names
                          (its id, race.id in the JSON report: RANK.K.SENDER) takes SENDER's message; the rest
                          runs free; prints what that does (deadlock, mismatch, different exit, same result)
  --sender R              the world rank whose message the replayed receive takes (instead of the id's)

The job's stdin, stdout and stderr are mpiscope's own, as under mpirun: stdin reaches rank 0 only.
Ctrl-C (SIGINT) or SIGTERM ends the job as it would end mpirun, and the report of what was seen is printed.

Exit status:
  0    no finding of severity error, and the job ended well
  1    findings of severity error
  2    mpiscope could not do its job, or could not observe the job (it says why)
  3    no error finding, but the job failed on its own (a rank exited non-zero or died)
  128+S  the run was interrupted by signal S (130 for Ctrl-C, 143 for SIGTERM); the report is printed
`;
