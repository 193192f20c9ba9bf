/**
 * Buffers of pending nonblocking operations: a new operation that writes memory a pending one reads or
 * writes (or reads memory a pending receive writes) is a buffer-overlap. Two pending sends reading one
 * buffer are legal. Spans are the true extent of count × datatype from the shim's DTYPE records; when they
 * meet and a type has gaps (a column of a matrix, a resized element), the bytes each one touches decide,
 * from the type's layout (its blocks, from the shim). A type with gaps and no known layout decides nothing.
 */
import type { DtypeInfo } from '../model/datatypes';
import { commonBytes } from '../model/type-bytes';
import type { CheckContext } from '../model/check-context';
import type { P2pOp } from '../model/ops';
import type { RankTrack } from '../model/rank-track';
import type { ReqId } from '../model/request-pool';
import { overlapError } from './overlap-finding';
import type { RecvBufferReads } from './recv-buffer-read';
import type { RecvOverlaps } from './recv-overlap';

/**
 * The bytes an operation's buffer spans, [from, to) of count × type at buf: `spanStart` is NaN when unknown, empty,
 * MPI_IN_PLACE (-1) or NULL, and `spanEnd` is the end of a known start. Two numbers, not a tuple: the span of a
 * pending request is two columns of its row (RequestPool.spanLo/spanHi), and the span of a blocking operation is
 * only needed while it is posted; a tuple was an array and its backing store per message.
 */
export function spanStart(buf: number, count: number, t: DtypeInfo | undefined): number {
  if (t === undefined || buf <= 0 || count <= 0 || t.size === 0) return NaN;
  return buf + t.trueLb;
}

export function spanEnd(from: number, count: number, t: DtypeInfo): number {
  return from + (count - 1) * t.extent + t.trueExtent;
}

/** Bytes both operations touch (their spans start at `aFrom`, `bFrom`): exact from the types' layouts where the spans meet; 0 when unknown. */
function sharedBytes(a: P2pOp, aFrom: number, b: P2pOp, bFrom: number, lo: number, hi: number): number {
  const ta = a.dtype;
  const tb = b.dtype;
  if (ta === undefined || tb === undefined) return 0;
  return (
    commonBytes(
      { base: aFrom, count: a.count, dtype: ta },
      { base: bFrom, count: b.count, dtype: tb },
      lo,
      hi,
    ) ?? 0
  );
}

/** The pending requests a query found (reused: one array for every check, emptied after each). */
const found: ReqId[] = [];

/**
 * `op` was posted with its buffer spanning [from, to). `reads`: where a blocking send's read of a pending
 * receive's buffer is judged (with happened-before, recv-buffer-read.ts); `recvs`: where a receive into a pending
 * receive's buffer is judged once both have their messages (recv-overlap.ts); without them, reported at once.
 */
export function checkOverlap(
  st: CheckContext,
  t: RankTrack,
  op: P2pOp,
  from: number,
  to: number,
  reads?: RecvBufferReads,
  recvs?: RecvOverlaps,
): void {
  // After a loss a completed request may still look pending: no overlap with it is certain.
  if (t.lost > 0) return;
  const writes = op.kind !== 'send';
  // Pending for the program until its Wait/Test: even a request MPI completed at once (earlyDone). The rank's
  // pending buffers are indexed by address (RankTrack.pendingReads / pendingWrites): only those that meet this
  // span are looked at, not every pending request (this runs for every send and receive a rank posts).
  // Cleared only when not empty: setting an array's length calls a builtin even when it changes nothing (0.9% of
  // the engine's steady-state profile, two per send and receive, when every call cleared it twice).
  if (found.length !== 0) found.length = 0;
  t.pendingWrites.meeting(from, to, found);
  if (writes) t.pendingReads.meeting(from, to, found);
  if (found.length === 0) return;
  // The first in the order of the walk this replaced (RequestPool.stamp), so that the same pair is reported.
  if (found.length > 1) found.sort((a, b) => t.reqs.stamp(a) - t.reqs.stamp(b));
  for (const req of found) if (overlapWith(st, t, op, from, to, writes, req, reads, recvs)) break;
  found.length = 0;
}

/** Reports the overlap of `op` with pending request `req`, if any; true when the search stops there. */
function overlapWith(
  st: CheckContext,
  t: RankTrack,
  op: P2pOp,
  from: number,
  to: number,
  writes: boolean,
  req: ReqId,
  reads: RecvBufferReads | undefined,
  recvs: RecvOverlaps | undefined,
): boolean {
  const p = t.reqs;
  const other = p.op(req);
  const a = p.spanLo(req);
  if (other === undefined || a !== a || (p.persistent(req) && !p.active(req))) return false;
  if (!writes && other.kind === 'send') return false;
  const b = p.spanHi(req);
  if (from >= b || a >= to) return false;
  const lo = Math.max(a, from);
  const hi = Math.min(b, to);
  const bytes = sharedBytes(op, from, other, a, lo, hi);
  if (bytes === 0) return false;
  // A blocking send reading a pending receive's buffer: whether timing decides is known once the receive's match is.
  if (reads !== undefined && op.kind === 'send' && op.request === 0 && other.kind === 'recv') {
    reads.overlap(op, other, bytes);
    return true;
  }
  // Two receives into the same bytes: whether timing decides is known once both have their messages.
  if (recvs !== undefined && op.kind === 'recv' && other.kind === 'recv') {
    recvs.overlap(op, other, bytes, from, a);
    return true;
  }
  const seen = st.memory('buffer-overlap', () => new Set<string>());
  const key = `${t.rank}:${other.site}:${op.site}`;
  if (seen.has(key)) return true;
  seen.add(key);
  st.report(overlapError(op, other, bytes));
  return true;
}
