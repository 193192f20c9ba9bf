import type { MpiFlavor } from './mpi-flavor';

/**
 * How a launcher spells its options: Open MPI's mpirun/mpiexec (orterun), MPICH's mpiexec/mpirun (Hydra),
 * or Slurm's srun. The program's MPI decides the first two; srun is one syntax for both MPIs.
 */
export type LauncherSyntax = 'openmpi' | 'hydra' | 'srun';

export interface JobCommandInput {
  readonly syntax: LauncherSyntax;
  /** The program's MPI (under srun it chooses the --mpi plugin). */
  readonly flavor: MpiFlavor;
  /** Arguments the user gave with the launcher (--mpirun "cmd args"). */
  readonly mpirunPrefixArgs: readonly string[];
  /** More launcher arguments (the launch configuration's mpirunArgs), placed just before -np. */
  readonly mpirunArgs: readonly string[];
  readonly np: number;
  readonly program: string;
  readonly args: readonly string[];
  /** Variables every rank must see (MPISCOPE_URL, LD_PRELOAD). */
  readonly rankEnv: Readonly<Record<string, string>>;
  /**
   * Variables every rank must see whose values must not be on a command line, where any user of the
   * machine can read them (ps): the session token. They go in the launcher's environment and are named
   * for forwarding (Open MPI `-x NAME`; Hydra and srun forward the environment by default).
   */
  readonly secretEnv?: Readonly<Record<string, string>>;
  readonly isRoot: boolean;
  /** --host a,b (each may carry :slots). */
  readonly hosts?: readonly string[];
  /** --hostfile F; under srun its host names are passed with -w (srun has no host file option). */
  readonly hostfile?: string;
  readonly hostfileHosts?: readonly string[];
  /**
   * The subnet (CIDR) every host reaches the others on, when the job spans hosts: Open MPI's TCP transports
   * are told to use it (btl_tcp_if_include, oob_tcp_if_include) unless the user already chose.
   */
  readonly tcpSubnet?: string;
}

/** The launcher's arguments, and variables to add to the launcher's own environment. */
export interface JobCommand {
  readonly args: string[];
  readonly env: Record<string, string>;
}

/** Slurm's MPI plugin for each MPI, as Debian builds them: Open MPI 4.1 uses PMIx, MPICH 4.0 speaks PMI-2. */
export const SRUN_MPI_PLUGIN: Record<MpiFlavor, string> = { openmpi: 'pmix', mpich: 'pmi2' };

function mentions(args: readonly string[], pattern: RegExp): boolean {
  return args.some((a) => pattern.test(a));
}

/**
 * The launcher's arguments. The rank variables are passed with their values on the command line
 * (Open MPI `-x NAME=VALUE`, Hydra `-genv NAME VALUE`, srun `--export=ALL,LD_PRELOAD=…`) rather than through
 * the launcher's own environment, so the shim is preloaded into the ranks only, never into the launcher.
 */
export function jobCommand(input: JobCommandInput): JobCommand {
  const user = [...input.mpirunPrefixArgs, ...input.mpirunArgs];
  const out = [...input.mpirunPrefixArgs];
  const env: Record<string, string> = { ...input.secretEnv };
  const secrets = Object.keys(input.secretEnv ?? {});
  const hosts = input.hosts ?? [];
  switch (input.syntax) {
    case 'openmpi': {
      if (input.isRoot) out.push('--allow-run-as-root');
      // Tests and users run more ranks than cores; without this Open MPI refuses to start.
      out.push('--oversubscribe');
      if (hosts.length > 0) out.push('--host', hosts.join(','));
      if (input.hostfile !== undefined) out.push('--hostfile', input.hostfile);
      if (input.tcpSubnet !== undefined) {
        if (!mentions(user, /btl_tcp_if_(in|ex)clude/))
          out.push('--mca', 'btl_tcp_if_include', input.tcpSubnet);
        if (!mentions(user, /oob_tcp_if_(in|ex)clude/))
          out.push('--mca', 'oob_tcp_if_include', input.tcpSubnet);
      }
      for (const [k, v] of Object.entries(input.rankEnv)) out.push('-x', `${k}=${v}`);
      for (const k of secrets) out.push('-x', k);
      break;
    }
    case 'hydra':
      if (hosts.length > 0) out.push('-hosts', hosts.join(','));
      if (input.hostfile !== undefined) out.push('-f', input.hostfile);
      for (const [k, v] of Object.entries(input.rankEnv)) out.push('-genv', k, v);
      // Hydra passes its whole environment by default; when the user turned that off, the secret must be
      // named (its value then shows on the command line, which is the user's choice).
      if (mentions(user, /^-genv(none|list)$/))
        for (const k of secrets) out.push('-genv', k, input.secretEnv?.[k] ?? '');
      break;
    case 'srun': {
      if (!mentions(user, /^--mpi(=|$)/)) out.push(`--mpi=${SRUN_MPI_PLUGIN[input.flavor]}`);
      // srun sends stdin to every task by default; mpirun and mpiexec send it to rank 0 only.
      if (!mentions(user, /^(--input(=|$)|-i)/)) out.push('--input=0');
      const nodes = hosts.length > 0 ? hosts : (input.hostfileHosts ?? []);
      if (nodes.length > 0)
        out.push(`--nodelist=${[...new Set(nodes.map((h) => h.replace(/:\d+$/, '')))].join(',')}`);
      // The tasks get srun's environment (--export=ALL); LD_PRELOAD is named on --export so that it reaches
      // the tasks only, not srun itself. A value with a comma cannot be spelled there: it goes in the
      // environment, where the shim stays inert in srun (it never calls MPI).
      const preload = input.rankEnv.LD_PRELOAD;
      for (const [k, v] of Object.entries(input.rankEnv)) if (k !== 'LD_PRELOAD') env[k] = v;
      if (preload !== undefined && !preload.includes(',')) out.push(`--export=ALL,LD_PRELOAD=${preload}`);
      else if (preload !== undefined) env.LD_PRELOAD = preload;
      break;
    }
  }
  out.push(...input.mpirunArgs, input.syntax === 'srun' ? '-n' : '-np', String(input.np));
  out.push(input.program, ...input.args);
  return { args: out, env };
}
