/**
 * After the launcher exits, the analyzer keeps reading the ranks' connections until each has closed: a rank
 * that exited may leave megabytes of its last frames in the socket buffers (the shim's flush at MPI_Finalize
 * only waits until they are written to the socket), and on a loaded machine the analyzer can be seconds
 * behind. Cutting those streams short drops the tail of a rank's records (its last receives' completions),
 * and the end-of-run checks then see messages that were received as never received (false unmatched-message).
 * So the bound is on silence, not on the time since the launcher exited: a connection that stays open and
 * sends nothing (a process that kept the socket, a host that went away) is given up after DRAIN_QUIET_MS;
 * one that is still delivering is read to its end, within DRAIN_MAX_MS (a process still running MPI calls
 * long after its launcher exited must not keep the session open forever).
 */
export const DRAIN_QUIET_MS = 2000;
export const DRAIN_MAX_MS = 300_000;

export interface DrainState {
  /** Connections of ranks still open. */
  readonly open: number;
  readonly now: number;
  /** When the launcher exited (the drain started). */
  readonly since: number;
  /** When the last frame of any rank arrived (0 if none). */
  readonly lastFrameAt: number;
}

/** True while the session should keep reading the ranks' connections. */
export function keepDraining(s: DrainState): boolean {
  if (s.open === 0) return false;
  if (s.now - s.since >= DRAIN_MAX_MS) return false;
  return s.now - Math.max(s.since, s.lastFrameAt) < DRAIN_QUIET_MS;
}

/**
 * How long the drain may sleep before keepDraining() can turn false by time alone (at least 1 ms). A
 * connection's close wakes it sooner (the session's `closed` handler), so the end of a job waits for the last
 * close itself, not for the next turn of a poll (a 20 ms poll added up to 20 ms to every run's end).
 */
export function drainWaitMs(s: DrainState): number {
  const quietEnds = Math.max(s.since, s.lastFrameAt) + DRAIN_QUIET_MS;
  const maxEnds = s.since + DRAIN_MAX_MS;
  return Math.max(1, Math.min(quietEnds, maxEnds) - s.now);
}

/**
 * How long the drain's last look waits for reads (lastLookDue): a turn of the event loop reads what the kernel
 * holds, so this is a margin, not a wait for the rank.
 */
export const LAST_LOOK_MS = 50;

/**
 * True when keepDraining() turned false for silence alone (connections still open, within DRAIN_MAX_MS). The
 * silence is measured on the session's clock, between its reads: on a starved machine the timer that ends the
 * drain can run before the reads that were due with it (a read every READ_EVERY_MS, a rank held back for being
 * ahead), and a rank's last frames, whole in the kernel's buffers, were cut (ok-threads-two-comms at load 37: its
 * records stopped at a mid-run MPI_Allreduce and the run was reported as only partly observed). So before giving a
 * silent connection up, the drain reads every connection once more; only a look that brings nothing ends it.
 */
export function lastLookDue(s: DrainState): boolean {
  return !keepDraining(s) && s.open > 0 && s.now - s.since < DRAIN_MAX_MS;
}
