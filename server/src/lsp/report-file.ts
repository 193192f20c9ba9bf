import { readFile } from 'node:fs/promises';
import type { FindingKind, Severity } from '../engine/model/types';
import { UsageError, type Finding, type Location } from '../session/session-api';

export interface Report {
  readonly findings: readonly Finding[];
  readonly ranks: number;
}

/** Every finding kind of DESIGN.md; each has a page docs/findings/KIND.md. */
export const FINDING_KINDS: readonly FindingKind[] = [
  'deadlock',
  'potential-deadlock',
  'message-race',
  'buffer-overlap',
  'send-buffer-modified',
  'type-mismatch',
  'count-mismatch',
  'collective-mismatch',
  'resource-leak',
  'unmatched-message',
  'message-mismatch',
  'invalid-argument',
  'request-misuse',
  'call-order',
  'rma-race',
  'local-concurrency',
];
const kinds: ReadonlySet<string> = new Set(FINDING_KINDS);
const severities: ReadonlySet<string> = new Set<Severity>(['error', 'warning', 'note']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function location(value: unknown): Location | undefined {
  if (!isRecord(value) || typeof value.rank !== 'number') return undefined;
  return {
    rank: value.rank,
    file: str(value.file),
    line: num(value.line),
    function: str(value.function),
    call: str(value.call),
    detail: str(value.detail),
  };
}

/** Parses a JSON report (DESIGN.md "The JSON report"); a malformed one is a UsageError naming what is wrong. */
export function parseReport(text: string, path: string): Report {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${path} is not JSON (${(error as Error).message}); open a file written by mpiscope run --json.`,
    );
  }
  if (!isRecord(data) || !Array.isArray(data.findings)) {
    throw new UsageError(`${path} has no "findings" array; open a file written by mpiscope run --json.`);
  }
  const findings: Finding[] = [];
  for (const [i, raw] of data.findings.entries()) {
    if (!isRecord(raw) || !kinds.has(str(raw.kind)) || !Array.isArray(raw.locations)) {
      throw new UsageError(
        `${path}: finding ${i} has no known "kind" or no "locations"; is the report from another tool?`,
      );
    }
    findings.push({
      kind: str(raw.kind) as FindingKind,
      severity: severities.has(str(raw.severity)) ? (str(raw.severity) as Severity) : 'error',
      message: str(raw.message),
      locations: raw.locations.map(location).filter((l): l is Location => l !== undefined),
    });
  }
  return { findings, ranks: num(data.ranks) };
}

export async function readReport(path: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `Cannot read report ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
  return parseReport(text, path);
}
