/**
 * The buffer-overlap finding of a new operation against a pending one of its rank, as buffer-overlap.ts reports it
 * at once and recv-buffer-read.ts once happened-before has decided (one wording for both).
 */
import type { P2pOp } from '../model/ops';
import type { HeldFindings } from '../model/held-findings';
import type { EngineFinding } from '../model/types';

/** Holds a finding to merge it across ranks: HeldFindings.add, handed to the checks that hold their warnings. */
export type HoldFinding = HeldFindings['add'];

const verb = (o: P2pOp) => (o.kind === 'send' ? 'reads' : 'writes');

/** What happened, without the verdict: "Rank r's op reads N bytes that its pending other (…) still writes". */
export function overlapHead(op: P2pOp, other: P2pOp, bytes: number): string {
  return `Rank ${op.rank}'s ${op.fn.name} ${verb(op)} ${bytes} bytes that its pending ${other.fn.name} (not yet completed) still ${verb(other)}`;
}

/** The error: `op`'s buffer meets `bytes` of `other`'s, which is still pending, and timing decides the result. */
export function overlapError(op: P2pOp, other: P2pOp, bytes: number): EngineFinding {
  return {
    kind: 'buffer-overlap',
    severity: 'error',
    message: `${overlapHead(op, other, bytes)}: the result depends on timing. Use separate buffers, or wait for the ${other.fn.name} first.`,
    locations: [
      {
        rank: other.rank,
        site: other.site,
        call: other.fn.name,
        detail: `${other.fn.name} pending, ${verb(other)} its buffer`,
      },
      {
        rank: op.rank,
        site: op.site,
        call: op.fn.name,
        detail: `${op.fn.name} ${verb(op)} ${bytes} bytes of that buffer`,
      },
    ],
  };
}
