import type { Finding, SessionResult, SessionStart } from '../session/session-api';

/** Everything a report prints; built once from a live run or a replayed trace. */
export interface ReportInput {
  readonly start: SessionStart;
  readonly result: SessionResult;
}

/**
 * mpiscope's own exit status for a run (README "Exit status"):
 *   0  no finding of severity error, and the job ended well (or was ended by mpiscope after a finding);
 *   1  a finding of severity error;
 *   2  mpiscope could not do its job or could not observe the job (set by the CLI, not here);
 *   3  no error finding, but the job failed on its own: a rank exited non-zero, died, or mpirun failed.
 * A finding explains a failure better than the failure alone, so 1 wins over 3. A run the user interrupted
 * exits 128 + the signal's number (the CLI).
 */
export function exitStatusOf(findings: readonly Finding[], outcome?: SessionResult['outcome']): 0 | 1 | 3 {
  if (findings.some((f) => f.severity === 'error')) return 1;
  return outcome === 'failed' ? 3 : 0;
}
