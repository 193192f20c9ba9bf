import type { ReplayOutcome } from '../session/replay-race';
import type { Severity } from '../engine/model/types';
import type { SessionResult, SessionStart } from '../session/session-api';

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
 *   0  no finding at or above the --fail-on severity (default error), the job ended well (or was ended by
 *      mpiscope after a finding), and every rank's calls were checked;
 *   1  a finding at or above the --fail-on severity;
 *   2  mpiscope could not do its job or could not observe the job: set by the CLI when it saw no rank at all, and
 *      here when it saw only part of it (a rank none of whose calls arrived, a connection cut or refused, records
 *      the ranks dropped): the checks that needed them are named in the report, and a run that was only partly
 *      checked must not pass as clean;
 *   3  no error finding, but the job failed on its own: a rank exited non-zero, died, or mpirun failed.
 * A finding explains a failure better than the failure alone, so 1 wins over 3; and the job's own failure (a rank
 * that died before it could connect, say) explains a missing rank better than "not observed", so 3 wins over 2.
 * A run the user interrupted exits 128 + the signal's number (the CLI).
 */
export function exitStatusOf(
  result: Pick<SessionResult, 'findings' | 'outcome' | 'skippedChecks'>,
  failOn: Severity = 'error',
): 0 | 1 | 2 | 3 {
  if (result.findings.some((f) => failsOn(f.severity, failOn))) return 1;
  if (result.outcome === 'failed') return 3;
  return partlyObserved(result) ? 2 : 0;
}

/** Whether some rank's calls, or some records, never reached the analyzer (the report names the checks skipped). */
export function partlyObserved(result: Pick<SessionResult, 'skippedChecks'>): boolean {
  return (result.skippedChecks ?? []).some(
    (s) => s.cause === 'unobserved-ranks' || s.cause === 'lost-records',
  );
}
