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
  /** Hydra only: ask it to bind each rank to a core of its own (`-bind-to core`; see hydraBindsEachRank). */
  readonly bindEachRank?: boolean;
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

/** What decides whether Hydra binds each rank to a core (hydraBindsEachRank). */
export interface BindingInput {
  readonly np: number;
  /** The physical cores the session may run on (cpu-cores.ts); undefined when unknown. */
  readonly cores: number | undefined;
  /** Every launcher argument the user gave. */
  readonly userArgs: readonly string[];
  /** The launcher's environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The job runs on this host only (no --host, no --hostfile, the analyzer on loopback). */
  readonly oneHost: boolean;
  /** `ldd PROGRAM`, when known. */
  readonly ldd: string | undefined;
}

/**
 * Whether mpiscope asks Hydra (MPICH's mpiexec) to bind each rank to a core of its own, as Open MPI's mpirun does
 * by default for a job that fits the cores (bench/ring-stress/README.md, "Why MPICH's ranks ran slower"): MPICH's
 * ranks spin while they wait, and Hydra binds nothing, so once the analyzer and the ranks' sender threads share
 * the cores with them, the scheduler can put two spinning ranks on one core, where each message waits for the
 * other rank's time slice (round trips of 0.2-1 ms instead of 0.3 us). Only on one host, when every rank can have
 * a core, when the user chose no binding, mapping or hosts of their own (options or Hydra's variables), outside a
 * resource manager's allocation (it places the ranks), and never for a program linked with an OpenMP or TBB
 * runtime or run with OMP_NUM_THREADS above 1, whose threads would then share their rank's one core.
 */
export function hydraBindsEachRank(b: BindingInput): boolean {
  if (!b.oneHost || b.cores === undefined || b.np < 1 || b.np > b.cores) return false;
  if (
    mentions(b.userArgs, /^--?(bind-to|binding|map-by|membind|hosts?|f|hostfile|machinefile|configfile)(=|$)/)
  )
    return false;
  const env = [
    'HYDRA_BINDING',
    'HYDRA_MAPPING',
    'HYDRA_HOST_FILE',
    'HYDRA_CONFIG_FILE',
    'SLURM_JOB_ID',
    'PBS_JOBID',
  ];
  if (env.some((k) => b.env[k] !== undefined && b.env[k] !== '')) return false;
  // Threads the program asks for although ldd shows no runtime for them (one loaded with dlopen).
  const omp = b.env.OMP_NUM_THREADS;
  if (omp !== undefined && omp !== '' && omp.trim() !== '1') return false;
  return !/\blib(gomp|omp|iomp5|tbb)\.so/.test(b.ldd ?? '');
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
      if (input.bindEachRank === true) out.push('-bind-to', 'core');
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
