import { constants as osConstants } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { Session } from '../session/session';
import type { RunCommand } from './args';
import { exitStatusOf } from '../report/report-model';
import { replayOutcome } from '../session/replay-race';
import type { SessionStart } from '../session/session-api';
import type * as WriteReports from './write-reports';

/**
 * The largest trace whose timeline index the run writes as it ends (~2 M events). The index is made by reading
 * the trace whole, as the editor's first opening would: for a larger one, the seconds and the memory that
 * takes at the end of every traced run (CI's included) are left to the first opening, if there is one.
 */
const RUN_INDEX_MAX_BYTES = 256 * 1024 * 1024;

/** `mpiscope run`: run the job under a session, forward its output, print and write the reports. */
export async function runCommand(cmd: RunCommand, cwd: string): Promise<number> {
  const session = new Session({
    program: cmd.program,
    args: cmd.args,
    np: cmd.np,
    cwd,
    keepAlive: cmd.keepAlive,
    ...(cmd.memcheck !== undefined ? { memcheck: cmd.memcheck } : {}),
    ...(cmd.tls !== undefined ? { tls: true } : {}),
    inheritStdio: true,
    ...(cmd.mpirun !== undefined ? { mpirun: cmd.mpirun } : {}),
    ...(cmd.launcher !== undefined ? { launcher: cmd.launcher } : {}),
    ...(cmd.hosts !== undefined ? { hosts: cmd.hosts } : {}),
    ...(cmd.hostfile !== undefined ? { hostfile: cmd.hostfile } : {}),
    ...(cmd.listen !== undefined ? { listen: cmd.listen } : {}),
    ...(cmd.deadlockTimeout !== undefined ? { deadlockTimeout: cmd.deadlockTimeout } : {}),
    ...(cmd.analyzers !== undefined ? { analyzers: cmd.analyzers } : {}),
    ...(cmd.trace !== undefined ? { traceFile: cmd.trace } : {}),
    ...(cmd.replayRace !== undefined ? { replayRace: cmd.replayRace } : {}),
  });
  let start: SessionStart | undefined;
  // The report's modules are loaded once the launcher runs, while the job starts (loaded before it, they added
  // to every job's start-up; after it, to its end): bench/end-to-end/README.md, "Start-up and end".
  let reports: Promise<typeof WriteReports> | undefined;
  session.on('start', (s) => {
    start = s;
    reports = import('./write-reports');
  });
  // The job's own output goes straight to ours (inheritStdio); these are mpiscope's messages.
  session.on('output', (text, stream) => (stream === 'stdout' ? process.stdout : process.stderr).write(text));
  if (cmd.keepAlive) {
    session.on('finding', (f) => {
      if (f.kind === 'deadlock')
        process.stderr.write(
          `mpiscope: ${f.message}\nmpiscope: the job is left running for inspection; press Ctrl-C to end it and print the report\n`,
        );
    });
  }
  // Ctrl-C or SIGTERM ends the job as it would end mpirun (the launcher gets the signal first), and the
  // report is still printed; the exit status is then 128 + the signal's number. A second one leaves at once.
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted !== undefined) process.exit(128 + (osConstants.signals[interrupted] ?? 2));
    interrupted = signal;
    void session.terminate(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  try {
    const result = await session.run();
    const replay = cmd.replayRace !== undefined ? replayOutcome(cmd.replayRace, result) : undefined;
    const { writeReports } = await (reports ?? import('./write-reports'));
    writeReports(
      {
        start: start ?? { program: cmd.program, ranks: cmd.np, mpi: '', command: [], pid: 0 },
        result,
        ...(cmd.failOn !== undefined ? { failOn: cmd.failOn } : {}),
        ...(replay !== undefined ? { replay } : {}),
      },
      cmd,
      cwd,
    );
    // After the report, so that it is the last thing a person reads: the answer to the question asked.
    if (replay !== undefined)
      process.stdout.write(`mpiscope: replay of race ${replay.race}: ${replay.outcome}. ${replay.summary}\n`);
    // The trace's timeline index (TRACE.timeline), so that opening the trace in the editor reads its timeline
    // instead of decoding every record (~0.9 s of CPU per million events, paid here once instead of at the first
    // opening). Quiet: without it the editor decodes the trace and writes it then, as for older traces.
    if (cmd.trace !== undefined) {
      const { writeTraceIndex } = await import('../timeline/trace-index');
      await writeTraceIndex(resolvePath(cwd, cmd.trace), cmd.analyzers, RUN_INDEX_MAX_BYTES);
    }
    if (interrupted !== undefined) return 128 + (osConstants.signals[interrupted] ?? 2);
    return exitStatusOf(result, cmd.failOn);
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
