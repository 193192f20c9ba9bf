import { constants } from 'node:os';
import type { EndHow } from '../engine/model/types';
import type { SiteKey } from './site-resolver';

/**
 * How one rank's stream ended, for the report: what the rank itself said (its END record, and for a signal
 * the crashing thread's stack), or that its connection dropped without a word (SIGKILL, the launcher killing
 * it, a machine gone), with the last MPI call that arrived from it.
 */
export interface RankEnding {
  readonly rank: number;
  /** 'never-connected': no hello arrived from this rank. */
  readonly how: EndHow | 'never-connected';
  /** Signal number (how 'signal'), MPI_Abort's errorcode or the fatal error's code (how 'abort'). */
  readonly code?: number;
  /** The signal's name (SIGSEGV…) when how is 'signal'. */
  readonly signal?: string;
  /** The faulting data address of SIGSEGV/SIGBUS (what the program touched), when the shim had it. */
  readonly address?: number;
  /** The rank ended after mpiscope began to end the job (after a deadlock, at the user's Ctrl-C). */
  readonly endedByMpiscope?: boolean;
  /** A signal that struck inside the last MPI call (lastCall), not after it returned. */
  readonly inCall?: true;
  /** The last MPI call that arrived from the rank ("MPI_Barrier"), '' when none did. */
  readonly lastCall: string;
  /**
   * Where the rank ended: for a signal, the first frame of the crashing thread in the program's own code (the
   * faulting line, or the line that called abort / threw); otherwise the last MPI call's site. "" when unknown.
   */
  readonly file: string;
  readonly line: number;
  readonly function: string;
}

/** A rank's `crash` message (native-shim/src/msc_control.c): the crashing thread's stack, innermost first. */
export interface CrashReport {
  readonly signal: number;
  readonly address: number;
  readonly frames: readonly SiteKey[];
  /** The thread died inside an MPI call (the shim's current call), not between calls. */
  readonly inCall?: true;
}

/** Number → name; the first name wins where two share a number (SIGABRT before its alias SIGIOT). */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(constants.signals))
  if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);

export function signalName(n: number): string {
  return SIGNAL_NAMES.get(n) ?? `signal ${n}`;
}

/**
 * Frames in system libraries (libc's raise and abort, the C++ runtime's terminate, the MPI library) say how the
 * rank died, not where in the program: the report names the first frame outside them. A library of the
 * user's own, elsewhere than the system's directories, counts as the program's.
 */
export function isSystemModule(path: string): boolean {
  return /^\/(usr\/)?lib(32|64|x32)?\//.test(path) || /\/libmpiscope\.so$/.test(path);
}

/**
 * One line for the human report: "rank 1 died of SIGSEGV (address 0x0) at app.c:12 (main), after MPI_Send" —
 * "inside MPI_Send" when the signal struck in the call.
 */
export function describeEnding(e: RankEnding, where: string): string {
  const after =
    e.lastCall === ''
      ? 'before any MPI call arrived'
      : `${e.how === 'signal' && e.inCall === true ? 'inside' : 'after'} ${e.lastCall}`;
  switch (e.how) {
    case 'finalized':
      return `rank ${e.rank} finalized`;
    case 'exit-without-finalize':
      return `rank ${e.rank} exited without MPI_Finalize${where ? ` (last MPI call at ${where})` : ''}, ${after}`;
    case 'abort':
      return `rank ${e.rank} aborted (errorcode ${e.code ?? 0})${where ? ` at ${where}` : ''}, ${after}`;
    case 'signal': {
      const addr = e.address !== undefined ? ` (address 0x${e.address.toString(16)})` : '';
      return `rank ${e.rank} died of ${e.signal ?? 'a signal'}${addr}${where ? ` at ${where}` : ''}, ${after}`;
    }
    case 'disconnected':
      return `rank ${e.rank} vanished: its connection dropped without a word from the shim (SIGKILL, which launchers send to the other ranks when one fails; or its host went away), ${after}${where ? ` at ${where}` : ''}`;
    case 'never-connected':
      return `rank ${e.rank} never connected`;
  }
}
