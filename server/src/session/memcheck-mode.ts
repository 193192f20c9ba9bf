/**
 * The memcheck mode: on for a program built with `mpiscope cc/cxx/fc` (it, or a library it loads, needs the
 * memcheck runtime libmpiscope-mcrt.so), and required with `mpiscope run --memcheck`. The mode runs the job
 * with the memcheck build of the shim, which publishes the memory pending operations own to that runtime.
 */
import { capture } from './mpi-flavor';
import { UsageError } from './session-api';

const RUNTIME = 'libmpiscope-mcrt.so';

/** What ldd says about the memcheck runtime: needed and found, needed but missing, or not needed. */
export function runtimeIn(lddText: string): 'found' | 'missing' | 'absent' {
  const line = lddText.split('\n').find((l) => l.includes(RUNTIME));
  if (line === undefined) return 'absent';
  return /=>\s*not found/.test(line) ? 'missing' : 'found';
}

/**
 * Whether to run in the memcheck mode. asked: true (--memcheck), or undefined (decided by the program).
 * lddText: what `ldd PROGRAM` printed, when the caller ran it already (the launch plan did); else ldd runs here.
 * Throws a UsageError, before anything starts, when the mode cannot work.
 */
export async function memcheckMode(
  program: string,
  asked: boolean | undefined,
  lddText?: string,
): Promise<boolean> {
  const ldd = lddText !== undefined ? { code: 0, out: lddText } : await capture('ldd', [program]);
  const state = ldd?.code === 0 ? runtimeIn(ldd.out) : 'absent';
  if (state === 'missing')
    throw new UsageError(
      `${program} was built with mpiscope cc/cxx/fc but its runtime ${RUNTIME} is not found (the mpiscope checkout moved or its native-shim/build was removed); build the program again with mpiscope cc`,
    );
  if (asked === true && state === 'absent')
    throw new UsageError(
      `--memcheck needs a program built with mpiscope's compiler wrappers, and ${program} was not: rebuild it with CC="mpiscope cc" (or mpiscope cxx / mpiscope fc), then run it again`,
    );
  return state === 'found';
}
