/**
 * Datatypes and ops per rank, from the shim's DTYPE and OP records: sizes and type signatures (run-length
 * lists of basic types) for the type and count checks, predefined op ids for the reduction checks.
 */
import api from '../../../../native-shim/spec/mpi-api.json';
import type { DatatypeEvent, OpEvent } from './types';

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

export class Datatypes {
  private readonly types = new Map<number, Map<number, DtypeInfo>>();
  private readonly ops = new Map<number, Map<number, number>>();
  /**
   * Each rank's last lookup (handle and answer), by rank: every send and receive asks for its datatype, and a
   * rank mostly sends one type after another (two Map lookups per operation before). NaN: none.
   */
  private readonly lastHandle: number[] = [];
  private readonly lastInfo: (DtypeInfo | undefined)[] = [];

  onDatatype(e: DatatypeEvent): void {
    let m = this.types.get(e.rank);
    if (m === undefined) this.types.set(e.rank, (m = new Map<number, DtypeInfo>()));
    // The handle may name a new type now (MPI reuses freed handles): the rank's last answer may be stale.
    if (e.rank < this.lastHandle.length) this.lastHandle[e.rank] = NaN;
    const [first] = e.signature;
    const name =
      e.signature.length === 1 && first !== undefined && first[1] === 1
        ? basicTypeNames[first[0]]
        : undefined;
    m.set(e.datatype, {
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

function onlyOf(sig: readonly (readonly [number, number])[], id: number): boolean {
  return sig.length > 0 && sig.every(([t]) => t === id);
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
  return new Facts(
    sig,
    onlyOf(sig, PACKED) || onlyOf(sig, BYTE),
    id >= 0 && sig.every(([b]) => canonical[b] === id) ? id : -1,
  );
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
