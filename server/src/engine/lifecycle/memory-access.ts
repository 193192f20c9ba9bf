/**
 * Findings of the memcheck mode: loads and stores of memory a pending operation owns, found by the shim's
 * memcheck build (native-shim/src/msc_memcheck.c) when the program's instrumented access hit an owned interval.
 * The record's site is the access (its return address), its function the owning operation's, and its values
 * [owner's call site, byte offset in the owned buffer, size | store << 32] (rma-origin-pending: the record is the
 * one-sided call's, the owner a pending request of the rank; rma-origin-overlap: the record is the one-sided call's, the
 * owner another pending one-sided access of the rank, whose function is the record's param). Each becomes a
 * local-concurrency finding at the access's line and the owner's call, merged across ranks like other per-rank
 * defects (held-findings.ts).
 *
 * window-local-access records are not findings by themselves: they are the rank's own accesses to its window
 * memory in an epoch, handed to the one-sided tracker, which compares them with the epoch's remote accesses.
 */
import type { CheckContext } from '../model/check-context';
import type { RawLocation, ShimFindingEvent } from '../model/types';
import { layouts } from '../../protocol/spec';

export const MEMORY_CHECKS: ReadonlySet<string> = new Set([
  'pending-recv-access',
  'pending-send-store',
  'rma-origin-access',
  'rma-origin-pending',
  'rma-origin-overlap',
]);

const TWO32 = 2 ** 32;
const TWO31 = 2 ** 31;

/** A local access of window memory in an epoch, from a window-local-access record. */
export interface LocalWindowAccess {
  readonly rank: number;
  readonly win: number;
  readonly offset: number;
  readonly length: number;
  readonly store: boolean;
  /** Atomic loads or stores (C11 atomics, __atomic builtins): they never race with each other. */
  readonly atomic: boolean;
  /** Fence epochs: the fences before it (1 = after the first); exposure epochs: -(posts so far). */
  readonly epoch: number;
  /** The access's return address. */
  readonly site: number;
  /** Shared windows: the rank (in the window's communicator) whose segment it touched, when not its own. */
  readonly segment?: number;
}

export function localWindowAccess(e: ShimFindingEvent): LocalWindowAccess {
  const [win = 0, offset = 0, info = 0] = e.values;
  const high = Math.floor(info / TWO32); // store bit, then the epoch (arithmetic: the epoch may be negative)
  return {
    rank: e.rank,
    win,
    offset,
    // The length's top bit (31) says the accesses were atomic.
    length: (info - high * TWO32) % TWO31,
    atomic: info - high * TWO32 >= TWO31,
    store: (high & 1) === 1,
    epoch: Math.floor(high / 2),
    site: e.site,
    ...(e.param >= 0 ? { segment: e.param } : {}),
  };
}

export function memoryFinding(st: CheckContext, e: ShimFindingEvent): void {
  const [ownerSite = 0, offset = 0, info = 0] = e.values;
  const store = Math.floor(info / TWO32) % 2 === 1;
  const size = info % TWO32;
  const overlap = e.check === 'rma-origin-overlap';
  const pending = overlap || e.check === 'rma-origin-pending';
  // rma-origin-pending and -overlap are found at the one-sided call (e.fn); the owner is a pending request of the
  // rank, or (overlap) a pending one-sided access whose function the param names.
  let ownerName = e.fn.name;
  if (overlap) {
    ownerName = layouts[e.param]?.spec.name ?? 'one-sided access';
  } else if (pending) {
    ownerName = 'point-to-point operation';
    const t = st.track(e.rank);
    for (const r of t.requests.values()) if (t.reqs.site(r) === ownerSite) ownerName = t.reqs.fn(r).name;
  }
  const access = store ? 'store' : 'load';
  // The subject is every rank the held finding merges (held-findings.ts): "Rank 0 reads", "Ranks 0, 1 read".
  let what: (ranks: readonly number[]) => string;
  let fix: string;
  let accessLoc: RawLocation;
  if (overlap) {
    what = () =>
      `${e.fn.name}'s buffer overlaps the buffer of the pending ${ownerName} (${size} bytes from byte ${offset} of it), and one of the two one-sided accesses writes it before the epoch is closed or flushed: which data the memory holds, or which one the other access sends, is undefined`;
    fix = `Give each one-sided access in the epoch its own buffer, or complete the ${ownerName} first (MPI_Win_flush_local, MPI_Win_flush or the epoch's closing call, or the Wait of an R* request).`;
    accessLoc = {
      rank: e.rank,
      site: e.site,
      call: e.fn.name,
      detail: `${e.fn.name} on memory ${ownerName} still owns`,
    };
  } else if (pending) {
    what = () =>
      `${e.fn.name}'s origin buffer overlaps the buffer of a pending ${ownerName} (${size} bytes from byte ${offset} of it): the one-sided access and the point-to-point operation use the same memory at once, and which data each sees is undefined`;
    fix = `Complete the ${ownerName} (MPI_Wait) before the ${e.fn.name}, or give them separate buffers.`;
    accessLoc = {
      rank: e.rank,
      site: e.site,
      call: e.fn.name,
      detail: `${e.fn.name} on memory ${ownerName} still owns`,
    };
  } else {
    const buffer =
      e.check === 'pending-recv-access'
        ? `the receive buffer of a pending ${ownerName}`
        : e.check === 'pending-send-store'
          ? `the buffer of a pending ${ownerName}`
          : `the origin buffer of ${ownerName}`;
    const until =
      e.check === 'rma-origin-access'
        ? 'before the epoch was closed or flushed'
        : e.check === 'pending-recv-access'
          ? 'before the receive completed'
          : 'before the send completed';
    const effect =
      e.check === 'pending-recv-access'
        ? store
          ? 'the message may overwrite the stored value or not'
          : 'the value read may be the old data or the message'
        : e.check === 'pending-send-store'
          ? 'the message may carry the old value or the new one'
          : store
            ? 'the target may receive the old value or the new one'
            : 'the value read may be the old data or what MPI_Get brings';
    what = (ranks) => {
      const one = ranks.length <= 1;
      const verb = store ? (one ? 'stores into' : 'store into') : one ? 'reads' : 'read';
      return `${one ? 'Rank' : 'Ranks'} ${ranks.join(', ')} ${verb} ${buffer} (byte ${offset}, ${size} bytes) ${until}: ${effect}`;
    };
    fix =
      e.check === 'rma-origin-access'
        ? 'Touch it only after the closing MPI_Win_fence, MPI_Win_unlock or MPI_Win_flush (or the Wait of an R* request).'
        : `Touch it only after MPI_Wait/MPI_Test completed the ${ownerName}, or use a second buffer.`;
    accessLoc = { rank: e.rank, site: e.site, call: access, detail: `${access} ${until}` };
  }
  const locations: RawLocation[] = [
    accessLoc,
    { rank: e.rank, site: ownerSite, call: ownerName, detail: `${ownerName} still owns this memory` },
  ];
  st.held.add(`local-concurrency|${e.check}|${access}`, e.rank, locations, (ranks, locs) => ({
    kind: 'local-concurrency',
    severity: 'error',
    message: `${what(ranks)}. ${fix}`,
    locations: [...locs],
  }));
}
