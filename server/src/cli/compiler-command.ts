/**
 * `mpiscope cc|cxx|fc ARGS…`: the MPI library's own compiler wrapper (mpicc, mpicxx, mpif90 of the chosen MPI)
 * with the flags of the memcheck mode, for `CC="mpiscope cc"` in existing builds. Every argument is passed
 * through; added are gcc's -fsanitize=thread (a call to a hook before each load and store) without function
 * entry/exit hooks, and, for a link, mpiscope's own runtime in place of ThreadSanitizer's: its folder comes first
 * on the library path and holds a libtsan.so that is the memcheck runtime (native-shim/mcrt/), found at run time
 * through an rpath; --wrap routes the program's memcpy/memmove/memset through it. A program built so runs
 * normally without mpiscope (the hooks find nothing owned); `mpiscope run` turns the memcheck mode on for it.
 */
import { spawn } from 'node:child_process';
import { findOnPath } from '../session/launch-plan';
import { UsageError } from '../session/session-api';
import { ensureMemcheckRuntime } from '../session/shim-locator';

export type CompilerKind = 'cc' | 'cxx' | 'fc';
const WRAPPER: Record<CompilerKind, string> = { cc: 'mpicc', cxx: 'mpicxx', fc: 'mpif90' };

/** The MPI compiler wrapper: MPISCOPE_MPI=openmpi|mpich picks one MPI's (mpicc.openmpi…), else the default one. */
export function mpiCompiler(kind: CompilerKind, env: NodeJS.ProcessEnv): string {
  const flavor = env.MPISCOPE_MPI;
  if (flavor !== undefined && flavor !== '' && flavor !== 'openmpi' && flavor !== 'mpich')
    throw new UsageError(
      `MPISCOPE_MPI=${flavor} is not an MPI mpiscope knows; set it to openmpi or mpich, or unset it`,
    );
  const name = flavor ? `${WRAPPER[kind]}.${flavor}` : WRAPPER[kind];
  const path = findOnPath(name, env.PATH ?? '');
  if (path === undefined)
    throw new UsageError(
      `${name} is not on PATH, so mpiscope ${kind} has no MPI compiler to wrap; install the MPI's development package${flavor ? '' : ' or set MPISCOPE_MPI=openmpi|mpich'}`,
    );
  return path;
}

/** The flags added to the user's: instrumentation, debug lines when none were asked for, the runtime. */
export function memcheckFlags(kind: CompilerKind, runtimeDir: string, userArgs: readonly string[]): string[] {
  const flags = ['-fsanitize=thread', '--param', 'tsan-instrument-func-entry-exit=0'];
  // gcc warns that it cannot instrument atomic_thread_fence; the memcheck runtime does not need it to.
  if (kind !== 'fc') flags.push('-Wno-tsan');
  // Findings point at file:line: without -g there would be no line to show.
  if (!userArgs.some((a) => a.startsWith('-g'))) flags.push('-g');
  flags.push(`-L${runtimeDir}`, `-Wl,-rpath,${runtimeDir}`, '-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset');
  return flags;
}

export async function compilerCommand(kind: CompilerKind, args: readonly string[]): Promise<number> {
  const compiler = mpiCompiler(kind, process.env);
  const runtime = await ensureMemcheckRuntime();
  const argv = [...memcheckFlags(kind, runtime, args), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(compiler, argv, { stdio: 'inherit' });
    child.on('error', (e) => reject(new UsageError(`cannot run ${compiler}: ${e.message}`)));
    child.on('close', (code, signal) => resolve(code ?? (signal !== null ? 128 + 15 : 1)));
  });
}
