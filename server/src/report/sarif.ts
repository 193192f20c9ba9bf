import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FindingKind, Severity } from '../engine/model/types';
import type { Finding, Location } from '../session/session-api';
import type { ReportInput } from './report-model';

/** One-line descriptions of the finding kinds, for SARIF rules' shortDescription. */
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
  'message-mismatch':
    'A message never received because its tag, communicator or source does not match the receive meant for it',
  'invalid-argument': 'An argument MPI forbids',
  'request-misuse': 'A request used in a way MPI forbids',
  'call-order': 'MPI called before MPI_Init or after MPI_Finalize, or MPI_Finalize missing',
  'rma-race': 'Conflicting one-sided accesses in the same epoch',
  'local-concurrency': 'A load or store of memory a pending operation owns',
};

/** What each kind means (DESIGN.md's table), for fullDescription and help: GitHub code scanning requires both. */
const MEANING: Record<FindingKind, string> = {
  deadlock: "Ranks are blocked forever; the locations are the ring (each rank's blocking call).",
  'potential-deadlock':
    'The run completed only because the MPI library buffered a standard-mode send; with zero buffering it deadlocks.',
  'message-race':
    'A wildcard receive (or probe, or Waitany/Testany/Waitsome) whose match is decided by timing, not by the program.',
  'buffer-overlap':
    'A buffer used by a pending nonblocking operation is used again by another operation that writes it.',
  'send-buffer-modified': 'The program wrote into the buffer of a send that was still pending.',
  'type-mismatch': "The sender's and the receiver's type signatures do not match.",
  'count-mismatch':
    'The message is longer than the receive buffer (truncation), or collective counts disagree.',
  'collective-mismatch':
    'Ranks of one communicator call different collectives, roots or ops, or call them in a different order.',
  'resource-leak':
    'Requests, communicators, datatypes, groups, ops, windows or attached buffers are not freed at MPI_Finalize.',
  'unmatched-message':
    'A message was sent and never received, or a receive was never satisfied, by the end of the run.',
  'message-mismatch':
    'A message that is never received beside a receive that is never satisfied (held by a deadlock, or pending at the end of the run), whose tag, communicator or source differs from the message: the receive the message was meant for.',
  'invalid-argument':
    'An argument MPI forbids: negative count, rank or root out of range, bad tag, freed or uncommitted datatype, null communicator, too small a Bsend buffer.',
  'request-misuse':
    'A request used in a way MPI forbids: starting an active request, waiting on a completed one through a stale copy of its handle, freeing an active one.',
  'call-order':
    'MPI called before MPI_Init or after MPI_Finalize, MPI_Finalize missing, or MPI called from threads beyond the level MPI_Init_thread granted.',
  'rma-race':
    'Conflicting one-sided accesses in the same epoch, or with local loads and stores of window memory (memcheck mode).',
  'local-concurrency':
    'A load or store to a buffer that a pending operation owns: a receive buffer before the receive completed, a send or origin buffer written before its operation completed (memcheck mode).',
};

/**
 * The rule's friendly name: a Pascal-case identifier that differs from the id (SARIF 3.49.7; the SARIF
 * Multitool compares them ignoring case), or none when it cannot ("deadlock").
 */
function ruleName(kind: FindingKind): { name?: string } {
  const name = kind
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return name.toLowerCase() === kind.toLowerCase() ? {} : { name };
}

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  note: 'note',
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
    ...ruleName(kind),
    shortDescription: { text: RULES[kind] },
    fullDescription: { text: MEANING[kind] },
    help: { text: `${MEANING[kind]} See ${options.docsBase}/${kind}.md.` },
    helpUri: `${options.docsBase}/${kind}.md`,
  }));
  const results = input.result.findings.map((f) => result(f, kinds.indexOf(f.kind), options.cwd));
  const log = {
    $schema: 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
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
    ? // A relative reference must be percent-encoded like any URI (spaces, '#', '%' in file names).
      { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' }
    : { uri: pathToFileURL(l.file).href };
  return {
    physicalLocation: { artifactLocation, ...(l.line > 0 ? { region: { startLine: l.line } } : {}) },
    ...(l.function !== '' ? { logicalLocations: [{ name: l.function, kind: 'function' }] } : {}),
    message: { text },
  };
}
