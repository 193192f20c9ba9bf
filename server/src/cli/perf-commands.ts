/**
 * The network and collective tools (issue 9), each in its own file; main.ts dispatches to them by name. Each is
 * loaded when asked for: their modules (the engine's, for `map`) would otherwise be loaded by every `mpiscope run`.
 */
type PerfCommand = (argv: readonly string[], cwd: string) => Promise<number>;

export const PERF_COMMANDS: Readonly<Record<string, (() => Promise<PerfCommand>) | undefined>> = {
  'net-test': async () => (await import('./net-test-command')).netTestCommand,
  view: async () => (await import('./view-command')).viewCommand,
  map: async () => (await import('./map-command')).mapCommand,
  'coll-bench': async () => (await import('./coll-bench-command')).collBenchCommand,
  export: async () => (await import('./export-command')).exportCommand,
};
