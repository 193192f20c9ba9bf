import { type ChildProcessByStdio, execFile, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { RankEvent } from '../../server/src/engine/model/types';
import { RankDecoder } from '../../server/src/protocol/decoder';
import { readTrace } from '../../server/src/session/trace-file';

/** The repository root, found from this bundled test file (dist/test/<tier>/x.js) or its source. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'native-shim'))) {
    const up = resolve(dir, '..');
    if (up === dir) throw new Error('mpiscope checkout not found above ' + __dirname);
    dir = up;
  }
  return dir;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * The V8 flags that bin/mpiscope.js's shebang gives the CLI (`#!/usr/bin/env -S node --flag …`): the tests run
 * the analyzer as a user's `mpiscope` runs it.
 */
function cliV8Flags(): string[] {
  const shebang = readFileSync(join(repoRoot(), 'bin', 'mpiscope.js'), 'utf8').split('\n', 1)[0] ?? '';
  return shebang.split(' ').filter((word) => word.startsWith('--'));
}

/**
 * Run dist/cli.js, with the shebang's V8 flags, and a hard deadline. On the deadline the CLI gets SIGTERM (so it can end its job)
 * and SIGKILL a few seconds later; the result then has code null.
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<CliResult> {
  const started = Date.now();
  return new Promise((done) => {
    // A file for the job's standard input (mpiscope hands its own to the launcher), else none.
    const input = options.stdin === undefined ? 'ignore' : openSync(options.stdin, 'r');
    const child = spawn(process.execPath, [...cliV8Flags(), join(repoRoot(), 'dist', 'cli.js'), ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, ...options.env },
      stdio: [input, 'pipe', 'pipe'],
    }) as ChildProcessByStdio<null, Readable, Readable>;
    if (typeof input === 'number') closeSync(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const term = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 60_000);
    const kill = setTimeout(() => child.kill('SIGKILL'), (options.timeoutMs ?? 60_000) + 5000);
    child.on('close', (code, signal) => {
      clearTimeout(term);
      clearTimeout(kill);
      done({ code: signal === null ? code : null, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The MPI flavors whose compiler and launcher are installed. */
export function installedFlavors(): string[] {
  return ['openmpi', 'mpich'].filter((f) => onPath(`mpicc.${f}`) && onPath(`mpirun.${f}`));
}

export function onPath(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/**
 * The compiler command for a flavor: its own wrapper (mpicc.openmpi…), or with memcheck `mpiscope cc`/`fc`
 * wrapping it (MPISCOPE_MPI picks the flavor), which adds the memcheck mode's instrumentation.
 */
function compiler(
  kind: 'cc' | 'fc',
  flavor: string,
  memcheck: boolean,
): { cmd: string; pre: string[]; env: NodeJS.ProcessEnv } {
  if (!memcheck) return { cmd: `${kind === 'cc' ? 'mpicc' : 'mpif90'}.${flavor}`, pre: [], env: process.env };
  return {
    cmd: process.execPath,
    pre: [join(repoRoot(), 'dist', 'cli.js'), kind],
    env: { ...process.env, MPISCOPE_MPI: flavor },
  };
}

/** A compiler run: the command, its arguments and environment, what to call it in errors, its time limit. */
interface CompileCommand {
  readonly cmd: string;
  readonly args: string[];
  readonly env: NodeJS.ProcessEnv;
  readonly what: string;
  readonly timeoutMs: number;
}

function cCommand(flavor: string, source: string, output: string, memcheck: boolean): CompileCommand {
  const c = compiler('cc', flavor, memcheck);
  return {
    cmd: c.cmd,
    args: [...c.pre, '-g', '-O0', '-o', output, source],
    env: c.env,
    what: `mpicc.${flavor}${memcheck ? ' (mpiscope cc)' : ''} ${source}`,
    timeoutMs: 60_000,
  };
}

/**
 * mpif.h has no interfaces, so a program that passes buffers of several types to one MPI routine needs
 * -fallow-argument-mismatch with gfortran 10 and later, as any mpif.h code does.
 */
function fortranCommand(
  flavor: string,
  source: string,
  binding: string,
  output: string,
  memcheck: boolean,
): CompileCommand {
  const define = { mpi: 'MPISCOPE_USE_MPI', mpi_f08: 'MPISCOPE_USE_MPI_F08', mpifh: 'MPISCOPE_MPIFH' }[
    binding
  ];
  if (define === undefined) throw new Error(`unknown Fortran binding ${binding}`);
  const extra = binding === 'mpifh' ? ['-fallow-argument-mismatch'] : [];
  const c = compiler('fc', flavor, memcheck);
  return {
    cmd: c.cmd,
    args: [
      ...c.pre,
      '-g',
      '-O0',
      '-cpp',
      `-D${define}`,
      ...extra,
      '-J',
      dirname(output),
      '-o',
      output,
      source,
    ],
    env: c.env,
    what: `mpif90.${flavor} ${source} (${binding})`,
    timeoutMs: 120_000,
  };
}

function compileFailure(
  c: CompileCommand,
  error: Error | undefined,
  status: number | null,
  stderr: string,
): Error {
  if (error !== undefined && (error as NodeJS.ErrnoException).code === 'ENOENT')
    return new Error(
      `${c.what}: ${c.cmd} cannot run (${error.message}): install it (scripts/setup.sh does, gfortran included)`,
    );
  return new Error(
    `${c.what} failed${status === null ? ` (no exit status: ${error?.message ?? 'killed'})` : ''}: ${stderr}`,
  );
}

function compileSync(c: CompileCommand): void {
  const r = spawnSync(c.cmd, c.args, { encoding: 'utf8', timeout: c.timeoutMs, env: c.env });
  if (r.status !== 0) throw compileFailure(c, r.error, r.status, r.stderr ?? '');
}

/**
 * The same compile without blocking the event loop: a test that runs several jobs at once (the corpus) keeps
 * reading the other jobs' output and starting their next steps while one program compiles.
 */
function compileAsync(c: CompileCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      c.cmd,
      c.args,
      { encoding: 'utf8', timeout: c.timeoutMs, env: c.env, maxBuffer: 16 << 20 },
      (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(compileFailure(c, error, typeof error.code === 'number' ? error.code : null, stderr));
      },
    );
  });
}

/** Compile a C MPI program with a flavor's mpicc (-g -O0); throws with the compiler's output on failure. */
export function compileMpi(flavor: string, source: string, output: string, memcheck = false): void {
  compileSync(cCommand(flavor, source, output, memcheck));
}

/** compileMpi, asynchronously. */
export function compileMpiAsync(
  flavor: string,
  source: string,
  output: string,
  memcheck = false,
): Promise<void> {
  return compileAsync(cCommand(flavor, source, output, memcheck));
}

/**
 * Compile a Fortran MPI program of the corpus with a flavor's mpif90 (-g -O0) for one binding: the source is
 * preprocessed with MPISCOPE_USE_MPI, MPISCOPE_USE_MPI_F08 or MPISCOPE_MPIFH defined (test/programs/README.md,
 * "Fortran").
 */
export function compileMpiFortran(
  flavor: string,
  source: string,
  binding: string,
  output: string,
  memcheck = false,
): void {
  compileSync(fortranCommand(flavor, source, binding, output, memcheck));
}

/** compileMpiFortran, asynchronously. */
export function compileMpiFortranAsync(
  flavor: string,
  source: string,
  binding: string,
  output: string,
  memcheck = false,
): Promise<void> {
  return compileAsync(fortranCommand(flavor, source, binding, output, memcheck));
}

/** Processes whose command line contains the text (pgrep -f), excluding pgrep itself. */
export function processesMatching(text: string): string[] {
  const r = spawnSync('pgrep', ['-a', '-f', text], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((l) => l.trim() !== '' && !l.includes('pgrep'));
}

/** The JSON report (`mpiscope run --json`), as far as the test tiers read it. */
export interface JsonReport {
  findings: {
    kind: string;
    severity: string;
    message: string;
    locations: { rank: number; file: string; line: number; function?: string }[];
    race?: { id: string; forced?: boolean; predicted?: { sender: number; outcome: string }[] };
  }[];
  replay?: { race: string; outcome: string; summary: string };
  ranks: number;
  exitCode: number;
  outcome?: string;
  lostRecords?: number;
  /** Checks the run could not make, and why (server/src/report/json-report.ts). */
  skippedChecks?: { checks: string[]; reason: string; cause: string }[];
}

export function readReport(file: string): JsonReport {
  return JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
}

/** Every event of a trace's binary frames (`--trace`), decoded by a decoder per rank, in the trace's order. */
export function* traceEvents(trace: string): Generator<RankEvent> {
  const decoders = new Map<number, RankDecoder>();
  for (const f of readTrace(trace)) {
    if (f.kind !== 'binary') continue;
    let d = decoders.get(f.rank);
    if (d === undefined) decoders.set(f.rank, (d = new RankDecoder(f.rank)));
    yield* d.decode(f.data);
  }
}
