/**
 * The CPU time of the calling thread alone, for the benchmarks' per-shard numbers: Node 20 has no
 * process.threadCpuUsage (Node 23.9), and a worker's process.cpuUsage() is the whole process's. Linux gives
 * each thread's utime and stime (in clock ticks, 100 per second here) in /proc/thread-self/stat.
 * Undefined elsewhere; nothing but measurements depends on it.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second (sysconf(_SC_CLK_TCK)): 100 on every Linux that Node supports. */
const TICKS = 100;

export function threadCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count fields after its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? ((utime + stime) * 1000) / TICKS : undefined;
  } catch {
    return undefined;
  }
}
