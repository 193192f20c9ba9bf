/**
 * One-sided accesses and when two of them conflict: the bytes each touches in the target's window memory, and
 * the pairs MPI allows in one epoch (two reads; two accumulates with the same op, or MPI_NO_OP, on the same
 * basic type, element on element). The bytes of a target type with gaps come from its layout (type-bytes.ts, from the shim); a type
 * whose layout is unknown is known only as a span: such an access is said to overlap another only when that is
 * certain (the same layout at the same place, or a contiguous access covering its whole span).
 */
import { uniformBasic, type DtypeInfo } from '../model/datatypes';
import { commonBytes } from '../model/type-bytes';
import type { FunctionSpec } from '../model/types';
import type { WinInfo } from './windows';

/** put writes, get reads; acc is the accumulate family (atomic per basic element). */
export type AccessKind = 'put' | 'get' | 'acc';

export interface Access {
  /** World ranks. */
  readonly origin: number;
  readonly target: number;
  readonly win: WinInfo;
  readonly fn: FunctionSpec;
  readonly site: number;
  /** The origin's n-th recorded access: a deterministic order whatever the interleaving of ranks. */
  readonly order: number;
  readonly kind: AccessKind;
  /** Accumulates: the op's name ('MPI_SUM', 'MPI_NO_OP', 'compare-and-swap'), undefined when unknown. */
  readonly op: string | undefined;
  readonly disp: number;
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
  /** The epoch instance: 'fence:K' (shared by every rank), or a passive/PSCW epoch of the origin. */
  readonly epoch: string;
  readonly passive: boolean;
  /** Made under an exclusive lock of its target. */
  readonly exclusive: boolean;
  /** Flushes of the target by the origin before this access, in the epoch. */
  readonly flushes: number;
  /** Passive target: the origin's replay position when it made the access, and when a flush/unlock completed it. */
  readonly pos: number;
  done?: number;
  /**
   * A request-based get (MPI_Rget) whose request the origin completed: the origin's count of accesses (`order`)
   * at that moment. Its data had arrived, so the origin's accesses of a higher order come after the read.
   */
  readDone?: number;
  /**
   * A load or store of the target's own window memory by the target itself (memcheck mode): the bytes, from the
   * window's start, and the access's kind ('put' a store, 'get' a load).
   */
  readonly local?: {
    readonly lo: number;
    readonly hi: number;
    readonly store: boolean;
    /** Atomic loads or stores: kind 'acc' (MPI_NO_OP for loads, MPI_REPLACE for stores), never racing each other. */
    readonly atomic: boolean;
  };
}

export interface Bytes {
  readonly lo: number;
  readonly hi: number;
  /** Every byte of [lo, hi) is accessed. */
  readonly contiguous: boolean;
}

/** The bytes at the target, or undefined when unknown (datatype or the target's displacement unit not seen). */
export function bytesOf(a: Access): Bytes | undefined {
  if (a.local !== undefined) return { lo: a.local.lo, hi: a.local.hi, contiguous: true };
  const t = a.dtype;
  const unit = a.win.dispUnit.get(a.target);
  if (t === undefined || unit === undefined || a.count <= 0 || t.size <= 0) return undefined;
  const lo = a.disp * unit + t.trueLb;
  const hi = lo + (a.count - 1) * t.extent + t.trueExtent;
  return { lo, hi, contiguous: t.size * a.count === hi - lo };
}

function sameLayout(a: Access, b: Access): boolean {
  const x = a.dtype;
  const y = b.dtype;
  return (
    x !== undefined &&
    y !== undefined &&
    a.count === b.count &&
    x.size === y.size &&
    x.extent === y.extent &&
    x.trueLb === y.trueLb &&
    x.trueExtent === y.trueExtent &&
    x.sig.key === y.sig.key
  );
}

/** Do the two accesses certainly touch a common byte? */
export function overlaps(a: Access, x: Bytes, b: Access, y: Bytes): boolean {
  if (x.lo >= y.hi || y.lo >= x.hi) return false;
  if (x.contiguous && y.contiguous) return true;
  // A contiguous access covering the other's whole span touches all of its bytes.
  if (x.contiguous && x.lo <= y.lo && y.hi <= x.hi) return true;
  if (y.contiguous && y.lo <= x.lo && x.hi <= y.hi) return true;
  if (x.lo === y.lo && sameLayout(a, b)) return true;
  // Types with gaps: the bytes each touches, where the layouts are known.
  if (a.dtype === undefined || b.dtype === undefined) return false;
  const lo = Math.max(x.lo, y.lo);
  const hi = Math.min(x.hi, y.hi);
  const shared = commonBytes(
    { base: x.lo, count: a.count, dtype: a.dtype },
    { base: y.lo, count: b.count, dtype: b.dtype },
    lo,
    hi,
  );
  return shared !== undefined && shared > 0;
}

function writes(a: Access): boolean {
  return a.kind === 'put' || (a.kind === 'acc' && a.op !== 'MPI_NO_OP');
}

/** Would these two accesses to common bytes, if concurrent, be a race? */
export function conflicting(a: Access, b: Access): boolean {
  if (!writes(a) && !writes(b)) return false;
  if (a.kind === 'acc' && b.kind === 'acc') {
    // Unknown op or type: not judged (silence rather than a false alarm).
    if (a.op === undefined || b.op === undefined || a.dtype === undefined || b.dtype === undefined)
      return false;
    const ta = uniformBasic(a.dtype);
    const tb = uniformBasic(b.dtype);
    if (ta === undefined || tb === undefined) return false;
    return ta !== tb || (a.op !== b.op && a.op !== 'MPI_NO_OP' && b.op !== 'MPI_NO_OP') || misaligned(a, b);
  }
  return true;
}

/**
 * Two accumulates of one origin are ordered by MPI (accumulate_ordering, by default every order) "on a per-datatype
 * granularity" (MPI-4.1 §12.7.2): element by element of one basic type. Two of different basic types (a float
 * and an int over the same bytes) have no element in common: MPI orders nothing between them, and they race like
 * two origins' would. One type at misaligned offsets is left ordered (the text orders "overlapping" locations too).
 * Unknown type: ordered (silence rather than a false alarm).
 */
export function accumulatesOrdered(a: Access, b: Access): boolean {
  if (a.kind !== 'acc' || b.kind !== 'acc') return false;
  if (a.dtype === undefined || b.dtype === undefined) return true;
  const ta = uniformBasic(a.dtype);
  const tb = uniformBasic(b.dtype);
  if (ta === undefined || tb === undefined) return true;
  return ta === tb;
}

/**
 * A name shared by accesses that never conflict with each other (conflicting() is false for any two of them), or
 * undefined when the access may conflict with one like it (a Put, a store). Reads ('r': Gets, loads, MPI_NO_OP
 * accumulates); accumulates whose op or type is unknown ('u', never judged against another accumulate); and
 * accumulates of one op on one basic type whose elements start at the same offset modulo the element size (the
 * contiguous ones; 'n' for types with gaps, never misaligned()). The race search compares an access with the
 * accesses of the other groups only: the accumulates of one op into one place, however many, cost nothing.
 */
export function compatibleGroup(a: Access, x: Bytes): string | undefined {
  if (!writes(a)) return 'r';
  if (a.kind !== 'acc') return undefined;
  if (a.op === undefined || a.dtype === undefined) return 'u';
  const t = uniformBasic(a.dtype);
  if (t === undefined) return 'u';
  if (!x.contiguous) return `${a.op}:${t}:n`;
  const e = elementSize(a.dtype);
  if (e === undefined) return undefined;
  return `${a.op}:${t}:${e > 1 ? (((x.lo % e) + e) % e).toString() : '0'}`;
}

/** The size of one basic element of a type made of one basic type, or undefined. */
function elementSize(t: DtypeInfo): number | undefined {
  let n = 0;
  for (const [, k] of t.signature) n += k;
  return n > 0 && t.size % n === 0 ? t.size / n : undefined;
}

/**
 * Accumulates of one basic type are atomic per element: two whose elements start at different offsets modulo the
 * element size (an int at byte 0 and one at byte 1 of a window with displacement unit 1) share bytes but no
 * element, and MPI guarantees nothing for them. Judged for contiguous accesses only, whose elements are evenly
 * spaced from their first byte.
 */
function misaligned(a: Access, b: Access): boolean {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x === undefined || y === undefined || !x.contiguous || !y.contiguous || a.dtype === undefined)
    return false;
  const e = elementSize(a.dtype);
  return e !== undefined && e > 1 && (x.lo - y.lo) % e !== 0;
}

/** What the access does, for messages: "writes", "reads", "accumulates (MPI_SUM) into". */
export function verb(a: Access): string {
  if (a.local !== undefined)
    return `${a.local.atomic ? 'atomically ' : ''}${a.local.store ? 'stores into' : 'loads'}`;
  if (a.kind === 'put') return 'writes';
  if (a.kind === 'get') return 'reads';
  if (a.op === 'compare-and-swap') return 'compares and swaps';
  return a.op === 'MPI_NO_OP' ? 'atomically reads' : `accumulates (${a.op ?? 'op'}) into`;
}
