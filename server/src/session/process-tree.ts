import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every live descendant of pid, read from /proc. mpirun's helpers (orted, hydra_pmi_proxy) may move ranks
 * into their own process groups or sessions, so killing mpirun's group alone can leave ranks behind.
 */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid === undefined) continue;
    let list = children.get(ppid);
    if (list === undefined) children.set(ppid, (list = []));
    list.push(Number(name));
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name is in parentheses and may contain spaces; the fields after it are fixed.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[1]);
  } catch {
    return undefined;
  }
}

/**
 * The process exists and has not exited. A zombie has exited (its memory, its sockets and its files are
 * released) and only waits for its parent to collect its status: Open MPI's mpirun collects its ranks' only
 * after its own SIGTERM grace (odls_base_sigkill_timeout, 1 s), and a job ended after a deadlock waited that
 * second in endJob for ranks that died at the first signal.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return stateOf(pid) !== 'Z';
}

/** The state letter of /proc/PID/stat (R, S, D, Z…), undefined when it cannot be read. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * End a job completely: SIGTERM mpirun's process group and every process below it (plus any rank pids the
 * shims told us), then SIGKILL whatever is still there after the grace period. Resolves when all are gone
 * or after the SIGKILL round.
 */
export async function endJob(
  leaderPid: number,
  extraPids: readonly number[],
  graceMs: number,
): Promise<void> {
  const targets = new Set<number>([leaderPid, ...descendants(leaderPid), ...extraPids]);
  signal(-leaderPid, 'SIGTERM');
  for (const p of targets) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && [...targets].some(isAlive)) await delay(25);
  // Processes may have been forked meanwhile; collect again before the hard kill.
  for (const p of descendants(leaderPid)) targets.add(p);
  signal(-leaderPid, 'SIGKILL');
  for (const p of targets) if (isAlive(p)) signal(p, 'SIGKILL');
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Synchronous last resort (from an 'exit' handler): SIGKILL the job's group, its descendants and the ranks. */
export function killNow(leaderPid: number, extraPids: readonly number[]): void {
  const targets = [...descendants(leaderPid), ...extraPids];
  signal(-leaderPid, 'SIGKILL');
  signal(leaderPid, 'SIGKILL');
  for (const p of targets) signal(p, 'SIGKILL');
}
