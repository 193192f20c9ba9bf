/**
 * Checks on every matched message: the receive buffer must hold it (count-mismatch, truncation) and the
 * type signatures must agree over the message (type-mismatch). A message longer than the receive only
 * because the types differ (as many elements on both sides: 1 × MPI_DOUBLE into 1 × MPI_CHAR) is a
 * type-mismatch: the count is right, the type is not. One finding per pair of call sites.
 */
import { describeData, signatureMismatch, typeNotCount, type DtypeInfo } from '../model/datatypes';
import { describeOp } from '../model/describe';
import type { CheckContext } from '../model/check-context';
import type { RecvOp, SendOp } from '../model/ops';
import type { MatchListener } from './matching';
import type { EngineFinding, RawLocation } from '../model/types';

/** What the checks of matched messages read: the model, and the list of listeners every match is given to. */
export interface P2pContext extends CheckContext {
  readonly matchHooks: MatchListener[];
}

export function installP2pChecks(st: P2pContext): void {
  st.matchHooks.push(new MessageChecks(st));
}

/**
 * The checks of one engine's matched messages. A class, not a closure pushed per engine: the JIT calls the same
 * function for every engine of a process (`MatchListener`).
 */
class MessageChecks implements MatchListener {
  private readonly seen = new Set<string>();

  constructor(private readonly st: P2pContext) {}

  private once(kind: string, s: SendOp, r: RecvOp): boolean {
    const key = `${kind}|${s.rank}:${s.site}|${r.rank}:${r.site}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  matched(s: SendOp, r: RecvOp): void {
    if (r.kind !== 'recv' || s.dtype === undefined || r.dtype === undefined) return;
    const st = this.st;
    const bytes = s.count * s.dtype.size;
    const room = r.count * r.dtype.size;
    if (bytes > room) {
      const typed = typeNotCount(s.dtype, s.count, r.dtype, r.count);
      if (typed !== undefined) {
        if (this.once('type', s, r))
          st.report(
            typeFinding(
              s,
              r,
              s.dtype,
              r.dtype,
              typed,
              locations(s, r, bytes, room),
              ` (${bytes} bytes into ${room}: MPI_ERR_TRUNCATE)`,
            ),
          );
      } else if (this.once('count', s, r)) {
        st.report({
          kind: 'count-mismatch',
          severity: 'error',
          message: `Rank ${s.rank} sends ${describeData(s.count, s.dtype)} (${bytes} bytes) with ${s.fn.name} but rank ${r.rank}'s ${r.fn.name} has room for ${describeData(r.count, r.dtype)} (${room} bytes): the message is truncated (MPI_ERR_TRUNCATE). Make the receive count at least the send count.`,
          locations: locations(s, r, bytes, room),
        });
      }
      return;
    }
    const diff = signatureMismatch(s.dtype, s.count, r.dtype, r.count);
    if (diff !== undefined && this.once('type', s, r))
      st.report(typeFinding(s, r, s.dtype, r.dtype, diff, locations(s, r, bytes, room), ''));
  }
}

/**
 * The two ends of a message, for a finding. Built only for a finding (the descriptions are strings), and not a
 * closure in the match hook: one that captures the hook's `s`, `r`, `bytes`, `room` made the hook allocate its
 * context at every matched message (bench/engine-throughput's heap profile).
 */
function locations(s: SendOp, r: RecvOp, bytes: number, room: number): RawLocation[] {
  return [
    {
      rank: s.rank,
      site: s.site,
      call: s.fn.name,
      detail: `${describeOp(s)}: ${describeData(s.count, s.dtype)} (${bytes} bytes)`,
    },
    {
      rank: r.rank,
      site: r.site,
      call: r.fn.name,
      detail: `${describeOp(r)}: room for ${describeData(r.count, r.dtype)} (${room} bytes)`,
    },
  ];
}

function typeFinding(
  s: SendOp,
  r: RecvOp,
  sd: DtypeInfo,
  rd: DtypeInfo,
  diff: { at: number; sent: string; received: string },
  locations: RawLocation[],
  truncated: string,
): EngineFinding {
  return {
    kind: 'type-mismatch',
    severity: 'error',
    message: `Rank ${s.rank} sends ${describeData(s.count, sd)} with ${s.fn.name} but rank ${r.rank} receives ${describeData(r.count, rd)}${truncated}: element ${diff.at} is ${diff.sent} on the sender and ${diff.received} on the receiver. Use matching datatypes on both sides.`,
    locations,
  };
}
