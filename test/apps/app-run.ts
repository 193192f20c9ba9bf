/**
 * Runs a real MPI application (from a Debian package) twice — bare under its MPI's launcher, then under
 * `mpiscope run` — and checks what the apps tier promises: the job completes with no finding of severity
 * error, its findings of lower severity are exactly the ones judged real for that application, mpiscope
 * observed every rank making a plausible number of MPI calls, and the application's own scientific results
 * are the bare run's (up to the run-to-run noise of the last printed digit).
 */
import assert from 'node:assert/strict';
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { closeSync, cpSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { readTrace } from '../../server/src/session/trace-file';
import { functions, KIND, RECORD_SIZE } from '../../server/src/protocol/spec';
import { onPath, readReport, runCli } from '../lib/mpiscope-cli';
import { lineDiffers } from './results';

export type Flavor = 'openmpi' | 'mpich';

export interface AppCase {
  /** e.g. "lammps melt": names the run in messages and the folder it runs in. */
  readonly name: string;
  readonly flavor: Flavor;
  readonly program: string;
  readonly args: readonly string[];
  /** Fills a fresh working folder with the inputs (each run gets its own: applications write scratch files there). */
  readonly prepare: (dir: string) => void;
  /** The application's scientific results from a run (its stdout and folder): lines compared bare vs mpiscope. */
  readonly results: (stdout: string, dir: string) => string[];
  /** Fewest MPI calls each rank must be seen making (a run mpiscope did not see is no pass). */
  readonly minCallsPerRank: number;
  /**
   * Fewest calls of particular functions each rank must be seen making: for calls that only one part of
   * the application makes (NWChem's own Fortran code), proof that mpiscope sees that part.
   */
  readonly minCallsOf?: Readonly<Record<string, number>>;
  /**
   * Findings below error judged real bugs of the application (kind → why it is real). The run must give
   * exactly these kinds: a new one is a false positive to fix in the engine, or a real bug to judge here.
   */
  readonly known?: Readonly<Record<string, string>>;
  readonly env?: NodeJS.ProcessEnv;
  /** The checks the report must name as not run (e.g. potential-deadlock when threads call MPI), if any. */
  readonly skipped?: readonly string[];
  /** Ranks of the job, when the application needs more than RANKS (a master, a consumer and workers). */
  readonly ranks?: number;
  /** A file of the working folder the job reads as its standard input (rank 0's, through the launcher). */
  readonly stdin?: string;
  /**
   * How far apart two bare runs' non-integer results can be, when more than two units in the last printed
   * digit (measured, and said where it is set); the results under mpiscope may differ from the bare run's by as much.
   */
  readonly noise?: number;
}

export const RANKS = 2;

/** The launcher each flavor's applications are started with, as mpiscope's --mpirun takes it. */
export function launcher(flavor: Flavor): string {
  return flavor === 'openmpi' ? 'mpirun.openmpi' : 'mpirun.mpich';
}

/** What is missing to run this tier (commands and files the Debian packages install), for one clear message. */
export function missing(needs: readonly string[]): string[] {
  return needs.filter((n) => (n.startsWith('/') ? !existsSync(n) : !onPath(n)));
}

export function requireInstalled(needs: readonly string[]): void {
  const gone = missing(needs);
  assert.deepEqual(
    gone,
    [],
    `not installed: ${gone.join(', ')}; run 'bash scripts/setup.sh --with-mpich --with-apps' as root (it installs the Debian packages)`,
  );
}

/** Copies a read-only example folder (e.g. under /usr/share) into the working folder. */
export function copyExample(from: string, dir: string): void {
  cpSync(from, dir, { recursive: true });
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The bare run: the same launcher line mpiscope builds (root and oversubscription flags for Open MPI). */
function runBare(c: AppCase, dir: string): Promise<Run> {
  const flags =
    c.flavor === 'openmpi'
      ? [...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : []), '--oversubscribe']
      : [];
  const started = Date.now();
  return new Promise((done) => {
    const input = c.stdin === undefined ? 'ignore' : openSync(join(dir, c.stdin), 'r');
    const child = spawn(
      launcher(c.flavor),
      [...flags, '-np', String(c.ranks ?? RANKS), c.program, ...c.args],
      {
        cwd: dir,
        env: { ...process.env, ...c.env },
        stdio: [input, 'pipe', 'pipe'],
      },
    ) as ChildProcessByStdio<null, Readable, Readable>;
    if (typeof input === 'number') closeSync(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // SIGTERM first: the launcher then ends its ranks; SIGKILL would leave them behind.
    const term = setTimeout(() => child.kill('SIGTERM'), 300_000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 310_000);
    child.on('close', (code) => {
      clearTimeout(term);
      clearTimeout(kill);
      done({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

interface RankCalls {
  /** ENTER records. */
  recorded: number;
  /** Calls made: the last seq (a run of idle polls, e.g. MPI_Test finding nothing, is recorded as one). */
  made: number;
  /** ENTER records per MPI function. */
  readonly byFunction: Map<string, number>;
}

/** MPI calls per rank in a trace, from the ENTER records of the ranks' binary frames. */
export function callsIn(trace: string): Map<number, RankCalls> {
  const calls = new Map<number, RankCalls>();
  for (const frame of readTrace(trace)) {
    if (frame.kind !== 'binary') continue;
    const data = frame.data;
    let c = calls.get(frame.rank);
    if (c === undefined) calls.set(frame.rank, (c = { recorded: 0, made: 0, byFunction: new Map() }));
    for (let at = 0; at + RECORD_SIZE <= data.length; at += RECORD_SIZE) {
      if (data[at] !== KIND.ENTER) continue;
      c.recorded++;
      c.made = Math.max(c.made, data.readUInt32LE(at + 4));
      const fn = functions[data.readUInt16LE(at + 2)]?.name ?? '?';
      c.byFunction.set(fn, (c.byFunction.get(fn) ?? 0) + 1);
    }
  }
  return calls;
}

/** Runs the case bare and under mpiscope in two fresh folders under `work`, and asserts the tier's promises. */
export async function checkApp(t: TestContext, c: AppCase, work: string): Promise<void> {
  const slug = `${c.name}-${c.flavor}`.replace(/[^a-z0-9]+/gi, '-');
  const bareDir = join(work, slug, 'bare');
  let scopeDir = join(work, slug, 'mpiscope');
  for (const d of [bareDir, scopeDir]) {
    mkdirSync(d, { recursive: true });
    c.prepare(d);
  }

  const bare = await runBare(c, bareDir);
  assert.equal(
    bare.code,
    0,
    `${c.name} fails without mpiscope (exit ${bare.code}):\n${bare.stderr.slice(-2000)}`,
  );
  const expected = c.results(bare.stdout, bareDir);
  assert.ok(expected.length > 0, `no results found in the bare run's output:\n${bare.stdout.slice(-2000)}`);

  let json = join(scopeDir, 'report.json');
  let trace = join(scopeDir, 'trace.msc');
  const underMpiscope = () =>
    runCli(
      [
        'run',
        '--json',
        json,
        '--trace',
        trace,
        '--mpirun',
        launcher(c.flavor),
        '-np',
        String(c.ranks ?? RANKS),
        '--',
        c.program,
        ...c.args,
      ],
      {
        cwd: scopeDir,
        timeoutMs: 600_000,
        ...(c.env ? { env: c.env } : {}),
        ...(c.stdin !== undefined ? { stdin: join(scopeDir, c.stdin) } : {}),
      },
    );
  let cli = await underMpiscope();
  let context = `\n--- stderr\n${cli.stderr.slice(-3000)}`;
  assert.notEqual(cli.code, null, `mpiscope did not finish within 600 s${context}`);
  assert.ok(existsSync(json), `mpiscope wrote no report (exit ${cli.code})${context}`);
  let report = readReport(json);
  // A shim whose ring filled while the analyzer lagged (a loaded machine: NWChem makes ~500k calls in a few
  // seconds) loses records, and the checks of that rank are then skipped: no verdict on the engine either
  // way. Run once more; lost records twice is a failure below.
  if ((report.lostRecords ?? 0) > 0) {
    t.diagnostic(`${c.name} (${c.flavor}): ${report.lostRecords} records lost; running again`);
    // A fresh folder: applications read what their last run left (NWChem its wave functions).
    scopeDir = join(work, slug, 'mpiscope-again');
    mkdirSync(scopeDir, { recursive: true });
    c.prepare(scopeDir);
    json = join(scopeDir, 'report.json');
    trace = join(scopeDir, 'trace.msc');
    cli = await underMpiscope();
    context = `\n--- stderr\n${cli.stderr.slice(-3000)}`;
    assert.notEqual(cli.code, null, `mpiscope did not finish within 600 s${context}`);
    report = readReport(json);
  }
  const listed = report.findings
    .map(
      (f) =>
        `  ${f.severity} ${f.kind}: ${f.message} [${f.locations.map((l) => `${l.rank}:${l.function ?? '?'}`).join(' ')}]`,
    )
    .join('\n');

  const errors = report.findings.filter((f) => f.severity === 'error');
  assert.equal(errors.length, 0, `findings of severity error on a correct application:\n${listed}`);
  assert.equal(cli.code, 0, `mpiscope's exit status${context}`);
  assert.equal(report.outcome, 'completed', `the job's outcome${context}`);
  assert.equal(report.ranks, c.ranks ?? RANKS);
  assert.equal(
    report.lostRecords ?? 0,
    0,
    'records were lost: the checks of the ranks concerned were skipped',
  );
  if (c.skipped !== undefined)
    assert.deepEqual(
      [...new Set((report.skippedChecks ?? []).flatMap((k) => k.checks))].sort(),
      [...c.skipped].sort(),
      `the checks named as not run: ${JSON.stringify(report.skippedChecks)}`,
    );
  const kinds = [...new Set(report.findings.map((f) => f.kind))].sort();
  assert.deepEqual(
    kinds,
    Object.keys(c.known ?? {}).sort(),
    `the findings are not the ones judged:\n${listed}`,
  );

  const calls = callsIn(trace);
  for (let r = 0; r < (c.ranks ?? RANKS); r++) {
    const seen = calls.get(r);
    assert.ok(seen !== undefined, `no MPI call of rank ${r} reached mpiscope`);
    assert.ok(
      seen.recorded >= c.minCallsPerRank,
      `rank ${r}: only ${seen.recorded} MPI calls recorded, expected at least ${c.minCallsPerRank}`,
    );
    for (const [fn, least] of Object.entries(c.minCallsOf ?? {})) {
      const n = seen.byFunction.get(fn) ?? 0;
      assert.ok(n >= least, `rank ${r}: only ${n} calls of ${fn} recorded, expected at least ${least}`);
    }
  }

  const got = c.results(cli.stdout, scopeDir);
  assert.equal(
    got.length,
    expected.length,
    `result lines: bare ${expected.length}, under mpiscope ${got.length}`,
  );
  expected.forEach((line, i) => {
    const d = lineDiffers(line, got[i] ?? '', c.noise);
    assert.equal(d, undefined, `the application's results changed under mpiscope (line ${i + 1}): ${d}`);
  });

  const perRank = [...calls].sort(([a], [b]) => a - b);
  t.diagnostic(
    `${c.name} (${c.flavor}): bare ${bare.ms} ms, mpiscope ${cli.ms} ms; MPI calls per rank ` +
      perRank.map(([r, n]) => `${r}: ${n.recorded} recorded of ${n.made}`).join(', ') +
      `; ${expected.length} result lines equal; findings: ${kinds.join(', ') || 'none'}`,
  );
}
