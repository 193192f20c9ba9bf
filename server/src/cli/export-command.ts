/**
 * `mpiscope export --chrome TRACE [-o FILE]`: a trace file (written by `mpiscope run --trace`) as a Chrome
 * trace event file for Perfetto and chrome://tracing (export-chrome.ts says how calls, messages and
 * findings map onto it). The trace is replayed through the same engine as `mpiscope report`, so the
 * findings are the report's.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { UsageError } from '../session/session-api';
import { traceTimeline } from '../timeline/trace-timeline';
import { chromeTraceChunks } from './export-chrome';
import { parseToolOptions } from './tool-options';

export const EXPORT_HELP = `mpiscope export — a trace in another tool's format

Usage:
  mpiscope export --chrome TRACE [-o FILE]    Chrome trace event JSON (default: TRACE.json beside TRACE)

The result opens in Perfetto (https://ui.perfetto.dev, "Open trace file") and chrome://tracing: one thread
per rank with its MPI calls as slices, messages as flow arrows, findings as instant events.
`;

export async function exportCommand(argv: readonly string[], cwd: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(EXPORT_HELP);
    return 0;
  }
  const o = parseToolOptions(
    'export',
    argv.map((a) => (a === '-o' ? '--output' : a)),
    ['--output'],
    ['--chrome'],
  );
  if (!o.flags.has('--chrome'))
    throw new UsageError('export needs a format: mpiscope export --chrome TRACE [-o FILE]');
  if (o.positional.length !== 1)
    throw new UsageError(
      `export --chrome takes one trace file (written by mpiscope run --trace), not ${o.positional.length}`,
    );
  const trace = resolve(cwd, o.positional[0] as string);
  const out = resolve(cwd, o.values.get('--output') ?? `${trace.replace(/\.(mpitrace|trace)$/, '')}.json`);
  if (out === trace) throw new UsageError(`the output ${out} would overwrite the trace; pass -o FILE`);
  const t = await traceTimeline(trace);
  if (t.cut !== undefined)
    process.stderr.write(
      `mpiscope: ${o.positional[0]} stops at byte ${t.cut.at} of ${t.cut.size}: ${t.cut.why}; the export covers the frames before it\n`,
    );
  let fd: number;
  try {
    fd = openSync(out, 'w');
  } catch (err) {
    throw new UsageError(
      `cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? String(err)}; pass -o with a writable path`,
    );
  }
  let events: number;
  try {
    events = chromeTraceChunks(t.messages, (text) => writeSync(fd, text), {
      program: t.start.program,
      ranks: t.start.ranks,
      mpi: t.start.mpi,
      outcome: t.result.outcome,
      trace: basename(trace),
    });
  } finally {
    closeSync(fd);
  }
  process.stdout.write(
    `mpiscope: wrote ${out} (${events.toLocaleString('en')} trace events, ${t.result.findings.length} findings); open it in https://ui.perfetto.dev\n`,
  );
  return 0;
}
