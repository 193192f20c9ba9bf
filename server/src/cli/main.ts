import { exitStatusOf } from '../report/report-model';
import { replayTrace } from '../session/replay';
import { UsageError } from '../session/session-api';
import { HELP, parseArgs } from './args';
import { runCommand } from './run-command';
import { compilerCommand } from './compiler-command';
import { checkTargets, toolVersion, writeReports } from './write-reports';

/** Exit statuses: 0 no error finding, 1 error findings, 2 mpiscope could not do its job, 3 the job failed (report-model.ts). */
async function main(argv: readonly string[]): Promise<number> {
  const cmd = parseArgs(argv);
  const cwd = process.cwd();
  switch (cmd.command) {
    case 'help':
      process.stdout.write(HELP);
      return 0;
    case 'version':
      process.stdout.write(`mpiscope ${toolVersion()}\n`);
      return 0;
    case 'report': {
      checkTargets(cmd, cwd);
      const input = await replayTrace(cmd.trace);
      writeReports(input, cmd, cwd);
      return exitStatusOf(input.result.findings, input.result.outcome);
    }
    case 'run':
      checkTargets(cmd, cwd);
      return runCommand(cmd, cwd);
    case 'cc':
    case 'cxx':
    case 'fc':
      return compilerCommand(cmd.command, cmd.args);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    if (process.env.MPISCOPE_DEBUG === '1' && err instanceof Error)
      process.stderr.write(`${err.stack ?? err.message}\n`);
    if (err instanceof UsageError) process.stderr.write(`mpiscope: ${err.message}\n`);
    else
      process.stderr.write(
        `mpiscope: internal error: ${err instanceof Error ? err.message : String(err)} (run with MPISCOPE_DEBUG=1 for details)\n`,
      );
    process.exit(2);
  },
);
