import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FindingKind, Severity } from '../engine/types';
import type { Finding, Location } from '../session/session-api';
import type { ReportInput } from './report-model';

/** One-line descriptions of the finding kinds (DESIGN.md's table), for SARIF rules. */
const RULES: Record<FindingKind, string> = {
  deadlock: 'Ranks blocked forever',
  'potential-deadlock': 'Completes only because the MPI library buffered a standard-mode send',
  'message-race': 'A wildcard receive whose match is decided by timing',
  'buffer-overlap': 'A buffer of a pending nonblocking operation is written by another operation',
  'send-buffer-modified': 'The buffer of a pending send was modified',
  'type-mismatch': "Sender's and receiver's type signatures do not match",
  'count-mismatch': 'Message longer than the receive buffer, or collective counts disagree',
  'collective-mismatch': 'Ranks call different collectives, roots or ops, or in a different order',
  'resource-leak': 'MPI objects not freed at MPI_Finalize',
  'unmatched-message': 'A message never received, or a receive never satisfied',
  'invalid-argument': 'An argument MPI forbids',
  'request-misuse': 'A request used in a way MPI forbids',
  'call-order': 'MPI called before MPI_Init or after MPI_Finalize, or MPI_Finalize missing',
  'rma-race': 'Conflicting one-sided accesses in the same epoch',
};

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

export interface SarifOptions {
  /** Paths inside it are written relative to it (uriBaseId %SRCROOT%). */
  readonly cwd: string;
  /** Base of the documentation links: `${docsBase}/KIND.md`. */
  readonly docsBase: string;
  readonly version: string;
}

/** SARIF 2.1.0: one result per finding, the first location primary, the others related (each naming its rank). */
export function sarifReport(input: ReportInput, options: SarifOptions): string {
  const kinds = [...new Set(input.result.findings.map((f) => f.kind))];
  const rules = kinds.map((kind) => ({
    id: kind,
    name: kind,
    shortDescription: { text: RULES[kind] },
    helpUri: `${options.docsBase}/${kind}.md`,
  }));
  const results = input.result.findings.map((f) => result(f, kinds.indexOf(f.kind), options.cwd));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: { name: 'mpiscope', version: options.version, informationUri: options.docsBase, rules },
        },
        originalUriBaseIds: {
          '%SRCROOT%': {
            uri: pathToFileURL(options.cwd.endsWith(sep) ? options.cwd : options.cwd + sep).href,
          },
        },
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
}

function result(f: Finding, ruleIndex: number, cwd: string): object {
  const [first, ...rest] = f.locations;
  return {
    ruleId: f.kind,
    ruleIndex,
    level: LEVEL[f.severity],
    message: { text: f.message },
    locations: first === undefined ? [] : [location(first, cwd)],
    relatedLocations: rest.map((l, i) => ({ id: i + 1, ...location(l, cwd) })),
  };
}

function location(l: Location, cwd: string): object {
  const text = `rank ${l.rank}: ${l.detail || l.call}`;
  if (l.file === '') return { message: { text } };
  const rel = relative(cwd, l.file);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  const artifactLocation = inside
    ? { uri: rel.split(sep).join('/'), uriBaseId: '%SRCROOT%' }
    : { uri: pathToFileURL(l.file).href };
  return {
    physicalLocation: { artifactLocation, ...(l.line > 0 ? { region: { startLine: l.line } } : {}) },
    message: { text },
  };
}
