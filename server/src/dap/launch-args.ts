import type { DebugProtocol } from '@vscode/debugprotocol';
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
  deadlockTimeout?: unknown;
  traceFile?: unknown;
  __mpiscopeToken?: unknown;
}

export interface LaunchPlan {
  readonly options: SessionOptions;
  readonly stopOnFinding: boolean;
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
  const mpirun = optionalString(args.mpirun, 'mpirun');
  const cwd = optionalString(args.cwd, 'cwd');
  const traceFile = optionalString(args.traceFile, 'traceFile');
  const options: SessionOptions = {
    program: args.program,
    args: strings(args.args, 'args'),
    np,
    mpirunArgs: strings(args.mpirunArgs, 'mpirunArgs'),
    ...(mpirun !== undefined ? { mpirun } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(deadlockTimeout !== undefined ? { deadlockTimeout } : {}),
    ...(traceFile !== undefined ? { traceFile } : {}),
    // Under the debugger a deadlocked job is left alive so its ranks can be inspected (and attached to);
    // terminate ends it.
    keepAlive: !noDebug && stopOnFinding,
  };
  return { options, stopOnFinding: stopOnFinding && !noDebug, noDebug };
}
