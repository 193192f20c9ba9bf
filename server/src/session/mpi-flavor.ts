import { execFile } from 'node:child_process';

export type MpiFlavor = 'openmpi' | 'mpich';

export const FLAVOR_NAMES: Record<MpiFlavor, string> = { openmpi: 'Open MPI', mpich: 'MPICH' };

/** Run a command with a deadline; resolves with its combined output, or undefined when it could not run. */
export function capture(
  cmd: string,
  args: readonly string[],
  timeoutMs = 10_000,
): Promise<{ code: number; out: string } | undefined> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return resolve(undefined); // ENOENT, EACCES
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** The flavor of a launcher, from `mpirun --version` ("mpirun (Open MPI) 4.1.4" / "HYDRA build details"). */
export function flavorFromVersion(text: string): MpiFlavor | undefined {
  if (/Open MPI|OpenRTE/i.test(text)) return 'openmpi';
  if (/HYDRA|MPICH/i.test(text)) return 'mpich';
  return undefined;
}

/** The flavor a program is linked against, from `ldd` output or readelf NEEDED entries. */
export function flavorFromLibraries(text: string): MpiFlavor | undefined {
  if (/libmpich|\/mpich\//.test(text)) return 'mpich';
  if (/libmpi\.so\.40|libmpi\.so\.[2-9]\d|\/openmpi\/|libopen-rte|libopen-pal/.test(text)) return 'openmpi';
  // MPICH's ABI soname (libmpi.so.12) is also used by MPICH derivatives.
  if (/libmpi\.so\.12\b/.test(text)) return 'mpich';
  return undefined;
}

/** True when the text mentions any MPI library at all. */
export function linksMpi(text: string): boolean {
  return /\blib(mpi|mpich)[._a-z0-9-]*\.so/.test(text);
}
