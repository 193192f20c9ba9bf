import { Session } from '../session/session';
import type { RunCommand } from './args';
import { exitStatusOf } from '../report/report-model';
import { writeReports } from './write-reports';
import type { SessionStart } from '../session/session-api';

/** `mpiscope run`: run the job under a session, forward its output, print and write the reports. */
export async function runCommand(cmd: RunCommand, cwd: string): Promise<number> {
  const session = new Session({
    program: cmd.program,
    args: cmd.args,
    np: cmd.np,
    cwd,
    keepAlive: cmd.keepAlive,
    ...(cmd.mpirun !== undefined ? { mpirun: cmd.mpirun } : {}),
    ...(cmd.deadlockTimeout !== undefined ? { deadlockTimeout: cmd.deadlockTimeout } : {}),
    ...(cmd.trace !== undefined ? { traceFile: cmd.trace } : {}),
  });
  let start: SessionStart | undefined;
  session.on('start', (s) => (start = s));
  session.on('output', (text, stream) => (stream === 'stdout' ? process.stdout : process.stderr).write(text));
  if (cmd.keepAlive) {
    session.on('finding', (f) => {
      if (f.kind === 'deadlock')
        process.stderr.write(
          `mpiscope: ${f.message}\nmpiscope: the job is left running for inspection; press Ctrl-C to end it and print the report\n`,
        );
    });
  }
  // Ctrl-C ends the job cleanly (and the report is still printed); a second one leaves at once.
  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    void session.terminate();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  process.on('SIGHUP', onSigint);
  try {
    const result = await session.run();
    writeReports(
      { start: start ?? { program: cmd.program, ranks: cmd.np, mpi: '', command: [], pid: 0 }, result },
      cmd,
      cwd,
    );
    return exitStatusOf(result.findings);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    process.off('SIGHUP', onSigint);
  }
}
