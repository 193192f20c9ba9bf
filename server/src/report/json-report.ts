import type { ReportInput } from './report-model';
import { exitStatusOf } from './report-model';

/**
 * The JSON report of DESIGN.md: {"findings":[{kind,severity,message,locations:[{rank,file,line,function,call,detail}]}],
 * "ranks":N,"exitCode":E}. exitCode is mpiscope's exit status (what a script tests); the job's own status and
 * how it ended are in jobExitCode and outcome.
 */
export function jsonReport(input: ReportInput): string {
  const { result } = input;
  const report = {
    findings: result.findings.map((f) => ({
      kind: f.kind,
      severity: f.severity,
      message: f.message,
      locations: f.locations.map((l) => ({
        rank: l.rank,
        file: l.file,
        line: l.line,
        function: l.function,
        call: l.call,
        detail: l.detail,
      })),
      ...(f.race !== undefined ? { race: f.race } : {}),
    })),
    ranks: result.ranks,
    exitCode: exitStatusOf(result, input.failOn),
    jobExitCode: result.exitCode,
    outcome: result.outcome,
    lostRecords: result.lostRecords ?? 0,
    ...(result.spill !== undefined
      ? {
          spill: {
            records: result.spill.records,
            files: result.spill.files,
            missingFrames: result.spill.missingFrames,
            fullRanks: result.spill.fullRanks,
          },
        }
      : {}),
    skippedChecks: (result.skippedChecks ?? []).map((s) => ({
      checks: s.checks,
      reason: s.reason,
      cause: s.cause,
    })),
    rankEndings: (result.endings ?? []).map((e) => ({
      rank: e.rank,
      how: e.how,
      ...(e.code !== undefined ? { code: e.code } : {}),
      ...(e.signal !== undefined ? { signal: e.signal } : {}),
      ...(e.address !== undefined ? { address: e.address } : {}),
      ...(e.endedByMpiscope === true ? { endedByMpiscope: true } : {}),
      ...(e.inCall === true ? { inCall: true } : {}),
      lastCall: e.lastCall,
      file: e.file,
      line: e.line,
      function: e.function,
    })),
    program: input.start.program,
    mpi: input.start.mpi,
    ...(input.replay !== undefined ? { replay: input.replay } : {}),
  };
  return JSON.stringify(report, null, 2) + '\n';
}
