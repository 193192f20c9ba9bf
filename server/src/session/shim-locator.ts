import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { findOnPath } from './launch-plan';
import { FLAVOR_NAMES, type MpiFlavor } from './mpi-flavor';
import { UsageError } from './session-api';

/** The mpiscope checkout: the first folder above this bundle that holds native-shim/spec/records.json. */
export function repoRoot(start = __dirname): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'native-shim', 'spec', 'records.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Newest modification time of the files under dir (dot files left out). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestUnder(p) : st.mtimeMs);
  }
  return newest;
}

/**
 * Newest modification time of the shim's inputs: exactly what build.sh compares its library with. A wider set
 * (the READMEs, the tests) made every session after an edit of them run build.sh, which found nothing to do and
 * left the library as old as it was: a shell and its tools before every job from then on.
 */
function newestSource(shimDir: string): number {
  const script = join(shimDir, 'build.sh');
  let newest = existsSync(script) ? statSync(script).mtimeMs : 0;
  for (const dir of ['spec', 'gen', 'src', 'mcrt']) {
    const p = join(shimDir, dir);
    if (existsSync(p)) newest = Math.max(newest, newestUnder(p));
  }
  return newest;
}

/** The default shim, or the memcheck build of it (native-shim/src/msc_memcheck.c compiled in). */
export type ShimVariant = 'default' | 'memcheck';
const LIBRARY: Record<ShimVariant, string> = {
  default: 'libmpiscope.so',
  memcheck: 'libmpiscope-memcheck.so',
};

function builtLibrary(outDir: string, variant: ShimVariant): string | undefined {
  const lib = join(outDir, LIBRARY[variant]);
  return existsSync(lib) ? lib : undefined;
}

/**
 * The shim for this MPI flavor, built with that flavor's mpicc when missing or older than its sources.
 * MPISCOPE_SHIM overrides it (a prebuilt library). Concurrent sessions share one build through a lock folder.
 */
export async function ensureShim(
  flavor: MpiFlavor,
  env: NodeJS.ProcessEnv = process.env,
  variant: ShimVariant = 'default',
): Promise<string> {
  const override = variant === 'memcheck' ? env.MPISCOPE_MEMCHECK_SHIM : env.MPISCOPE_SHIM;
  if (override !== undefined && override !== '') {
    if (!existsSync(override))
      throw new UsageError(
        `${variant === 'memcheck' ? 'MPISCOPE_MEMCHECK_SHIM' : 'MPISCOPE_SHIM'}=${override} does not exist; unset it or build the shim`,
      );
    return override;
  }
  const root = repoRoot();
  if (root === undefined)
    throw new UsageError(
      'the mpiscope checkout (native-shim/) was not found next to this program; reinstall mpiscope',
    );
  const shimDir = join(root, 'native-shim');
  const outDir = join(shimDir, 'build', flavor);
  const fresh = (): string | undefined => {
    const lib = builtLibrary(outDir, variant);
    return lib !== undefined && statSync(lib).mtimeMs >= newestSource(shimDir) ? lib : undefined;
  };
  const ready = fresh();
  if (ready !== undefined) return ready;
  // One lock for both variants: they share OUTDIR/gen, which build.sh regenerates.
  const lock = join(shimDir, 'build', `${flavor}.lock`);
  await acquire(lock);
  try {
    const again = fresh(); // another session may have built it while we waited
    if (again !== undefined) return again;
    const mpicc = findOnPath(`mpicc.${flavor}`) ?? findOnPath('mpicc');
    if (mpicc === undefined)
      throw new UsageError(
        `${FLAVOR_NAMES[flavor]}'s mpicc was not found; install its development package to build the mpiscope shim`,
      );
    if (!existsSync(join(shimDir, 'build.sh')))
      throw new UsageError('native-shim/build.sh is missing; the mpiscope checkout is incomplete');
    const log = await run(
      'bash',
      [join(shimDir, 'build.sh'), mpicc, outDir, ...(variant === 'memcheck' ? ['memcheck'] : [])],
      root,
      lock,
    );
    const lib = builtLibrary(outDir, variant);
    if (log.code !== 0 || lib === undefined) {
      const last = log.out.trim().split('\n').slice(-1)[0] ?? '';
      throw new UsageError(
        `building the mpiscope shim for ${FLAVOR_NAMES[flavor]} failed (${last}); run bash native-shim/build.sh ${mpicc} ${outDir}${variant === 'memcheck' ? ' memcheck' : ''} to see why`,
      );
    }
    return lib;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    let taken = false;
    try {
      mkdirSync(lock);
      taken = true;
    } catch {
      // held by another session (below)
    }
    if (taken) {
      try {
        writeFileSync(join(lock, 'pids'), `${process.pid}\n`);
      } catch {
        // Without its holders the lock goes stale by age only, as before they were written.
      }
      return;
    }
    if (existsSync(lock) && lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
    if (Date.now() > deadline)
      throw new UsageError(
        `waited too long for another mpiscope to build the shim; remove ${lock} if no build is running`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Whether a build lock was left behind: every process that holds it (the session that took it, and the build it
 * started, which outlives a session killed mid-build) is gone, or it is older than a build can take. A session
 * killed while building (Ctrl-C, a test's time limit) otherwise held every later session for minutes, each
 * failing after waiting its 180 s.
 */
export function lockIsStale(lock: string, now = Date.now()): boolean {
  let age: number;
  try {
    age = now - statSync(lock).mtimeMs;
  } catch {
    return false; // gone already
  }
  if (age > 300_000) return true;
  let pids: number[];
  try {
    pids = readFileSync(join(lock, 'pids'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  } catch {
    // Taken a moment ago and its holder not written yet; an older one without holders is from a version that
    // did not write them: the age rule above.
    return false;
  }
  return pids.length > 0 && pids.every((pid) => !alive(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  lock?: string,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    // The build holds the lock too: it goes on if this session is killed, and the lock with it.
    if (lock !== undefined && child.pid !== undefined) appendFileSync(join(lock, 'pids'), `${child.pid}\n`);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => resolve({ code: 127, out: e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/**
 * The memcheck runtime (native-shim/mcrt/): libmpiscope-mcrt.so and the libtsan.so link the compiler wrapper
 * puts first on the library path; built with the system's cc (no MPI in it) when missing or stale. Returns
 * its folder.
 */
export async function ensureMemcheckRuntime(): Promise<string> {
  const root = repoRoot();
  if (root === undefined)
    throw new UsageError(
      'the mpiscope checkout (native-shim/) was not found next to this program; reinstall mpiscope',
    );
  const outDir = join(root, 'native-shim', 'build', 'mcrt');
  const lock = join(root, 'native-shim', 'build', 'mcrt.lock');
  await acquire(lock);
  try {
    const log = await run('bash', [join(root, 'native-shim', 'mcrt', 'build.sh'), outDir], root, lock);
    if (log.code !== 0 || !existsSync(join(outDir, 'libmpiscope-mcrt.so'))) {
      const last = log.out.trim().split('\n').slice(-1)[0] ?? '';
      throw new UsageError(
        `building the mpiscope memcheck runtime failed (${last}); run bash native-shim/mcrt/build.sh ${outDir} to see why`,
      );
    }
    return outDir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
