import { isAbsolute, relative } from 'node:path';
import type { Severity } from '../engine/model/types';
import type { Finding, Location } from '../session/session-api';
import { describeEnding } from '../session/rank-endings';
import type { ReportInput } from './report-model';

export interface HumanOptions {
  readonly cwd: string;
  readonly color: boolean;
}

const MPI_NAMES: Record<string, string> = { openmpi: 'Open MPI', mpich: 'MPICH' };

/** The terminal report: a header, each finding with every rank's call site, a summary line. */
export function humanReport(input: ReportInput, options: HumanOptions): string {
  const c = palette(options.color);
  const { start, result } = input;
  const lines: string[] = [];
  const mpi = MPI_NAMES[start.mpi] ?? start.mpi;
  lines.push(
    c.bold(
      `mpiscope: ${printable(shortPath(start.program, options.cwd))}, ${result.ranks} rank${result.ranks === 1 ? '' : 's'}, ${mpi}`,
    ),
  );
  for (const f of result.findings) lines.push('', ...finding(f, options.cwd, c));
  if (result.lostRecords !== undefined && result.lostRecords > 0)
    lines.push(
      '',
      c.severity(
        'warning',
        `${result.lostRecords} records were lost (the analyzer fell behind the job): messages never received, leaks, buffer overlaps of the ranks concerned, potential deadlocks and races were not checked. Run again on a less loaded machine for a complete check.`,
      ),
    );
  const spill = result.spill;
  if (spill !== undefined && spill.files.length > 0) {
    const gaps =
      spill.missingFrames > 0
        ? ` ${spill.missingFrames} frames in flight when it died are in neither (more than the ranks kept).`
        : '';
    const full =
      spill.fullRanks.length > 0
        ? ` The spill of rank${spill.fullRanks.length === 1 ? '' : 's'} ${spill.fullRanks.join(', ')} reached its bound (MPISCOPE_SPILL_MAX_MB): later calls were not recorded.`
        : '';
    lines.push(
      '',
      c.severity(
        spill.missingFrames > 0 || spill.fullRanks.length > 0 ? 'warning' : 'note',
        `The analyzer died during the run: ${spill.records} records came from ${spill.files.length} spill file${spill.files.length === 1 ? '' : 's'} the ranks wrote.${gaps}${full}`,
      ),
    );
  }
  // Lost records have their line above; a bound reached or threads in MPI at once are named here.
  for (const s of result.skippedChecks ?? [])
    if (s.cause !== 'lost-records')
      lines.push('', c.severity('warning', `Not checked: ${s.checks.join(', ')}: ${s.reason}`));
  // A rank that did not finalize says how and where it ended: that is often the bug itself (a crash). The
  // ranks mpiscope ended (after a deadlock, at the user's Ctrl-C) are not news.
  const unusual = (result.endings ?? []).filter(
    (e) => e.how !== 'finalized' && e.how !== 'never-connected' && e.endedByMpiscope !== true,
  );
  if (unusual.length > 0) {
    lines.push('');
    for (const e of unusual) {
      const where =
        e.file === ''
          ? ''
          : printable(`${shortPath(e.file, options.cwd)}:${e.line}${e.function ? ` (${e.function})` : ''}`);
      lines.push(describeEnding(e, where));
    }
  }
  lines.push('', summary(input, c));
  return lines.join('\n') + '\n';
}

// Matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the job (file names and functions a binary's debug information chose, messages that quote them)
 * shown on a terminal: control characters become visible escapes, so a name with an ANSI escape sequence
 * cannot recolour, move the cursor or retitle the terminal, and a newline in a name cannot forge a report line.
 */
export function printable(s: string): string {
  // C0 and C1 controls and DEL; tab too (it would misalign the columns).
  return s.replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function finding(f: Finding, cwd: string, c: Palette): string[] {
  const out = [`${c.severity(f.severity, `${f.kind}  ${f.severity}`)}  ${printable(f.message)}`];
  for (const l of f.locations) out.push(`  ${locationLine(l, cwd)}`);
  return out;
}

function locationLine(l: Location, cwd: string): string {
  const where = l.file === '' ? '(unknown location)' : `${printable(shortPath(l.file, cwd))}:${l.line}`;
  const detail = printable(l.detail || l.call);
  return [`rank ${l.rank}`, where, printable(l.function) || '?', detail].join('  ');
}

function summary(input: ReportInput, c: Palette): string {
  const fs = input.result.findings;
  const count = (s: Severity): number => fs.filter((f) => f.severity === s).length;
  const ended = {
    completed: 'the job completed',
    deadlock: 'the job was ended after the deadlock',
    terminated: 'the job was terminated',
    failed: `the job failed (exit ${String(input.result.exitCode)})`,
  }[input.result.outcome];
  if (fs.length === 0) return c.good(`no findings; ${ended}`);
  const parts = [
    `${count('error')} error${count('error') === 1 ? '' : 's'}`,
    `${count('warning')} warning${count('warning') === 1 ? '' : 's'}`,
  ];
  if (count('note') > 0) parts.push(`${count('note')} note${count('note') === 1 ? '' : 's'}`);
  return c.bold(`${fs.length} finding${fs.length === 1 ? '' : 's'} (${parts.join(', ')}); ${ended}`);
}

/** A path relative to cwd when it is inside it, else as given. */
export function shortPath(p: string, cwd: string): string {
  if (p === '') return p;
  const rel = relative(cwd, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

interface Palette {
  bold(s: string): string;
  good(s: string): string;
  severity(sev: Severity, s: string): string;
}

function palette(color: boolean): Palette {
  const wrap = (code: string) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const sevColor: Record<Severity, (s: string) => string> = {
    error: wrap('1;31'),
    warning: wrap('1;33'),
    note: wrap('1;36'),
  };
  return { bold: wrap('1'), good: wrap('32'), severity: (sev, s) => sevColor[sev](s) };
}
