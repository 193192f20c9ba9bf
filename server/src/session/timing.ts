/**
 * Milestones of a run on stderr, with the time since this process started (Node's own start-up included), when
 * MPISCOPE_TIMING=1: where the start-up and the end of a job go (bench/end-to-end prints them). Off, a mark costs
 * one comparison.
 */
import { performance } from 'node:perf_hooks';

const on = process.env.MPISCOPE_TIMING === '1';

/**
 * The mark, and this process's CPU so far: the wall time of a start-up moves with the machine's load, its CPU
 * much less, so the CPU spent before the launcher starts is what tells two builds apart on a shared machine.
 */
export function timingMark(what: string): void {
  if (!on) return;
  const cpu = process.cpuUsage();
  // The event loop's idle time so far: this process waiting for something (a socket, a timer, a child) with its
  // thread asleep, not kept off a core by other work. Between the ranks' hellos and their ENDs, the analyzer
  // idles only while nothing is to be read.
  const idle = performance.eventLoopUtilization().idle;
  process.stderr.write(
    `mpiscope: timing +${(process.uptime() * 1000).toFixed(1)} ms ${what} (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms, idle ${idle.toFixed(1)} ms)\n`,
  );
}

/** The analyzer process's CPU so far (every thread: V8's helpers and shard threads too), on the timing line. */
export function timingCpu(): void {
  if (!on) return;
  const cpu = process.cpuUsage();
  process.stderr.write(
    `mpiscope: timing cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (user ${(cpu.user / 1000).toFixed(0)}, system ${(cpu.system / 1000).toFixed(0)})\n`,
  );
}
