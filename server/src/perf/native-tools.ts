/**
 * mpiscope's own MPI programs (native-tools/: net-test, coll-bench), built on first use with the chosen
 * MPI's mpicc into native-tools/build/<flavor>/, the way the shim is built (session/shim-locator.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findOnPath, launcherFlavor, type LauncherName } from '../session/launch-plan';
import { FLAVOR_NAMES, type MpiFlavor } from '../session/mpi-flavor';
import { UsageError } from '../session/session-api';
import { repoRoot } from '../session/shim-locator';

/** The programs, and the preloadable library (lib-*.c is built as lib-*.so). */
export type NativeTool = 'net-test' | 'coll-bench' | 'lib-topo-allgather';

/**
 * The MPI to build and run with: the one named by --mpi; else the flavor of the --mpirun command; else the
 * flavor of `mpirun` (or `mpiexec`) on PATH; else whichever MPI's mpicc is installed, Open MPI first.
 */
export async function chooseFlavor(
  mpi: string | undefined,
  mpirun: string | undefined,
  launcher: LauncherName | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<MpiFlavor> {
  if (mpi !== undefined) {
    if (mpi !== 'openmpi' && mpi !== 'mpich')
      throw new UsageError(`--mpi must be openmpi or mpich (got ${mpi})`);
    return mpi;
  }
  const path = env.PATH ?? '';
  if (mpirun !== undefined) {
    const cmd = mpirun.trim().split(/\s+/)[0] ?? '';
    const found = cmd.includes('/') ? cmd : findOnPath(cmd, path);
    const flavor = found === undefined ? undefined : await launcherFlavor(found);
    if (flavor === undefined)
      throw new UsageError(
        `cannot tell the MPI of --mpirun ${cmd} (${cmd} --version names neither Open MPI nor MPICH); add --mpi openmpi or --mpi mpich`,
      );
    return flavor;
  }
  for (const name of launcher === 'mpiexec' ? ['mpiexec', 'mpirun'] : ['mpirun', 'mpiexec']) {
    const found = findOnPath(name, path);
    const flavor = found === undefined ? undefined : await launcherFlavor(found);
    if (flavor !== undefined) return flavor;
  }
  for (const flavor of ['openmpi', 'mpich'] as const) if (findOnPath(`mpicc.${flavor}`, path)) return flavor;
  throw new UsageError('no MPI found (no mpirun, mpiexec or mpicc on PATH); install Open MPI or MPICH');
}

/** The path of the tool built for this flavor, building it when missing or older than its source. */
export async function ensureTool(tool: NativeTool, flavor: MpiFlavor): Promise<string> {
  const root = repoRoot();
  if (root === undefined)
    throw new UsageError(
      'the mpiscope checkout (native-tools/) was not found next to this program; reinstall mpiscope',
    );
  const srcDir = join(root, 'native-tools');
  const outDir = join(srcDir, 'build', flavor);
  const bin = join(outDir, tool.startsWith('lib-') ? `${tool}.so` : tool);
  const src = join(srcDir, `${tool}.c`);
  const fresh = (): boolean => existsSync(bin) && statSync(bin).mtimeMs >= statSync(src).mtimeMs;
  if (fresh()) return bin;
  const mpicc = findOnPath(`mpicc.${flavor}`) ?? findOnPath('mpicc');
  if (mpicc === undefined)
    throw new UsageError(
      `${FLAVOR_NAMES[flavor]}'s mpicc was not found; install its development package to build mpiscope's ${tool}`,
    );
  const lock = join(srcDir, 'build', `${flavor}.lock`);
  await acquire(lock);
  try {
    if (fresh()) return bin;
    const log = await run('bash', [join(srcDir, 'build.sh'), mpicc, outDir]);
    if (log.code !== 0 || !existsSync(bin)) {
      const last = log.out.trim().split('\n').slice(-1)[0] ?? '';
      throw new UsageError(
        `building mpiscope's ${tool} for ${FLAVOR_NAMES[flavor]} failed (${last}); run bash native-tools/build.sh ${mpicc} ${outDir} to see why`,
      );
    }
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch {
      // A lock left by a build that died is stale after two minutes (a build takes seconds).
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new UsageError(`waited too long for another mpiscope to build its tools; remove ${lock}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function run(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => resolve({ code: 127, out: e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}
