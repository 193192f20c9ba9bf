/**
 * Checks on every matched message: the receive buffer must hold it (count-mismatch, truncation) and the
 * type signatures must agree over the message (type-mismatch). One finding per pair of call sites.
 */
import { describeData, signatureMismatch } from '../model/datatypes';
import { describeOp } from '../model/describe';
import type { CheckContext } from '../model/check-context';
import type { RecvOp, SendOp } from '../model/ops';
import type { MatchListener } from './matching';

/** What the checks of matched messages read: the model, and the list of listeners every match is given to. */
export interface P2pContext extends CheckContext {
  readonly matchHooks: MatchListener[];
}

export function installP2pChecks(st: P2pContext): void {
  const seen = new Set<string>();
  const once = (kind: string, s: SendOp, r: RecvOp): boolean => {
    const key = `${kind}|${s.rank}:${s.site}|${r.rank}:${r.site}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  st.matchHooks.push((s, r) => {
    if (r.kind !== 'recv' || s.dtype === undefined || r.dtype === undefined) return;
    const bytes = s.count * s.dtype.size;
    const room = r.count * r.dtype.size;
    // Built only for a finding: this runs for every matched message, and the descriptions are strings.
    const locations = () => [
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
    if (bytes > room) {
      if (once('count', s, r)) {
        st.report({
          kind: 'count-mismatch',
          severity: 'error',
          message: `Rank ${s.rank} sends ${describeData(s.count, s.dtype)} (${bytes} bytes) with ${s.fn.name} but rank ${r.rank}'s ${r.fn.name} has room for ${describeData(r.count, r.dtype)} (${room} bytes): the message is truncated (MPI_ERR_TRUNCATE). Make the receive count at least the send count.`,
          locations: locations(),
        });
      }
      return;
    }
    const diff = signatureMismatch(s.dtype, s.count, r.dtype, r.count);
    if (diff !== undefined && once('type', s, r)) {
      st.report({
        kind: 'type-mismatch',
        severity: 'error',
        message: `Rank ${s.rank} sends ${describeData(s.count, s.dtype)} with ${s.fn.name} but rank ${r.rank} receives ${describeData(r.count, r.dtype)}: element ${diff.at} is ${diff.sent} on the sender and ${diff.received} on the receiver. Use matching datatypes on both sides.`,
        locations: locations(),
      });
    }
  });
}
