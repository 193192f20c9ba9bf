import { exitStatusOf } from '../report/report-model';
import { replayTrace } from '../session/replay';
import { UsageError } from '../session/session-api';
import { timingCpu, timingMark } from '../session/timing';
import { HELP, parseArgs } from './args';
import { PERF_COMMANDS } from './perf-commands';
import { runCommand } from './run-command';
import { compilerCommand } from './compiler-command';
import { checkTargets, toolVersion, writeReports } from './write-reports';

/** Exit statuses: 0 no finding at or above --fail-on, 1 such findings, 2 mpiscope could not do its job, 3 the job failed (report-model.ts). */
async function main(argv: readonly string[]): Promise<number> {
  timingMark('the CLI is loaded');
  const tool = PERF_COMMANDS[argv[0] ?? ''];
  if (tool !== undefined) return tool(argv.slice(1), process.cwd());
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
      const input = await replayTrace(cmd.trace, cmd.analyzers);
      // A trace cut short (the analyzer was killed while writing it) is reported up to the cut, and says so.
      if (input.cut !== undefined)
        process.stderr.write(
          `mpiscope: ${cmd.trace} stops at byte ${input.cut.at} of ${input.cut.size}: ${input.cut.why}; the report covers the frames before it
`,
        );
      const spill = input.result.spill;
      if (spill !== undefined) {
        if (spill.files.length > 0)
          process.stderr.write(
            `mpiscope: merged ${spill.records} records the analyzer never received from ${spill.files.length} spill file${spill.files.length === 1 ? '' : 's'} (${spill.files.join(', ')})\n`,
          );
        for (const s of spill.skipped) process.stderr.write(`mpiscope: left out ${s}\n`);
      }
      writeReports({ ...input, ...(cmd.failOn !== undefined ? { failOn: cmd.failOn } : {}) }, cmd, cwd);
      return exitStatusOf(input.result, cmd.failOn);
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
    timingMark('exit');
    timingCpu();
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
