import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticRelatedInformation,
} from 'vscode-languageserver';
import { pathToFileURL } from 'node:url';
import type { Severity } from '../engine/model/types';
import type { Finding, Location } from '../session/session-api';

/** Where a source line's text is found, to put the squiggle under the code rather than the indent. */
export type LineText = (file: string, line: number) => string | undefined;

export interface DiagnosticOptions {
  /** Base URI of the finding pages (docs/findings/); the page of a kind is `${docsBase}/${kind}.md`. */
  readonly docsBase: string;
  readonly lineText: LineText;
}

/** One diagnostic for one location of a finding, with the URI of the file it belongs to. */
export interface PlacedDiagnostic {
  readonly uri: string;
  readonly diagnostic: Diagnostic;
}

const severities: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
};

export function fileUri(file: string): string {
  return pathToFileURL(file).toString();
}

/**
 * What the rank was doing there, in one phrase: "MPI_Recv from rank 0, tag 7". The session gives the
 * function as `call` and the phrase as `detail`; a report may give the phrase as `call`. Either way the
 * phrase is said once.
 */
export function locationPhrase(location: Pick<Location, 'call' | 'detail' | 'function'>): string {
  const { call, detail } = location;
  if (detail && call && detail.startsWith(call)) return detail;
  if (call && call.startsWith(detail)) return call;
  const what = call || detail || location.function || 'MPI call';
  return call && detail ? `${what} (${detail})` : what;
}

/** "rank 1: MPI_Recv from rank 0, tag 7" — the rank and what it was doing. */
export function describeLocation(location: Location): string {
  return `rank ${location.rank}: ${locationPhrase(location)}`;
}

function rangeOf(location: Location, lineText: LineText): Diagnostic['range'] {
  const line = Math.max(0, location.line - 1);
  const text = lineText(location.file, location.line);
  if (text === undefined) return { start: { line, character: 0 }, end: { line, character: 0 } };
  const start = text.length - text.trimStart().length;
  return { start: { line, character: start }, end: { line, character: text.trimEnd().length } };
}

function placed(location: Location): boolean {
  return location.file !== '' && location.line > 0;
}

/**
 * A finding becomes one diagnostic per location that has a source line, so every rank involved shows
 * the problem where it is. Each one links to the finding's other locations (a deadlock ring links all
 * its members), and locations without a source line are named in the message instead.
 */
export function findingDiagnostics(finding: Finding, options: DiagnosticOptions): PlacedDiagnostic[] {
  const unplaced = finding.locations.filter((l) => !placed(l));
  const unplacedNote =
    unplaced.length === 0
      ? ''
      : ` Also involved (no source line): ${unplaced.map(describeLocation).join('; ')}.`;
  const out: PlacedDiagnostic[] = [];
  for (const location of finding.locations) {
    if (!placed(location)) continue;
    const relatedInformation: DiagnosticRelatedInformation[] = finding.locations
      .filter((other) => other !== location && placed(other))
      .map((other) => ({
        location: { uri: fileUri(other.file), range: rangeOf(other, options.lineText) },
        message: describeLocation(other),
      }));
    out.push({
      uri: fileUri(location.file),
      diagnostic: {
        range: rangeOf(location, options.lineText),
        severity: severities[finding.severity],
        code: finding.kind,
        codeDescription: { href: `${options.docsBase}/${finding.kind}.md` },
        source: 'mpiscope',
        message: `${describeLocation(location)} — ${finding.message}${unplacedNote}`,
        ...(relatedInformation.length > 0 ? { relatedInformation } : {}),
        // A race that can be replayed the other way: the code action "Replay with the other message" reads it.
        ...(finding.race !== undefined && finding.race.forced !== true && finding.race.alternatives.length > 0
          ? { data: { race: finding.race } }
          : {}),
      },
    });
  }
  return out;
}
