import type { Finding, SessionResult, SessionStart } from '../session/session-api';

/** Everything a report prints; built once from a live run or a replayed trace. */
export interface ReportInput {
  readonly start: SessionStart;
  readonly result: SessionResult;
}

/** mpiscope's own exit status for a run: 1 when any finding is an error, else 0 (2 is for tool failures). */
export function exitStatusOf(findings: readonly Finding[]): 0 | 1 {
  return findings.some((f) => f.severity === 'error') ? 1 : 0;
}
