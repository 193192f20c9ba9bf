/**
 * The option parser of the performance subcommands (net-test, coll-bench, map, view): `--name VALUE`,
 * `--name=VALUE`, flags, and mpirun's `-np N`/`-n N`. Every mistake is a UsageError of one line.
 */
import { UsageError } from '../session/session-api';

export interface ToolOptions {
  readonly values: Map<string, string>;
  readonly flags: Set<string>;
  readonly positional: string[];
}

export function parseToolOptions(
  command: string,
  argv: readonly string[],
  valueOptions: readonly string[],
  flagOptions: readonly string[] = [],
): ToolOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a.startsWith('-') && a !== '-') {
      const eq = a.indexOf('=');
      let name = eq > 0 ? a.slice(0, eq) : a;
      if (name === '-n' || name === '--np') name = '-np';
      if (name === '-H' || name === '--hosts') name = '--host';
      if (flagOptions.includes(name)) {
        flags.add(name);
        continue;
      }
      if (!valueOptions.includes(name))
        throw new UsageError(
          `unknown option ${name} for mpiscope ${command}; see mpiscope ${command} --help`,
        );
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '')
        throw new UsageError(`option ${name} needs a value; see mpiscope ${command} --help`);
      values.set(name, value);
      continue;
    }
    positional.push(a);
  }
  return { values, flags, positional };
}

/** A whole number option within [min, max]; `fallback` when absent. */
export function intOption(
  o: ToolOptions,
  name: string,
  fallback: number | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = o.values.get(name);
  if (text === undefined) {
    if (fallback === undefined) throw new UsageError(`${name} is required`);
    return fallback;
  }
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(
      `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'} (got ${text})`,
    );
  return n;
}

/** The hosts options shared with `mpiscope run`. */
export function hostOptions(o: ToolOptions): {
  hosts?: string[];
  hostfile?: string;
  mpirun?: string;
  launcher?: 'mpirun' | 'mpiexec' | 'srun';
} {
  const hostText = o.values.get('--host');
  const hosts = hostText?.split(',').map((h) => h.trim());
  if (hosts !== undefined && hosts.some((h) => !/^[A-Za-z0-9._-]+(:\d+)?$/.test(h)))
    throw new UsageError(
      `--host ${hostText}: give host names or addresses separated by commas, each optionally with :SLOTS (for example --host node1,node2:4)`,
    );
  if (hosts !== undefined && o.values.has('--hostfile'))
    throw new UsageError('give the hosts either with --host or with --hostfile, not both');
  const launcher = o.values.get('--launcher');
  if (launcher !== undefined && launcher !== 'mpirun' && launcher !== 'mpiexec' && launcher !== 'srun')
    throw new UsageError(`--launcher must be mpirun, mpiexec or srun (got ${launcher})`);
  const hostfile = o.values.get('--hostfile');
  const mpirun = o.values.get('--mpirun');
  return {
    ...(hosts !== undefined ? { hosts } : {}),
    ...(hostfile !== undefined ? { hostfile } : {}),
    ...(mpirun !== undefined ? { mpirun } : {}),
    ...(launcher !== undefined ? { launcher } : {}),
  };
}

export const LAUNCH_OPTIONS = ['-np', '--host', '--hostfile', '--mpirun', '--launcher', '--mpi'];
