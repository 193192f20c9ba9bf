/**
 * Start one of mpiscope's own MPI programs through the same launcher and hosts machinery as `mpiscope run`
 * (launch-plan.ts, job-command.ts), without the shim: net-test and coll-bench measure the machine, not a
 * program under observation.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { jobCommand } from '../session/job-command';
import { planLaunch, type LauncherName } from '../session/launch-plan';
import { listenFor } from '../session/listen-address';
import { UsageError } from '../session/session-api';

export interface ToolLaunch {
  readonly np: number;
  readonly mpirun?: string;
  readonly launcher?: LauncherName;
  readonly hosts?: readonly string[];
  readonly hostfile?: string;
  /** Extra variables for every rank. */
  readonly rankEnv?: Readonly<Record<string, string>>;
}

export interface HostSlots {
  readonly host: string;
  /** undefined when the line or option gives no slot count. */
  readonly slots: number | undefined;
}

/** Hosts with their slots, from `--host a,b:4` or a host file (`host slots=N`, `host:N`). */
export function parseHostSlots(
  hosts: readonly string[] | undefined,
  hostfileText: string | undefined,
): HostSlots[] {
  if (hosts !== undefined)
    return hosts.map((h) => {
      const m = /^(.*?)(?::(\d+))?$/.exec(h.trim());
      return { host: m?.[1] ?? h, slots: m?.[2] !== undefined ? Number(m[2]) : undefined };
    });
  const out: HostSlots[] = [];
  for (const raw of (hostfileText ?? '').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const [first = '', ...rest] = line.split(/\s+/);
    const colon = /^(.*):(\d+)$/.exec(first);
    const slotsKw = rest.map((w) => /^(?:slots|max_slots)=(\d+)$/.exec(w)).find((m) => m !== null);
    out.push({
      host: colon?.[1] ?? first,
      slots: colon !== null ? Number(colon[2]) : slotsKw ? Number(slotsKw[1]) : undefined,
    });
  }
  return out;
}

export function readHostfileText(path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the host file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give an existing file with --hostfile`,
    );
  }
}

/**
 * A job of np ranks must fit the slots the hosts declare: when every host states its slots and they add up
 * to fewer than np, the launcher would either refuse or oversubscribe silently, and a measurement of the
 * network would then measure the wrong placement.
 */
export function checkFits(slots: readonly HostSlots[], np: number, what: string): void {
  if (slots.length === 0 || slots.some((s) => s.slots === undefined)) return;
  const total = slots.reduce((a, s) => a + (s.slots ?? 0), 0);
  if (total < np)
    throw new UsageError(
      `${what} has ${total} slots on ${slots.length} hosts but the job needs ${np} ranks; add slots or hosts, or use fewer ranks with -np`,
    );
}

/** Run PROGRAM ARGS on np ranks; resolves with the launcher's exit code. Output goes to ours. */
export async function launchTool(
  program: string,
  args: readonly string[],
  o: ToolLaunch,
  cwd: string,
): Promise<{ code: number; launcher: string }> {
  const plan = await planLaunch(program, cwd, o.mpirun, o.launcher);
  const hostfile = o.hostfile === undefined ? undefined : resolve(cwd, o.hostfile);
  const fileHosts =
    hostfile === undefined
      ? []
      : parseHostSlots(undefined, readHostfileText(hostfile, cwd)).map((h) => h.host);
  const jobHosts =
    o.hosts !== undefined && o.hosts.length > 0 ? o.hosts.map((h) => h.replace(/:\d+$/, '')) : fileHosts;
  // Only the subnet matters here (Open MPI's TCP transports are kept on the hosts' network); nothing listens.
  const where = jobHosts.length > 0 ? await listenFor(jobHosts, undefined) : undefined;
  const { args: launcherArgs, env } = jobCommand({
    syntax: plan.syntax,
    flavor: plan.flavor,
    ...(o.hosts !== undefined && o.hosts.length > 0 ? { hosts: o.hosts } : {}),
    ...(hostfile !== undefined ? { hostfile, hostfileHosts: fileHosts } : {}),
    ...(where?.subnet !== undefined ? { tcpSubnet: where.subnet } : {}),
    mpirunPrefixArgs: plan.mpirunPrefixArgs,
    mpirunArgs: [],
    np: o.np,
    program: plan.program,
    args,
    rankEnv: o.rankEnv ?? {},
    isRoot: process.getuid?.() === 0,
  });
  return new Promise((done, reject) => {
    const child = spawn(plan.mpirun, launcherArgs, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const forward = (sig: NodeJS.Signals): void => {
      child.kill(sig);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (e) => reject(new UsageError(`cannot start ${plan.mpirun}: ${e.message}`)));
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      done({ code: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15), launcher: plan.mpirun });
    });
  });
}
