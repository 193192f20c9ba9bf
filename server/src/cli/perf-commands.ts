/** The network and collective tools (issue 9), each in its own file; main.ts dispatches to them by name. */
import { collBenchCommand } from './coll-bench-command';
import { exportCommand } from './export-command';
import { mapCommand } from './map-command';
import { netTestCommand } from './net-test-command';
import { viewCommand } from './view-command';

export const PERF_COMMANDS: Readonly<
  Record<string, ((argv: readonly string[], cwd: string) => Promise<number>) | undefined>
> = {
  'net-test': netTestCommand,
  view: viewCommand,
  map: mapCommand,
  'coll-bench': collBenchCommand,
  export: exportCommand,
};
