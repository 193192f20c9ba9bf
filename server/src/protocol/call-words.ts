/**
 * How many words a call's records carry, from what has arrived so far. A call is a head record and
 * the EXT records after it; most kinds say their own length (ENTER through its array lengths, COMM
 * through its sizes), so the decoder can emit a call as soon as it is whole, even when the shim's
 * batching splits it across frames.
 */
import type { FunctionLayout } from './spec';
import { KIND } from './spec';

/** Largest array section or member list we accept: more is a corrupt length, not a real MPI call. */
export const MAX_ARRAY = 1 << 24;

/**
 * Words the call needs, from the `count` words of `words` from `base` on: a number >= count when it may need more;
 * -1 when its length is open (DTYPE).
 */
export function wordsNeeded(
  kind: number,
  layout: FunctionLayout | undefined,
  words: ArrayLike<number>,
  base: number,
  count: number,
): number | string {
  switch (kind) {
    case KIND.ENTER:
      return enterWords(layout, words, base, count);
    case KIND.EXIT:
      return exitWords(layout, words, base, count);
    case KIND.COMPLETE:
      return 6;
    case KIND.COMM: {
      if (count < 7) return 7;
      const size = words[base + 1] ?? 0;
      const inter = words[base + 5] ?? 0;
      const remote = words[base + 6] ?? 0;
      if (size < 1 || size > MAX_ARRAY) return `communicator size ${size} out of range`;
      // Bit 0: an intercommunicator; bit 1: the rank's topology neighbours follow the members (records.json).
      if (!Number.isInteger(inter) || inter < 0 || inter > 3) return `isInter ${inter} is not 0 to 3`;
      if (remote < 0 || remote > MAX_ARRAY) return `remote size ${remote} out of range`;
      const members = 7 + size + ((inter & 1) === 1 ? remote : 0);
      if ((inter & 2) === 0) return members;
      if (count < members + 2) return members + 2;
      const indeg = words[base + members] ?? 0;
      const outdeg = words[base + members + 1] ?? 0;
      if (indeg < 0 || indeg > MAX_ARRAY || outdeg < 0 || outdeg > MAX_ARRAY)
        return `topology degrees ${indeg}, ${outdeg} out of range`;
      return members + 2 + indeg + outdeg;
    }
    case KIND.DTYPE:
      return -1;
    case KIND.SITE:
      return -1; // ends at the NUL byte, which the decoder looks for itself
    case KIND.END:
      return 4;
    case KIND.FINDING:
      return 5;
    case KIND.LOST:
      return 1;
    case KIND.OP:
      return 3;
    case KIND.CLOCK:
      // [realtime, lo, hi, phase]: the head's five word slots hold them (an older shim's zeros: phase 0).
      return 4;
    case KIND.BSEND:
      return 2;
    default:
      return `unknown record kind ${kind}`;
  }
}

function enterWords(
  layout: FunctionLayout | undefined,
  words: ArrayLike<number>,
  base: number,
  count: number,
): number | string {
  if (layout === undefined) return 'ENTER without a function';
  let need = layout.scalars.length;
  for (let a = 0; a < layout.arrays.length; a++) {
    if (count <= need) return need + 1;
    const len = words[base + need] ?? 0;
    if (len < 0 || len > MAX_ARRAY || !Number.isInteger(len)) {
      return `array ${layout.arrays[a]} of ${layout.spec.name} has length ${len}`;
    }
    need += 1 + len;
  }
  return need;
}

function exitWords(
  layout: FunctionLayout | undefined,
  words: ArrayLike<number>,
  base: number,
  count: number,
): number | string {
  if (layout === undefined) return 'EXIT without a function';
  let need = 1 + layout.outHandles.length + (layout.index !== undefined ? 1 : 0);
  if (layout.outcount !== undefined) {
    if (count <= need) return need + 1;
    const out = words[base + need] ?? 0;
    // MPI_UNDEFINED (no active requests) is normalised to -1 and carries no indices.
    if (out < -1 || out > MAX_ARRAY) return `outcount ${out} of ${layout.spec.name} out of range`;
    need += 1 + Math.max(out, 0);
  }
  return need;
}
