import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
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

/** Resolve and check the program: it exists, is an executable file, and is linked with MPI. */
export async function checkProgram(
  program: string,
  cwd: string,
): Promise<{ path: string; flavor: MpiFlavor }> {
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
  const ldd = await capture('ldd', [path]);
  let libs = ldd?.code === 0 ? ldd.out : '';
  if (!linksMpi(libs)) {
    const elf = await capture('readelf', ['-d', path]);
    if (elf?.code === 0) libs += elf.out;
  }
  if (!linksMpi(libs)) {
    throw new UsageError(
      `${program} is not linked with an MPI library (ldd shows no libmpi); build it with mpicc and run it again`,
    );
  }
  const flavor = flavorFromLibraries(libs);
  if (flavor === undefined) {
    throw new UsageError(
      `${program} is linked with an MPI library mpiscope does not know (only Open MPI and MPICH are supported)`,
    );
  }
  return { path, flavor };
}

/** The launcher's flavor, from `CMD --version`. */
export async function launcherFlavor(mpirun: string): Promise<MpiFlavor | undefined> {
  const v = await capture(mpirun, ['--version']);
  return v === undefined ? undefined : flavorFromVersion(v.out);
}

/**
 * Choose the launcher. An explicit --mpirun is used as given, but must be of the program's MPI; otherwise
 * `mpirun` from PATH is used when it matches, else the flavor's own launcher (mpirun.openmpi / mpirun.mpich).
 */
export async function planLaunch(
  program: string,
  cwd: string,
  mpirunOption: string | undefined,
): Promise<LaunchPlan> {
  const prog = await checkProgram(program, cwd);
  const want = FLAVOR_NAMES[prog.flavor];
  if (mpirunOption !== undefined) {
    const [cmd = '', ...prefix] = mpirunOption.trim().split(/\s+/);
    const path = cmd.includes('/')
      ? isExecutableFile(resolve(cwd, cmd))
        ? resolve(cwd, cmd)
        : undefined
      : findOnPath(cmd);
    if (path === undefined) {
      throw new UsageError(
        `mpirun command ${cmd || '(empty)'} not found or not executable; pass an installed launcher with --mpirun, for example --mpirun mpirun`,
      );
    }
    const flavor = await launcherFlavor(path);
    if (flavor === undefined) {
      throw new UsageError(
        `${cmd} --version does not say Open MPI or MPICH; pass an Open MPI or MPICH launcher with --mpirun`,
      );
    }
    if (flavor !== prog.flavor) {
      throw new UsageError(
        `${program} is linked with ${want} but ${cmd} is ${FLAVOR_NAMES[flavor]}'s launcher; use --mpirun mpirun.${prog.flavor} or rebuild with ${FLAVOR_NAMES[flavor]}'s mpicc`,
      );
    }
    return { program: prog.path, flavor, mpirun: path, mpirunPrefixArgs: prefix };
  }
  const candidates = ['mpirun', `mpirun.${prog.flavor}`, 'mpiexec', `mpiexec.${prog.flavor}`];
  for (const name of candidates) {
    const path = isAbsolute(name) ? name : findOnPath(name);
    if (path === undefined) continue;
    if ((await launcherFlavor(path)) === prog.flavor)
      return { program: prog.path, flavor: prog.flavor, mpirun: path, mpirunPrefixArgs: [] };
  }
  throw new UsageError(
    `no ${want} launcher found on PATH (tried ${candidates.join(', ')}); install ${want} or pass --mpirun CMD`,
  );
}
