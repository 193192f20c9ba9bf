import { exitStatusOf } from '../report/report-model';
import { UsageError } from '../session/session-api';
import { timingCpu, timingMark } from '../session/timing';
import { HELP, parseArgs } from './args';
import { PERF_COMMANDS } from './perf-commands';
import { checkTargets, toolVersion } from './report-targets';

// Each command's modules are loaded when it runs (`import()`, which the bundle turns into a call of the module's
// initializer): `run` starts its launcher before the engine's modules, and their tables, are made
// (session.ts, Session.run); `--version` and `--help` load none of them.

/** Exit statuses: 0 no finding at or above --fail-on, 1 such findings, 2 mpiscope could not do its job, 3 the job failed (report-model.ts). */
async function main(argv: readonly string[]): Promise<number> {
  timingMark('the CLI is loaded');
  const tool = PERF_COMMANDS[argv[0] ?? ''];
  if (tool !== undefined) return (await tool())(argv.slice(1), process.cwd());
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
      const { replayTrace } = await import('../session/replay');
      const { writeReports } = await import('./write-reports');
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
      return (await import('./run-command')).runCommand(cmd, cwd);
    case 'cc':
    case 'cxx':
    case 'fc':
      return (await import('./compiler-command')).compilerCommand(cmd.command, cmd.args);
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
