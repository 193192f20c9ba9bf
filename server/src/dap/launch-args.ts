import type { DebugProtocol } from '@vscode/debugprotocol';
import { parseListen } from '../session/listen-address';
import type { Severity } from '../engine/model/types';
import { SEVERITIES } from '../report/report-model';
import { analyzersProblem, coreAnalyzers } from '../shards/analyzers';
import type { SessionOptions } from '../session/session-api';

/** The attributes of an `"type": "mpi"` launch configuration (schema: package.json contributes.debuggers). */
export interface MpiLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  program?: unknown;
  args?: unknown;
  np?: unknown;
  mpirun?: unknown;
  mpirunArgs?: unknown;
  cwd?: unknown;
  env?: unknown;
  stopOnFinding?: unknown;
  failOn?: unknown;
  deadlockTimeout?: unknown;
  analyzers?: unknown;
  traceFile?: unknown;
  launcher?: unknown;
  hosts?: unknown;
  hostfile?: unknown;
  listen?: unknown;
  stdin?: unknown;
  __mpiscopeToken?: unknown;
}

export interface LaunchPlan {
  readonly options: SessionOptions;
  readonly stopOnFinding: boolean;
  /** The least severity of finding that stops the job (like `mpiscope run --fail-on`; default error). */
  readonly failOn: Severity;
  readonly noDebug: boolean;
}

function strings(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    throw new Error(`"${name}" must be an array of strings.`);
  }
  return value;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`"${name}" must be a string.`);
  return value;
}

/**
 * Checks a launch request and turns it into session options. Every error is one line that names the
 * attribute and what it must be, since it is shown to the user as the launch failure.
 */
export function planLaunch(args: MpiLaunchArguments): LaunchPlan {
  if (typeof args.program !== 'string' || args.program === '') {
    throw new Error(
      '"program" is missing: set it to the compiled MPI executable (e.g. "${workspaceFolder}/a.out").',
    );
  }
  const np = args.np ?? 2;
  if (typeof np !== 'number' || !Number.isInteger(np) || np < 1)
    throw new Error('"np" must be a positive integer.');
  const deadlockTimeout = args.deadlockTimeout;
  if (deadlockTimeout !== undefined && (typeof deadlockTimeout !== 'number' || !(deadlockTimeout > 0))) {
    throw new Error('"deadlockTimeout" must be a positive number of seconds.');
  }
  const analyzers = args.analyzers === 'auto' ? coreAnalyzers() : args.analyzers;
  const analyzersWrong = analyzers === undefined ? undefined : analyzersProblem(analyzers);
  if (analyzersWrong !== undefined) throw new Error(`"analyzers" ${analyzersWrong}.`);
  let env: Record<string, string> | undefined;
  if (args.env !== undefined) {
    if (typeof args.env !== 'object' || args.env === null || Array.isArray(args.env)) {
      throw new Error('"env" must be an object of string values.');
    }
    env = {};
    for (const [key, value] of Object.entries(args.env)) {
      if (typeof value !== 'string') throw new Error(`"env.${key}" must be a string.`);
      env[key] = value;
    }
  }
  const noDebug = args.noDebug === true;
  const stopOnFinding = args.stopOnFinding === undefined ? true : args.stopOnFinding === true;
  const failOn = args.failOn ?? 'error';
  if (typeof failOn !== 'string' || !(SEVERITIES as readonly string[]).includes(failOn))
    throw new Error(
      '"failOn" must be "error", "warning" or "note": the least severity of finding that stops the job.',
    );
  const mpirun = optionalString(args.mpirun, 'mpirun');
  const cwd = optionalString(args.cwd, 'cwd');
  const traceFile = optionalString(args.traceFile, 'traceFile');
  const launcher = optionalString(args.launcher, 'launcher');
  if (launcher !== undefined && launcher !== 'mpirun' && launcher !== 'mpiexec' && launcher !== 'srun')
    throw new Error(`"launcher" must be "mpirun", "mpiexec" or "srun" (got ${JSON.stringify(launcher)}).`);
  const hosts = strings(args.hosts, 'hosts');
  const bad = hosts.find((h) => !/^[A-Za-z0-9._-]+(:\d+)?$/.test(h));
  if (bad !== undefined)
    throw new Error(
      `"hosts" must hold host names or addresses, each optionally with :slots (got ${JSON.stringify(bad)}).`,
    );
  const hostfile = optionalString(args.hostfile, 'hostfile');
  if (hosts.length > 0 && hostfile !== undefined)
    throw new Error('Give either "hosts" or "hostfile", not both.');
  const listen = optionalString(args.listen, 'listen');
  if (listen !== undefined) {
    try {
      parseListen(listen);
    } catch (err) {
      throw new Error(`"listen" must be ADDR[:PORT] (${(err as Error).message}).`, { cause: err });
    }
  }
  const stdin = optionalString(args.stdin, 'stdin');
  const options: SessionOptions = {
    program: args.program,
    args: strings(args.args, 'args'),
    np,
    mpirunArgs: strings(args.mpirunArgs, 'mpirunArgs'),
    ...(mpirun !== undefined ? { mpirun } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(deadlockTimeout !== undefined ? { deadlockTimeout } : {}),
    ...(typeof analyzers === 'number' ? { analyzers } : {}),
    ...(traceFile !== undefined ? { traceFile } : {}),
    ...(launcher !== undefined ? { launcher } : {}),
    ...(hosts.length > 0 ? { hosts } : {}),
    ...(hostfile !== undefined ? { hostfile } : {}),
    ...(listen !== undefined ? { listen } : {}),
    ...(stdin !== undefined ? { stdin } : {}),
    // Under the debugger a deadlocked job is left alive so its ranks can be inspected (and attached to);
    // terminate ends it.
    keepAlive: !noDebug && stopOnFinding,
  };
  return { options, stopOnFinding: stopOnFinding && !noDebug, failOn: failOn as Severity, noDebug };
}
