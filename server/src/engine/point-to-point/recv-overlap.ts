/**
 * buffer-overlap of two pending receives of one rank into the same bytes. MPI forbids it (MPI-4.0 §3.7.2: no
 * access to a pending receive's buffer, another receive's included), so it is always reported; whether the result
 * depends on timing is known once both receives have their messages. When both messages are copies of the same
 * bytes — sent by one rank from the same buffer, with the same count and type, the second posted while the first
 * was still pending (so the program could not legally have changed that buffer in between) — and both receives
 * lay them out alike (same start, count and type), every byte of the overlap gets the same value whichever
 * message lands last: a warning. cp2k does this with a rank's own data, sent to itself on its row and its column
 * communicators into one buffer. Otherwise, or when a receive never got its message, the error it always was.
 * A receive can be in several pairs: a third receive into the bytes of two pending ones is paired with the one
 * buffer-overlap.ts found, and waits for its own message like the second did (MPICH's dtype_send test posts 128
 * receives into one buffer, all answered from one buffer; the third was an error before its message was known).
 *
 * The sends' order is read from the sender's own stream (`SendOp.order` at its post and `doneOrder` at its
 * completion, both from the engine's one counter, which follows each rank's stream in order), so the verdict does
 * not depend on how the ranks' streams interleave on their way to the analyzer.
 */
import type { RecvOp, SendOp } from '../model/ops';
import type { EngineFinding } from '../model/types';
import { overlapError, overlapHead, type HoldFinding } from './overlap-finding';

/** Beyond this many pairs waiting for their messages at once, a new overlap is reported at once as an error. */
export const MAX_WAITING = 4096;

/** Why the same bytes twice is a warning, and what to do: the end of both wordings below. */
const SAME_BYTES =
  'so the result does not depend on timing. Receive into separate buffers, or complete the first receive before posting the second.';

interface Pair {
  /** The receive posted second, and the pending one it writes over. */
  readonly op: RecvOp;
  readonly other: RecvOp;
  readonly bytes: number;
  readonly key: string;
  /** Each receive's buffer start (NaN when unknown). */
  readonly opBuf: number;
  readonly otherBuf: number;
  opSend: SendOp | undefined;
  otherSend: SendOp | undefined;
}

/** Two sends carry the same bytes: one rank, one buffer, one count and type, the later posted before the earlier completed. */
function sameBytes(a: SendOp, b: SendOp): boolean {
  if (a === b || a.rank !== b.rank || a.buf !== a.buf || a.buf !== b.buf || a.count !== b.count) return false;
  if (a.dtype === undefined || a.dtype !== b.dtype) return false;
  const [first, second] = a.order < b.order ? [a, b] : [b, a];
  return first.doneOrder < 0 || second.order < first.doneOrder;
}

export class RecvOverlaps {
  /** The pairs waiting for their messages, under each of their two receives (a receive can be in several). */
  private readonly byRecv = new Map<RecvOp, Pair[]>();
  /** How many pairs wait. */
  private waiting = 0;
  /** What was reported per rank and pair of call sites: a warning does not hide a later error of the same pair. */
  private readonly seen = new Map<string, 'warning' | 'error'>();

  constructor(
    private readonly report: (f: EngineFinding) => void,
    /** Warnings are held and merged across ranks (the same call sites on every rank: one finding). */
    private readonly hold: HoldFinding,
  ) {}

  /** `op` (a receive) writes `bytes` of the buffer of the pending receive `other`; opBuf/otherBuf: their starts. */
  overlap(op: RecvOp, other: RecvOp, bytes: number, opBuf: number, otherBuf: number): void {
    const key = `${op.rank}:${other.site}:${op.site}`;
    if (this.seen.get(key) === 'error') return;
    const pair: Pair = { op, other, bytes, key, opBuf, otherBuf, opSend: undefined, otherSend: undefined };
    if (this.waiting >= MAX_WAITING) {
      this.decide(pair);
      return;
    }
    this.add(op, pair);
    this.add(other, pair);
    this.waiting++;
    // Receives already matched: the run's matching set their partners.
    if (other.peer?.kind === 'send') pair.otherSend = other.peer;
    if (op.peer?.kind === 'send') pair.opSend = op.peer;
    if (pair.opSend !== undefined && pair.otherSend !== undefined) this.settle(pair);
  }

  /** The matcher paired send `s` with receive `r`. */
  matched(s: SendOp, r: RecvOp): void {
    if (this.waiting === 0) return;
    const pairs = this.byRecv.get(r);
    if (pairs === undefined) return;
    for (const pair of [...pairs]) {
      if (pair.op === r) pair.opSend = s;
      else pair.otherSend = s;
      if (pair.opSend !== undefined && pair.otherSend !== undefined) this.settle(pair);
    }
  }

  /** Pairs whose messages never both came: the error they were before this check could tell. */
  finish(): void {
    const all = new Set<Pair>();
    for (const pairs of this.byRecv.values()) for (const pair of pairs) all.add(pair);
    for (const pair of all) this.settle(pair);
  }

  private add(r: RecvOp, pair: Pair): void {
    const pairs = this.byRecv.get(r);
    if (pairs === undefined) this.byRecv.set(r, [pair]);
    else pairs.push(pair);
  }

  private remove(r: RecvOp, pair: Pair): void {
    const pairs = this.byRecv.get(r);
    if (pairs === undefined) return;
    const i = pairs.indexOf(pair);
    if (i >= 0) pairs.splice(i, 1);
    if (pairs.length === 0) this.byRecv.delete(r);
  }

  private settle(pair: Pair): void {
    this.remove(pair.op, pair);
    this.remove(pair.other, pair);
    this.waiting--;
    this.decide(pair);
  }

  private decide(pair: Pair): void {
    const { op, other, opSend, otherSend } = pair;
    const alike =
      opSend !== undefined &&
      otherSend !== undefined &&
      pair.opBuf === pair.otherBuf &&
      op.count === other.count &&
      op.dtype !== undefined &&
      op.dtype === other.dtype &&
      sameBytes(opSend, otherSend);
    const severity = alike ? 'warning' : 'error';
    const was = this.seen.get(pair.key);
    if (was === severity || was === 'error') return;
    this.seen.set(pair.key, severity);
    if (!alike || opSend === undefined || otherSend === undefined) {
      this.report(overlapError(op, other, pair.bytes));
      return;
    }
    const one = sameBytesWarning(op, other, pair.bytes, opSend, otherSend);
    this.hold(`recv-overlap|${op.fn.name}|${other.fn.name}`, op.rank, one.locations, (ranks, locations) =>
      ranks.length === 1
        ? { ...one, locations }
        : {
            kind: 'buffer-overlap',
            severity: 'warning',
            message: `On ranks ${ranks.join(', ')}, an ${op.fn.name} writes bytes that the rank's pending ${other.fn.name} (not yet completed) still writes. MPI forbids any access to a pending receive's buffer, another receive's included; but on each both messages are copies of the same bytes (sent by one rank from one buffer, the second posted while the first was pending) and land alike, ${SAME_BYTES}`,
            locations,
          },
    );
  }
}

function sameBytesWarning(
  op: RecvOp,
  other: RecvOp,
  bytes: number,
  opSend: SendOp,
  otherSend: SendOp,
): EngineFinding {
  const [first, second] = otherSend.order < opSend.order ? [otherSend, opSend] : [opSend, otherSend];
  return {
    kind: 'buffer-overlap',
    severity: 'warning',
    message: `${overlapHead(op, other, bytes)}. MPI forbids any access to a pending receive's buffer, another receive's included; but both messages are copies of the same bytes (sent by rank ${first.rank} from one buffer, the second posted while the first was pending) and land alike, ${SAME_BYTES}`,
    locations: [
      ...overlapError(op, other, bytes).locations,
      {
        rank: first.rank,
        site: first.site,
        call: first.fn.name,
        detail: `${first.fn.name} sent one of the messages from its buffer`,
      },
      {
        rank: second.rank,
        site: second.site,
        call: second.fn.name,
        detail: `${second.fn.name} sent the same bytes from that buffer while the first was pending`,
      },
    ],
  };
}
