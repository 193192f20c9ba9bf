import type { ReplayOutcome } from '../session/replay-race';
import type { Severity } from '../engine/model/types';
import type { Finding, SessionResult, SessionStart } from '../session/session-api';

/** Everything a report prints; built once from a live run or a replayed trace. */
export interface ReportInput {
  readonly start: SessionStart;
  readonly result: SessionResult;
  /** The least severity that makes the run fail (exit status 1): `--fail-on`, default error. */
  readonly failOn?: Severity;
  /** A --replay-race run: what the other message did (session/replay-race.ts). */
  readonly replay?: ReplayOutcome;
}

/** Severities from the most to the least severe. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'note'];

/** Whether a finding of this severity fails a run that fails on `failOn` and above. */
export function failsOn(severity: Severity, failOn: Severity = 'error'): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(failOn);
}

/**
 * mpiscope's own exit status for a run (README "Exit status"):
 *   0  no finding at or above the --fail-on severity (default error), and the job ended well (or was ended by
 *      mpiscope after a finding);
 *   1  a finding at or above the --fail-on severity;
 *   2  mpiscope could not do its job or could not observe the job (set by the CLI, not here);
 *   3  no error finding, but the job failed on its own: a rank exited non-zero, died, or mpirun failed.
 * A finding explains a failure better than the failure alone, so 1 wins over 3. A run the user interrupted
 * exits 128 + the signal's number (the CLI).
 */
export function exitStatusOf(
  findings: readonly Finding[],
  outcome?: SessionResult['outcome'],
  failOn: Severity = 'error',
): 0 | 1 | 3 {
  if (findings.some((f) => failsOn(f.severity, failOn))) return 1;
  return outcome === 'failed' ? 3 : 0;
}
