/**
 * Datatypes and ops per rank, from the shim's DTYPE and OP records: sizes and type signatures (run-length
 * lists of basic types) for the type and count checks, predefined op ids for the reduction checks.
 */
import api from '../../../native-shim/spec/mpi-api.json';
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

  onDatatype(e: DatatypeEvent): void {
    let m = this.types.get(e.rank);
    if (m === undefined) this.types.set(e.rank, (m = new Map<number, DtypeInfo>()));
    const [first] = e.signature;
    const name =
      e.signature.length === 1 && first !== undefined && first[1] === 1
        ? basicTypeNames[first[0]]
        : undefined;
    m.set(e.datatype, {
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
    return this.types.get(rank)?.get(handle);
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
  const [first] = t.signature;
  if (first === undefined) return undefined;
  const id = canonical[first[0]];
  return t.signature.every(([b]) => canonical[b] === id) ? id : undefined;
}

function onlyOf(sig: readonly (readonly [number, number])[], id: number): boolean {
  return sig.length > 0 && sig.every(([t]) => t === id);
}

/**
 * Where the type signatures of `count` × a and `rcount` × b first differ, over the length of the shorter
 * one (the message fills a prefix of the receive), or undefined when they agree. MPI_PACKED matches
 * anything, and so (a common, tolerated practice) does a buffer of MPI_BYTE.
 */
export function signatureMismatch(
  a: DtypeInfo,
  count: number,
  b: DtypeInfo,
  rcount: number,
): { at: number; sent: string; received: string } | undefined {
  if (
    onlyOf(a.signature, PACKED) ||
    onlyOf(b.signature, PACKED) ||
    onlyOf(a.signature, BYTE) ||
    onlyOf(b.signature, BYTE)
  )
    return undefined;
  const walker = (sig: readonly (readonly [number, number])[], reps: number) => {
    let pair = 0;
    let left = sig[0]?.[1] ?? 0;
    let rep = 0;
    return {
      done: () => rep >= reps || sig.length === 0,
      type: () => sig[pair]?.[0] ?? -1,
      left: () => left,
      take(n: number): void {
        left -= n;
        while (left === 0 && rep < reps) {
          pair++;
          if (pair >= sig.length) {
            pair = 0;
            rep++;
          }
          left = sig[pair]?.[1] ?? 0;
        }
      },
    };
  };
  const x = walker(a.signature, count);
  const y = walker(b.signature, rcount);
  let at = 0;
  // Bounded: a run-length step covers many elements, and a real mismatch shows within the first pairs.
  for (let steps = 0; steps < 100000 && !x.done() && !y.done(); steps++) {
    const tx = x.type();
    const ty = y.type();
    if (canonical[tx] !== canonical[ty])
      return { at, sent: basicTypeNames[tx] ?? '?', received: basicTypeNames[ty] ?? '?' };
    const n = Math.min(x.left(), y.left());
    if (n <= 0) break;
    at += n;
    x.take(n);
    y.take(n);
  }
  return undefined;
}
