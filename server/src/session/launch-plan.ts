import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { programInterpreter } from './elf-interp';
import type { LauncherSyntax } from './job-command';
import { UsageError } from './session-api';
import {
  capture,
  FLAVOR_NAMES,
  flavorFromLibraries,
  flavorFromVersion,
  linksMpi,
  type MpiFlavor,
} from './mpi-flavor';

/** Everything checked and decided before a job starts. */
export interface LaunchPlan {
  readonly program: string;
  readonly flavor: MpiFlavor;
  /** The launcher and the arguments the user gave with it (from --mpirun "cmd args"). */
  readonly mpirun: string;
  readonly mpirunPrefixArgs: readonly string[];
  /** How the launcher spells its options. */
  readonly syntax: LauncherSyntax;
  /** What `ldd PROGRAM` printed, when it succeeded: the memcheck mode reads it instead of running ldd again. */
  readonly ldd?: string;
}

export type LauncherName = 'mpirun' | 'mpiexec' | 'srun';
export const LAUNCHERS: readonly LauncherName[] = ['mpirun', 'mpiexec', 'srun'];

/**
 * The launcher to use when none is named: srun inside a Slurm allocation (SLURM_JOB_ID set and srun on
 * PATH), mpirun otherwise.
 */
export function defaultLauncher(env: NodeJS.ProcessEnv): LauncherName {
  return env.SLURM_JOB_ID !== undefined && findOnPath('srun', env.PATH ?? '') !== undefined
    ? 'srun'
    : 'mpirun';
}

export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    if (isExecutableFile(p)) return p;
  }
  return undefined;
}

function isExecutableFile(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolve and check the program: it exists, is an executable file, and is linked with MPI, or is an interpreter
 * (python3 running mpi4py…), whose MPI binding loads MPI itself: its flavor is then undefined, the launcher's.
 */
export async function checkProgram(
  program: string,
  cwd: string,
): Promise<{ path: string; flavor: MpiFlavor | undefined; ldd?: string }> {
  let path: string | undefined;
  if (program.includes('/')) path = resolve(cwd, program);
  else path = existsSync(join(cwd, program)) ? join(cwd, program) : findOnPath(program);
  if (path === undefined || !existsSync(path)) {
    throw new UsageError(
      program.includes('/')
        ? `program ${program} not found (no file ${path}); check the path, or build it with mpicc first`
        : `program ${program} not found in the current folder or on PATH; give its path (for example ./${program})`,
    );
  }
  if (!statSync(path).isFile())
    throw new UsageError(`${program} is not a file; give the path of the MPI executable to run`);
  if (!isExecutableFile(path))
    throw new UsageError(`${program} is not executable; build it with mpicc or run chmod +x ${program}`);
  // The program's libraries (ldd's answer) are listed while the rest of the start-up goes on: every tool run
  // before the launch adds to the start-up of every job (bench/end-to-end).
  const interpreter = programInterpreter(path);
  const lddRun = listLibraries(path, interpreter);
  // A static executable has no program interpreter: the dynamic loader never runs, so LD_PRELOAD (how the
  // shim gets into the ranks) cannot work. Read from the file's headers, not by running readelf -lW.
  if (interpreter === null) {
    await lddRun;
    throw new UsageError(
      `${program} is statically linked, so mpiscope cannot observe it: its shim is loaded with LD_PRELOAD, which a static executable ignores; build it without -static (mpicc links MPI dynamically by default)`,
    );
  }
  const ldd = await lddRun;
  let libs = ldd?.code === 0 ? ldd.out : '';
  if (!linksMpi(libs)) {
    const elf = await capture('readelf', ['-d', path]);
    if (elf?.code === 0) libs += elf.out;
  }
  if (!linksMpi(libs) && (await definesMpi(path))) {
    throw new UsageError(
      `${program} contains its own copy of MPI (linked with a static libmpi.a), so mpiscope cannot observe it: LD_PRELOAD cannot replace functions the executable defines itself; link it with the shared MPI library (mpicc without -static or -Bstatic)`,
    );
  }
  // An interpreter's MPI binding (mpi4py's MPI module, linked with libmpi) is loaded after the shim, which
  // LD_PRELOAD put first: its MPI calls reach the shim like a C program's. Which MPI it is, the launcher tells.
  if (!linksMpi(libs) && INTERPRETER.test(basename(path))) return { path, flavor: undefined };
  if (!linksMpi(libs)) throw new UsageError(notMpi(program, path));
  const flavor = flavorFromLibraries(libs);
  if (flavor === undefined) {
    throw new UsageError(
      `${program} is linked with an MPI library mpiscope does not know (only Open MPI and MPICH are supported)`,
    );
  }
  return { path, flavor, ...(ldd?.code === 0 ? { ldd: ldd.out } : {}) };
}

/** The system's dynamic loaders (glibc's ld-linux*.so.N, musl's ld-musl-*.so.1), where ldd finds them too. */
const SYSTEM_LOADER = /^\/(usr\/)?lib(64|32|x32)?\/ld-[A-Za-z0-9_.-]+\.so(\.\d+)*$/;

/**
 * What `ldd PROGRAM` prints, from the program's own dynamic loader run with --list, when it names one of the
 * system's: the same lines, without ldd's shell script and its second run of the loader (--verify). Measured on
 * many-calls (Open MPI), one after the other at load ~19: ldd 42-120 ms, the loader 9-25 ms; ldd is the longest
 * of the checks before the launch (bench/end-to-end/README.md, "What runs before the launcher"). Anything else (a
 * loader elsewhere, which ldd would not run either, no answer, a failure) asks ldd, as before.
 */
export async function listLibraries(
  path: string,
  interpreter: string | null | undefined,
): Promise<{ code: number; out: string } | undefined> {
  if (interpreter !== undefined && interpreter !== null && SYSTEM_LOADER.test(interpreter)) {
    const listed = await capture(interpreter, ['--list', path]);
    if (listed?.code === 0 && listed.out.includes('=>')) return listed;
  }
  return capture('ldd', [path]);
}

/** Interpreters whose MPI bindings load MPI themselves (mpi4py, Rmpi, MPI.jl…): run with the launcher's MPI. */
const INTERPRETER = /^(python|pypy|Rscript|R|julia|perl|ruby|node|java|octave)[\d.]*$/;

/** The line for a program that is not linked with MPI: a script, an interpreter, or a plain executable. */
function notMpi(program: string, path: string): string {
  let head = '';
  try {
    head = readFileSync(path, { encoding: 'latin1' }).slice(0, 2);
  } catch {
    // Unreadable: said as a plain executable below.
  }
  if (head === '#!')
    return `${program} is a script, not an MPI executable: give mpiscope the program the script runs under mpirun (mpiscope run -np N ./app ARGS), built with mpicc, mpicxx or mpif90`;
  return `${program} is not linked with an MPI library (ldd shows no libmpi); build it with mpicc and run it again`;
}

/** True when the executable itself defines MPI_Init (MPI linked in statically). */
async function definesMpi(path: string): Promise<boolean> {
  const syms = await capture('nm', ['-D', '--defined-only', path]);
  const all =
    syms?.code === 0 && /\sT P?MPI_Init\b/.test(syms.out)
      ? syms
      : await capture('nm', ['--defined-only', path]);
  return all?.code === 0 && /\s[TW] P?MPI_Init\b/.test(all.out);
}

/** The launcher's flavor, from `CMD --version`. */
export async function launcherFlavor(mpirun: string): Promise<MpiFlavor | undefined> {
  const v = await capture(mpirun, ['--version']);
  return v === undefined ? undefined : flavorFromVersion(v.out);
}

/**
 * Choose the launcher. An explicit --mpirun is used as given (an srun command is srun; any other must be a
 * launcher of the program's MPI); otherwise --launcher (or the default, see defaultLauncher) names the kind:
 * `mpirun`/`mpiexec` from PATH when it is of the program's MPI, else the flavor's own (mpirun.openmpi,
 * mpiexec.mpich…), or `srun`.
 */
export async function planLaunch(
  program: string,
  cwd: string,
  mpirunOption: string | undefined,
  launcherOption?: LauncherName,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LaunchPlan> {
  // The launcher's `--version` runs while the program is checked (ldd, readelf): every tool run before the
  // launch adds to the start-up of every job, one after the other 20-25 ms (MPISCOPE_TIMING=1).
  // Keyed by the file the name leads to: mpirun, mpiexec and mpirun.openmpi are often links to one launcher
  // (Debian's alternatives), which is then asked once.
  const flavors = new Map<string, Promise<MpiFlavor | undefined>>();
  const flavorOf = (path: string): Promise<MpiFlavor | undefined> => {
    const key = realPath(path);
    let f = flavors.get(key);
    if (f === undefined) flavors.set(key, (f = launcherFlavor(path)));
    return f;
  };
  const likely = likelyLauncher(cwd, mpirunOption, launcherOption ?? defaultLauncher(env), env);
  if (likely !== undefined) void flavorOf(likely);
  // Without --mpirun, the launcher is the first candidate of the program's MPI, which the checks tell: each MPI's
  // own (mpirun.mpich…) is asked now too, so that a program of the other MPI than `mpirun`'s does not wait for
  // its launcher's `--version` after the checks. On one MPI's system they are links to `mpirun` (asked once).
  if (likely !== undefined && mpirunOption === undefined)
    for (const flavor of Object.keys(FLAVOR_NAMES)) {
      const own = findOnPath(`${basename(likely)}.${flavor}`, env.PATH ?? '');
      if (own !== undefined) void flavorOf(own);
    }
  const prog = await checkProgram(program, cwd);
  const progFlavor = prog.flavor ?? (await interpreterFlavor(program, cwd, mpirunOption, env, flavorOf));
  // Every way of choosing ends in the same plan for the program; only the launcher differs.
  const plan = (mpirun: string, mpirunPrefixArgs: readonly string[], syntax: LauncherSyntax): LaunchPlan => ({
    program: prog.path,
    flavor: progFlavor,
    mpirun,
    mpirunPrefixArgs,
    syntax,
    ...(prog.ldd === undefined ? {} : { ldd: prog.ldd }),
  });
  const want = FLAVOR_NAMES[progFlavor];
  if (mpirunOption !== undefined) {
    const [cmd = '', ...prefix] = mpirunOption.trim().split(/\s+/);
    const path = cmd.includes('/')
      ? isExecutableFile(resolve(cwd, cmd))
        ? resolve(cwd, cmd)
        : undefined
      : findOnPath(cmd, env.PATH ?? '');
    if (path === undefined) {
      throw new UsageError(
        `mpirun command ${cmd || '(empty)'} not found or not executable; pass an installed launcher with --mpirun, for example --mpirun mpirun`,
      );
    }
    const isSrun = /^srun\b/.test(basename(cmd));
    if (launcherOption !== undefined && (launcherOption === 'srun') !== isSrun) {
      throw new UsageError(
        `--launcher ${launcherOption} and --mpirun ${cmd} disagree; give one of them, or the same launcher in both`,
      );
    }
    if (isSrun) return plan(path, prefix, 'srun');
    const flavor = await flavorOf(path);
    if (flavor === undefined) {
      throw new UsageError(
        `${cmd} --version does not say Open MPI or MPICH; pass an Open MPI or MPICH launcher with --mpirun`,
      );
    }
    if (flavor !== progFlavor) {
      throw new UsageError(
        `${program} is linked with ${want} but ${cmd} is ${FLAVOR_NAMES[flavor]}'s launcher; use --mpirun mpirun.${progFlavor} or rebuild with ${FLAVOR_NAMES[flavor]}'s mpicc`,
      );
    }
    return plan(path, prefix, syntaxOf(flavor));
  }
  const launcher = launcherOption ?? defaultLauncher(env);
  if (launcher === 'srun') {
    const path = findOnPath('srun', env.PATH ?? '');
    if (path === undefined)
      throw new UsageError(
        `--launcher srun: srun is not on PATH; install Slurm's client (slurm-client) or use --launcher mpirun`,
      );
    return plan(path, [], 'srun');
  }
  const other = launcher === 'mpirun' ? 'mpiexec' : 'mpirun';
  // The launcher asked for first; the other spelling of the same MPI's launcher after, when --launcher was
  // not given (both start the same jobs).
  const candidates = [launcher, `${launcher}.${progFlavor}`];
  if (launcherOption === undefined) candidates.push(other, `${other}.${progFlavor}`);
  const found = candidates.flatMap((name) => {
    const path = isAbsolute(name) ? name : findOnPath(name, env.PATH ?? '');
    return path === undefined ? [] : [path];
  });
  const path = await firstOfFlavor(found, progFlavor, flavorOf);
  if (path !== undefined) return plan(path, [], syntaxOf(progFlavor));
  throw new UsageError(
    `no ${want} launcher found on PATH (tried ${candidates.join(', ')}); install ${want} or pass --mpirun CMD`,
  );
}

/**
 * The MPI an interpreter's binding (mpi4py…) is run with: the launcher's, --mpirun's or else mpirun's (mpiexec's)
 * on PATH. The interpreter links no MPI, so nothing else tells.
 */
async function interpreterFlavor(
  program: string,
  cwd: string,
  mpirunOption: string | undefined,
  env: NodeJS.ProcessEnv,
  flavorOf: (path: string) => Promise<MpiFlavor | undefined>,
): Promise<MpiFlavor> {
  const cmd = mpirunOption?.trim().split(/\s+/)[0] ?? '';
  const path =
    mpirunOption === undefined
      ? (findOnPath('mpirun', env.PATH ?? '') ?? findOnPath('mpiexec', env.PATH ?? ''))
      : cmd.includes('/')
        ? resolve(cwd, cmd)
        : findOnPath(cmd, env.PATH ?? '');
  const flavor =
    path === undefined || /^srun\b/.test(basename(path)) || !isExecutableFile(path)
      ? undefined
      : await flavorOf(path);
  if (flavor === undefined)
    throw new UsageError(
      `${basename(program)} is an interpreter (its MPI binding, such as mpi4py, loads MPI itself), so mpiscope runs it with the MPI of the launcher, and ${path === undefined ? 'no mpirun or mpiexec was found on PATH' : `${basename(path)} is not an Open MPI or MPICH launcher`}; pass the launcher of the MPI the binding uses with --mpirun (for example --mpirun mpirun.openmpi)`,
    );
  return flavor;
}

/**
 * The first of `paths` (in their order) whose launcher is of `want`, every one's `--version` asked at once: asked
 * one after the other, an MPICH program with Open MPI's `mpirun` first on PATH waited for `mpirun --version` and
 * then for `mpirun.mpich --version` before its launch (~3-10 ms each).
 */
export async function firstOfFlavor(
  paths: readonly string[],
  want: MpiFlavor,
  flavorOf: (path: string) => Promise<MpiFlavor | undefined>,
): Promise<string | undefined> {
  const asked = paths.map((p) => flavorOf(p));
  for (let i = 0; i < paths.length; i++) if ((await asked[i]) === want) return paths[i];
  return undefined;
}

/** The file a path leads to through its links (the path itself if that cannot be told). */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The launcher planLaunch will most likely ask `--version` of first (its first candidate), if any. */
function likelyLauncher(
  cwd: string,
  mpirunOption: string | undefined,
  launcher: LauncherName,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (mpirunOption !== undefined) {
    const cmd = mpirunOption.trim().split(/\s+/)[0] ?? '';
    if (cmd === '' || /^srun\b/.test(basename(cmd))) return undefined;
    return cmd.includes('/') ? resolve(cwd, cmd) : findOnPath(cmd, env.PATH ?? '');
  }
  return launcher === 'srun' ? undefined : findOnPath(launcher, env.PATH ?? '');
}

function syntaxOf(flavor: MpiFlavor): LauncherSyntax {
  return flavor === 'openmpi' ? 'openmpi' : 'hydra';
}
