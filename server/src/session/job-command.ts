import type { MpiFlavor } from './mpi-flavor';

export interface JobCommandInput {
  readonly flavor: MpiFlavor;
  readonly mpirunPrefixArgs: readonly string[];
  readonly mpirunArgs: readonly string[];
  readonly np: number;
  readonly program: string;
  readonly args: readonly string[];
  /** Variables every rank must see (MPISCOPE_URL, MPISCOPE_TOKEN, LD_PRELOAD). */
  readonly rankEnv: Readonly<Record<string, string>>;
  readonly isRoot: boolean;
}

/**
 * The launcher's arguments. The rank variables are passed with their values on the command line
 * (Open MPI `-x NAME=VALUE`, Hydra `-genv NAME VALUE`) rather than through mpirun's own environment, so the
 * shim is preloaded into the ranks only, never into mpirun itself.
 */
export function jobArguments(input: JobCommandInput): string[] {
  const out = [...input.mpirunPrefixArgs];
  if (input.flavor === 'openmpi') {
    if (input.isRoot) out.push('--allow-run-as-root');
    // Tests and users run more ranks than cores; without this Open MPI refuses to start.
    out.push('--oversubscribe');
    for (const [k, v] of Object.entries(input.rankEnv)) out.push('-x', `${k}=${v}`);
  } else {
    for (const [k, v] of Object.entries(input.rankEnv)) out.push('-genv', k, v);
  }
  out.push(...input.mpirunArgs, '-np', String(input.np), input.program, ...input.args);
  return out;
}
