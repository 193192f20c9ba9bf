/**
 * Message races: a wildcard receive (MPI_ANY_SOURCE) whose message could have come from another sender,
 * because that other send was concurrent with the receive (not caused by it). Happened-before comes from
 * the run's vector clocks (causal-clocks.ts). Reported as the first race of each rank, as DESIGN.md asks.
 */
import type { EngineFinding } from '../model/types';
import { describeOp } from '../model/describe';
import type { CausalClocks } from './causal-clocks';
import type { RecvOp, SendOp } from '../model/ops';
import type { Replay } from './replay';
import { ANY_SOURCE, ANY_TAG } from '../model/types';

/**
 * How many of each sender's concurrent sends are looked at as rivals of a wildcard receive: the latest ones,
 * which are the ones still in flight when it chose. Bounds the check on long runs of many wildcard receives.
 */
const RIVAL_WINDOW = 64;

export function messageRaces(replay: Replay, clocks: CausalClocks | undefined): EngineFinding[] {
  if (clocks === undefined || replay.wildcardMatches === 0) return [];
  const { sentAt, recvTime, recvOrder } = clocks;
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);

  // Sends to each rank, per sender in the sender's order (sentAt's order is the order the steps ran).
  const sendsTo = new Map<number, Map<number, SendOp[]>>();
  for (const op of sentAt.keys()) {
    if (op.kind !== 'send') continue;
    let bySender = sendsTo.get(op.dest);
    if (bySender === undefined) sendsTo.set(op.dest, (bySender = new Map<number, SendOp[]>()));
    const l = bySender.get(op.rank);
    if (l === undefined) bySender.set(op.rank, [op]);
    else l.push(op);
  }
  const wildBy = new Map<number, RecvOp[]>();
  for (const op of recvTime.keys()) {
    if (op.source !== ANY_SOURCE || !replay.peer.has(op)) continue;
    let l = wildBy.get(op.rank);
    if (l === undefined) wildBy.set(op.rank, (l = []));
    l.push(op);
  }
  const findings: EngineFinding[] = [];
  const bytes = (s: SendOp) => s.count * (s.dtype?.size ?? 1);
  for (const r of ranks) {
    const wild = (wildBy.get(r) ?? []).sort((a, b) => (recvOrder.get(a) ?? 0) - (recvOrder.get(b) ?? 0));
    const senders = [...(sendsTo.get(r) ?? new Map<number, SendOp[]>())].sort((a, b) => a[0] - b[0]);
    for (const recv of wild) {
      const took = replay.peer.get(recv) as SendOp;
      const myTime = recvTime.get(recv) ?? 0;
      const myOrder = recvOrder.get(recv) ?? 0;
      const isRival = (s: SendOp): boolean => {
        if (s.comm !== recv.comm) return false;
        if (recv.tag !== ANY_TAG && s.tag !== recv.tag) return false;
        // The rival must have been available: received later by this rank (a send never received is an
        // unmatched message, not a race).
        const other = replay.peer.get(s) as RecvOp | undefined;
        if (other === undefined || other.rank !== r || (recvOrder.get(other) ?? Infinity) <= myOrder)
          return false;
        // Observable: interchangeable messages (same tag and length, taken by the same call) are no race.
        return s.tag !== took.tag || bytes(s) !== bytes(took) || other.site !== recv.site;
      };
      const rivals: SendOp[] = [];
      for (const [sender, list] of senders) {
        if (sender === took.rank) continue;
        // Concurrent sends (the sender had not heard of this receive) are a prefix of the sender's sends:
        // its clock's entry for this rank only grows. Look at the last RIVAL_WINDOW of them.
        let lo = 0;
        let hi = list.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (((sentAt.get(list[mid] as SendOp) as Int32Array)[r] ?? 0) < myTime) lo = mid + 1;
          else hi = mid;
        }
        for (let j = Math.max(0, lo - RIVAL_WINDOW); j < lo; j++) {
          const s = list[j] as SendOp;
          if (isRival(s)) rivals.push(s);
        }
      }
      if (rivals.length === 0) continue;
      const rival = rivals[0] as SendOp;
      findings.push({
        kind: 'message-race',
        severity: 'warning',
        message: `Rank ${r}'s ${recv.fn.name} from any rank took the message of rank ${took.rank}, but rank ${rival.rank}'s ${rival.fn.name} could have arrived first: the outcome depends on timing. Receive from a specific rank, or make the sends ordered (e.g. a token).`,
        locations: [
          {
            rank: r,
            site: recv.site,
            call: recv.fn.name,
            detail: `${describeOp(recv)}: took rank ${took.rank}'s message`,
          },
          {
            rank: took.rank,
            site: took.site,
            call: took.fn.name,
            detail: `${describeOp(took)}: the message taken`,
          },
          ...rivals.map((s) => ({
            rank: s.rank,
            site: s.site,
            call: s.fn.name,
            detail: `${describeOp(s)}: could have been taken instead`,
          })),
        ],
      });
      break; // the first race of each rank
    }
  }
  return findings;
}
