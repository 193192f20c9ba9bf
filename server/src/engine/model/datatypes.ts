/**
 * Datatypes and ops per rank, from the shim's DTYPE and OP records: sizes and type signatures (run-length
 * lists of basic types) for the type and count checks, predefined op ids for the reduction checks.
 */
import api from '../../../../native-shim/spec/mpi-api.json';
import { datatypeAt } from '../../protocol/build-event';
import type { RecordColumns } from '../../protocol/columns';
import type { DatatypeEvent, OpEvent } from './types';
import { doubleArray, objectArray } from './elements';

export interface DtypeInfo {
  readonly size: number;
  readonly extent: number;
  readonly trueLb: number;
  readonly trueExtent: number;
  readonly signature: readonly (readonly [number, number])[];
  /** The memory one element touches, as (offset from the true lb, length) blocks, for a type with gaps. */
  readonly layout: readonly (readonly [number, number])[] | undefined;
  /** Handle, for messages. */
  readonly handle: number;
  /** Name when the type is a basic type (one pair, repeat 1). */
  readonly name: string | undefined;
  /**
   * Facts about the signature computed once, when the DTYPE record arrives, so that comparing two
   * messages' signatures does not walk them: see `signatureMismatch`.
   */
  readonly sig: SignatureFacts;
}

export interface SignatureFacts {
  /** The type matches any signature: it is only MPI_PACKED, or only MPI_BYTE. */
  readonly anything: boolean;
  /** The one basic type (up to LP64 aliases) the type is made of, or -1 when it mixes types. */
  readonly uniform: number;
  /** Equal keys, equal signatures (the same runs of the same basic types). */
  readonly key: string;
}

export const basicTypeNames: readonly string[] = api.basicTypes;
export const opNames: readonly string[] = api.ops;

const BYTE = basicTypeNames.indexOf('MPI_BYTE');
const PACKED = basicTypeNames.indexOf('MPI_PACKED');

/**
 * Basic types that are the same representation under another name on LP64 Linux (the platforms the shim
 * builds on): MPI_INT32_T is MPI_INT… Receiving one as the other is not a bug a user wants to hear about.
 * The same holds within Fortran for the size-specific types whose kind is the default one with gfortran
 * (MPI_REAL8 is DOUBLE PRECISION, MPI_INTEGER4 is INTEGER). A Fortran type and a C type never match, even of
 * one size (MPI_INTEGER and MPI_INT): MPI-3.1 §17.2.10 (Interlanguage Communication) keeps the type
 * matching rules across languages, and a library that lets them match makes code that "is not portable".
 */
const ALIASES: Readonly<Record<string, string>> = {
  MPI_INT8_T: 'MPI_SIGNED_CHAR',
  MPI_UINT8_T: 'MPI_UNSIGNED_CHAR',
  MPI_INT16_T: 'MPI_SHORT',
  MPI_UINT16_T: 'MPI_UNSIGNED_SHORT',
  MPI_INT32_T: 'MPI_INT',
  MPI_UINT32_T: 'MPI_UNSIGNED',
  MPI_INT64_T: 'MPI_LONG',
  MPI_LONG_LONG: 'MPI_LONG',
  MPI_UINT64_T: 'MPI_UNSIGNED_LONG',
  MPI_UNSIGNED_LONG_LONG: 'MPI_UNSIGNED_LONG',
  MPI_AINT: 'MPI_LONG',
  MPI_OFFSET: 'MPI_LONG',
  MPI_COUNT: 'MPI_LONG',
  MPI_C_BOOL: 'MPI_UNSIGNED_CHAR',
  MPI_INTEGER4: 'MPI_INTEGER',
  MPI_REAL4: 'MPI_REAL',
  MPI_REAL8: 'MPI_DOUBLE_PRECISION',
  MPI_COMPLEX8: 'MPI_COMPLEX',
  MPI_COMPLEX16: 'MPI_DOUBLE_COMPLEX',
  MPI_LOGICAL4: 'MPI_LOGICAL',
};
const canonical: readonly number[] = basicTypeNames.map((n) => {
  const alias = ALIASES[n];
  return alias === undefined ? basicTypeNames.indexOf(n) : basicTypeNames.indexOf(alias);
});

/** A DTYPE row kept by Datatypes.onDatatypeRow: its first `n` words (in `words`), its flags, the type made. */
interface KeptRow {
  readonly words: Float64Array;
  readonly n: number;
  readonly flags: number;
  readonly info: DtypeInfo;
}

/** How many of a rank's last DTYPE rows are kept for a type made again (see onDatatypeRow). */
const DTYPE_ROWS = 4;

export class Datatypes {
  private readonly types = new Map<number, Map<number, DtypeInfo>>();
  private readonly ops = new Map<number, Map<number, number>>();
  /**
   * Each rank's last lookup (handle and answer), by rank: every send and receive asks for its datatype, and a
   * rank mostly sends one type after another (two Map lookups per operation before). NaN: none.
   */
  private readonly lastHandle: number[] = doubleArray();
  private readonly lastInfo: (DtypeInfo | undefined)[] = objectArray();

  onDatatype(e: DatatypeEvent): DtypeInfo {
    const [first] = e.signature;
    const name =
      e.signature.length === 1 && first !== undefined && first[1] === 1
        ? basicTypeNames[first[0]]
        : undefined;
    return this.define(e.rank, {
      sig: signatureFacts(e.signature),
      size: e.size,
      extent: e.extent,
      trueLb: e.trueLb,
      trueExtent: e.trueExtent,
      signature: e.signature,
      layout: e.layout,
      handle: e.datatype,
      name,
    });
  }

  /**
   * Each rank's last DTYPE_ROWS DTYPE rows: their words and the types made from them. A program that makes the same
   * derived types again and again (BLACS builds, commits and frees a vector type per message: a third of the
   * records of a ScaLAPACK run, a few shapes in turn) sends the same words but the handle; such a row shares that
   * type's signature, layout and facts (never changed once made), instead of the event, the arrays of pairs and
   * the facts made for each (~0.6 kB per DTYPE row, the most bytes `mpiscope report` of such a run allocated).
   */
  private readonly recentRows: (KeptRow[] | undefined)[] = objectArray();

  /** A DTYPE row of the columns (the engine's path; `onDatatype` takes the event form). */
  onDatatypeRow(cols: RecordColumns, row: number): void {
    const rank = cols.rank[row] as number;
    const n = cols.wordCount[row] as number;
    const base = cols.wordStart[row] as number;
    const flags = cols.flags[row] as number;
    const w = cols.words;
    while (this.recentRows.length <= rank) this.recentRows.push(undefined);
    let kept = this.recentRows[rank];
    if (kept === undefined) this.recentRows[rank] = kept = [];
    for (let k = 0; k < kept.length; k++) {
      const r = kept[k] as KeptRow;
      if (r.n !== n || r.flags !== flags || !sameButHandle(r.words, w, base, n)) continue;
      const t = r.info;
      this.define(rank, {
        sig: t.sig,
        size: t.size,
        extent: t.extent,
        trueLb: t.trueLb,
        trueExtent: t.trueExtent,
        signature: t.signature,
        layout: t.layout,
        handle: w[base] as number,
        name: t.name,
      });
      return;
    }
    const info = this.onDatatype(datatypeAt(cols, row));
    // The oldest of a full list makes room (its words array is reused when long enough).
    const old = kept.length < DTYPE_ROWS ? undefined : kept.shift();
    const words = old !== undefined && old.words.length >= n ? old.words : new Float64Array(Math.max(n, 16));
    for (let i = 0; i < n; i++) words[i] = w[base + i] as number;
    kept.push({ words, n, flags, info });
  }

  private define(rank: number, info: DtypeInfo): DtypeInfo {
    let m = this.types.get(rank);
    if (m === undefined) this.types.set(rank, (m = new Map<number, DtypeInfo>()));
    // The handle may name a new type now (MPI reuses freed handles): the rank's last answer may be stale.
    if (rank < this.lastHandle.length) this.lastHandle[rank] = NaN;
    m.set(info.handle, info);
    return info;
  }

  onOp(e: OpEvent): void {
    let m = this.ops.get(e.rank);
    if (m === undefined) this.ops.set(e.rank, (m = new Map<number, number>()));
    m.set(e.op, e.predefined);
  }

  type(rank: number, handle: number): DtypeInfo | undefined {
    if (this.lastHandle[rank] === handle) return this.lastInfo[rank];
    const info = this.types.get(rank)?.get(handle);
    while (this.lastHandle.length <= rank) {
      this.lastHandle.push(NaN);
      this.lastInfo.push(undefined);
    }
    this.lastHandle[rank] = handle;
    this.lastInfo[rank] = info;
    return info;
  }

  /** Predefined op id (index into mpi-api.json ops), -1 for user ops, undefined when unknown. */
  op(rank: number, handle: number): number | undefined {
    return this.ops.get(rank)?.get(handle);
  }
}

/** "8 × MPI_INT" / "2 × type 0x5a (24 bytes)" */
export function describeData(count: number, t: DtypeInfo | undefined): string {
  if (t === undefined) return `${count} elements`;
  return `${count} × ${t.name ?? `derived type (${t.size} bytes)`}`;
}

/** The one basic type (up to LP64 aliases) a datatype is made of, or undefined when it mixes types. */
export function uniformBasic(t: DtypeInfo): number | undefined {
  return t.sig.uniform < 0 ? undefined : t.sig.uniform;
}

/**
 * Whether the words of a DTYPE row equal those kept from an earlier one, but the handle (word 0) and the committed
 * flag (word 6), which the type made from them does not keep (records.json DTYPE).
 */
function sameButHandle(kept: Float64Array, w: Float64Array, base: number, n: number): boolean {
  for (let i = 1; i < n; i++) if (i !== 6 && kept[i] !== w[base + i]) return false;
  return true;
}

/** By index (a destructuring callback per run made an iterator per element). */
function onlyOf(sig: readonly (readonly [number, number])[], id: number): boolean {
  if (sig.length === 0) return false;
  for (let i = 0; i < sig.length; i++) if ((sig[i] as readonly [number, number])[0] !== id) return false;
  return true;
}

function allCanonical(sig: readonly (readonly [number, number])[], id: number): boolean {
  for (let i = 0; i < sig.length; i++)
    if (canonical[(sig[i] as readonly [number, number])[0]] !== id) return false;
  return true;
}

/**
 * The key is built when first read: only a comparison of two mixed signatures reads it (signatureMismatch, and
 * rma-conflict's sameLayout), while every DTYPE record made one — a string per derived type, with a string per run
 * joined, ~2.5% of `mpiscope report` of a ScaLAPACK run whose BLACS makes and frees a type per message.
 */
class Facts implements SignatureFacts {
  private built: string | undefined = undefined;

  constructor(
    private readonly sig: readonly (readonly [number, number])[],
    readonly anything: boolean,
    readonly uniform: number,
  ) {}

  get key(): string {
    return (this.built ??= this.sig.map(([b, n]) => `${b}x${n}`).join(','));
  }
}

export function signatureFacts(sig: readonly (readonly [number, number])[]): SignatureFacts {
  const [first] = sig;
  const id = first === undefined ? -1 : (canonical[first[0]] ?? -1);
  return new Facts(sig, onlyOf(sig, PACKED) || onlyOf(sig, BYTE), id >= 0 && allCanonical(sig, id) ? id : -1);
}

/**
 * Where the type signatures of `count` × a and `rcount` × b first differ, over the length of the shorter
 * one (the message fills a prefix of the receive), or undefined when they agree. MPI_PACKED matches
 * anything, and so (a common, tolerated practice) does a buffer of MPI_BYTE.
 *
 * Constant time for what almost every message is — both sides of one basic type, or of one committed
 * type (the same signature) — whatever the counts; otherwise a walk over the two run-length signatures
 * that advances by whole runs, so it stops at the first runs that differ.
 */
export function signatureMismatch(
  a: DtypeInfo,
  count: number,
  b: DtypeInfo,
  rcount: number,
): { at: number; sent: string; received: string } | undefined {
  if (a.sig.anything || b.sig.anything) return undefined;
  const sa = a.signature;
  const sb = b.signature;
  if (count <= 0 || rcount <= 0 || sa.length === 0 || sb.length === 0) return undefined;
  if (a.sig.uniform >= 0 && b.sig.uniform >= 0) {
    if (a.sig.uniform === b.sig.uniform) return undefined;
    return {
      at: 0,
      sent: basicTypeNames[sa[0]?.[0] ?? -1] ?? '?',
      received: basicTypeNames[sb[0]?.[0] ?? -1] ?? '?',
    };
  }
  // The shorter message is a prefix of repetitions of one signature: it matches itself.
  if (a.sig.key === b.sig.key) return undefined;
  // A uniform side is one run of all its elements; a mixed one repeats its runs `count` times.
  let xp = 0;
  let xr = 0;
  const xReps = a.sig.uniform >= 0 ? 1 : count;
  let xLeft = a.sig.uniform >= 0 ? elements(sa) * count : (sa[0]?.[1] ?? 0);
  let yp = 0;
  let yr = 0;
  const yReps = b.sig.uniform >= 0 ? 1 : rcount;
  let yLeft = b.sig.uniform >= 0 ? elements(sb) * rcount : (sb[0]?.[1] ?? 0);
  let at = 0;
  // Bounded: a step covers a whole run, and a real mismatch shows within the first runs.
  for (let steps = 0; steps < 100000 && xr < xReps && yr < yReps; steps++) {
    const tx = sa[xp]?.[0] ?? -1;
    const ty = sb[yp]?.[0] ?? -1;
    if (canonical[tx] !== canonical[ty])
      return { at, sent: basicTypeNames[tx] ?? '?', received: basicTypeNames[ty] ?? '?' };
    const n = Math.min(xLeft, yLeft);
    if (n <= 0) break;
    at += n;
    xLeft -= n;
    yLeft -= n;
    while (xLeft === 0 && xr < xReps) {
      if (++xp >= sa.length) {
        xp = 0;
        xr++;
      }
      xLeft = sa[xp]?.[1] ?? 0;
    }
    while (yLeft === 0 && yr < yReps) {
      if (++yp >= sb.length) {
        yp = 0;
        yr++;
      }
      yLeft = sb[yp]?.[1] ?? 0;
    }
  }
  return undefined;
}

function elements(sig: readonly (readonly [number, number])[]): number {
  let n = 0;
  for (const [, k] of sig) n += k;
  return n;
}

/**
 * The bytes of `count` × a and `rcount` × b differ, but because the types do, not the counts: both sides
 * have as many basic elements and their signatures differ (1 × MPI_DOUBLE against 1 × MPI_INT). The user's
 * bug is then the type (type-mismatch), not the count (count-mismatch). Undefined when the element counts
 * differ, or when a side matches anything (MPI_BYTE, MPI_PACKED: its count is a byte count).
 */
export function typeNotCount(
  a: DtypeInfo,
  count: number,
  b: DtypeInfo,
  rcount: number,
): { at: number; sent: string; received: string } | undefined {
  if (a.sig.anything || b.sig.anything) return undefined;
  if (count * elements(a.signature) !== rcount * elements(b.signature)) return undefined;
  return signatureMismatch(a, count, b, rcount);
}
