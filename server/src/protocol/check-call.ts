/**
 * Validates one whole call's words against the spec before it becomes a row of the columns: every field a
 * reader relies on (flags that are 0 or 1, ids inside the spec's tables, sizes that fit) is checked here once,
 * so readers never meet a value the format forbids. Returns the reason for a call that breaks the spec; the
 * decoder wraps it in a DecodeError.
 */
import { basicTypes, checks, KIND, layouts, ops } from './spec';

function isFlag(v: number | undefined): boolean {
  return v === 0 || v === 1;
}

/** Word i of the call, or undefined past its n words. A function, not a closure made per call (a closure here
 * was a quarter of the bytes the engine allocated per record, bench/engine-throughput). The call's words are
 * `w[b…b+n)`: read in place, not through a subarray made per row (one per DTYPE record, a third of the records
 * of a ScaLAPACK run). */
function wordAt(w: Float64Array, b: number, n: number, i: number): number | undefined {
  return i < n ? w[b + i] : undefined;
}

/** The call's `n` words are `all[base…base+n)`, where the decoder wrote them (the columns' word column). */
export function checkCall(
  kind: number,
  flags: number,
  func: number,
  all: Float64Array,
  base: number,
  n: number,
): string | undefined {
  // ENTER, EXIT and COMPLETE (nearly every row) read their words in place; the others, a few per run or per new
  // handle, through a view from the call's first word.
  if (kind === KIND.ENTER || kind === KIND.EXIT)
    return layouts[func] === undefined ? `function id ${func} out of range` : undefined;
  if (kind === KIND.COMPLETE) {
    if (layouts[func] === undefined) return `function id ${func} out of range`;
    const cancelled = n > 5 ? all[base + 5] : undefined;
    if (!isFlag(cancelled)) return `COMPLETE cancelled flag ${cancelled} is not 0 or 1`;
    const bytes = n > 3 ? (all[base + 3] as number) : 0;
    return badBytes(bytes);
  }
  return checkRare(kind, flags, func, all, base, n);
}

/**
 * A COMPLETE's byte count is -1 when the status does not say it: more than INT_MAX bytes, or a status MPI leaves
 * undefined (Open MPI's for the request of MPI_Rput, MPI_Rget and the other request-based one-sided calls, whose
 * MPI_Wait the shim gives a status of its own, and for a neighbourhood collective's request, seen in PETSc's
 * PetscSF of the neighbor type). Only a count below that is malformed: the rank's other records count.
 */
function badBytes(bytes: number): string | undefined {
  return bytes < -1 ? `COMPLETE byte count ${bytes} is below -1 (unknown)` : undefined;
}

function checkRare(
  kind: number,
  flags: number,
  func: number,
  w: Float64Array,
  b: number,
  n: number,
): string | undefined {
  switch (kind) {
    case KIND.ENTER:
    case KIND.EXIT:
      return layouts[func] === undefined ? `function id ${func} out of range` : undefined;
    case KIND.COMPLETE: {
      if (layouts[func] === undefined) return `function id ${func} out of range`;
      if (!isFlag(wordAt(w, b, n, 5))) return `COMPLETE cancelled flag ${wordAt(w, b, n, 5)} is not 0 or 1`;
      return badBytes(wordAt(w, b, n, 3) ?? 0);
    }
    case KIND.COMM: {
      const size = wordAt(w, b, n, 1) ?? 0;
      const myRank = wordAt(w, b, n, 2) ?? 0;
      if (myRank < 0 || myRank >= size) return `COMM: my rank ${myRank} not in 0..${size - 1}`;
      const bits = wordAt(w, b, n, 5) ?? 0;
      const inter = (bits & 1) === 1;
      const end = 7 + size + (inter ? (wordAt(w, b, n, 6) ?? 0) : 0);
      for (let i = 7; i < end; i++) {
        const m = wordAt(w, b, n, i) ?? 0;
        if (m < 0 || !Number.isInteger(m))
          return `COMM: ${i < 7 + size ? 'member' : 'remote'} world rank ${m}`;
      }
      // The rank's neighbours in its topology: communicator ranks, or -1 (MPI_PROC_NULL).
      for (let i = end + 2; (bits & 2) !== 0 && i < n; i++) {
        const r = wordAt(w, b, n, i) ?? 0;
        if (r < -1 || r >= size || !Number.isInteger(r)) return `COMM: topology neighbour ${r}`;
      }
      return undefined;
    }
    case KIND.DTYPE: {
      if (n < 7) return `DTYPE has ${n} words, needs at least 7`;
      const size = wordAt(w, b, n, 1) ?? 0;
      if (size < 0) return `DTYPE size ${size} is negative`;
      if (!isFlag(wordAt(w, b, n, 6))) return `DTYPE committed flag ${wordAt(w, b, n, 6)} is not 0 or 1`;
      // flags bit2: a layout follows the signature, whose length in words then comes first (records.json).
      const withLayout = (flags & 4) !== 0;
      const sigEnd = withLayout ? 8 + (wordAt(w, b, n, 7) ?? 0) : n;
      if (withLayout && (sigEnd > n || sigEnd < 8 || sigEnd % 2 !== 0))
        return `DTYPE signature length ${wordAt(w, b, n, 7)} does not fit its ${n} words`;
      for (let i = withLayout ? 8 : 7; i + 1 < sigEnd; i += 2) {
        const id = wordAt(w, b, n, i) ?? 0;
        const repeat = wordAt(w, b, n, i + 1) ?? 0;
        if (repeat === 0 && id === 0) continue; // zero padding at the end of the last EXT record
        if (id < 0 || id >= basicTypes.length) return `DTYPE basic type id ${id} out of range`;
        if (repeat < 0) return `DTYPE repeat ${repeat} is negative`;
      }
      let lastEnd = -1;
      for (let i = sigEnd; withLayout && i + 1 < n; i += 2) {
        const offset = wordAt(w, b, n, i) ?? 0;
        const length = wordAt(w, b, n, i + 1) ?? 0;
        if (length === 0 && offset === 0) continue; // padding, as above
        if (
          offset < 0 ||
          length <= 0 ||
          offset + length > (wordAt(w, b, n, 5) ?? 0) ||
          (lastEnd >= 0 && offset <= lastEnd)
        )
          return `DTYPE layout block (${offset}, ${length}) is out of order or outside the true extent`;
        lastEnd = offset + length;
      }
      return undefined;
    }
    case KIND.END: {
      const how = wordAt(w, b, n, 0) ?? 0;
      // 5 (disconnected) is the analyzer's own, never a shim's.
      return how >= 1 && how <= 4 && Number.isInteger(how)
        ? undefined
        : `END how ${wordAt(w, b, n, 0)} is not 1..4`;
    }
    case KIND.FINDING:
      if (layouts[func] === undefined) return `function id ${func} out of range`;
      return checks[wordAt(w, b, n, 0) ?? -1] === undefined
        ? `FINDING check id ${wordAt(w, b, n, 0)} out of range`
        : undefined;
    case KIND.LOST: {
      const count = wordAt(w, b, n, 0) ?? 0;
      return count < 0 ? `LOST count ${count} is negative` : undefined;
    }
    case KIND.OP: {
      const predefined = wordAt(w, b, n, 1) ?? -1;
      if (predefined < -1 || predefined >= ops.length) return `OP predefined id ${predefined} out of range`;
      return isFlag(wordAt(w, b, n, 2)) ? undefined : `OP commute flag ${wordAt(w, b, n, 2)} is not 0 or 1`;
    }
    case KIND.CLOCK:
    case KIND.SITE:
      return undefined;
    case KIND.BSEND: {
      if (layouts[func] === undefined) return `function id ${func} out of range`;
      const bytes = wordAt(w, b, n, 0) ?? 0;
      const packed = wordAt(w, b, n, 1) ?? 0;
      return packed < 0 || bytes < packed
        ? `BSEND sizes ${bytes}, ${packed} are not bytes >= packed >= 0`
        : undefined;
    }
    default:
      return `unknown record kind ${kind}`;
  }
}
