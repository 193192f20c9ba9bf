/**
 * Message races: a wildcard receive (MPI_ANY_SOURCE) whose message could have come from another sender,
 * because that other send was concurrent with the receive (not caused by it). Happened-before comes from
 * vector clocks computed over the run's steps in causal order (a receive after the send it took;
 * collectives join every member). Reported as the first race of each rank, as DESIGN.md asks.
 */
import type { EngineFinding } from './types';
import { describeOp } from './describe';
import type { RecvOp, SendOp } from './ops';
import { runCausally } from './happened-before';
import type { Replay } from './replay';
import { ANY_SOURCE, ANY_TAG } from './types';

/** Vector clocks cost a copy per send: beyond this many ranks the check is skipped. */
const MAX_RANKS = 512;

export function messageRaces(replay: Replay, worldSize: number): EngineFinding[] {
  if (!replay.enabled || worldSize > MAX_RANKS) return [];
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);
  const n = Math.max(worldSize, (ranks[ranks.length - 1] ?? 0) + 1);
  const recvTime = new Map<RecvOp, number>();
  const recvOrder = new Map<RecvOp, number>();
  const sentAt = runCausally(replay, n, (r, i, s, c) => {
    if (s.k === 'wait' && s.op.kind !== 'send') {
      recvTime.set(s.op, c[r] ?? 0);
      recvOrder.set(s.op, i);
    }
  });

  // Sends to each rank, to look for the one that could have been taken instead.
  const sendsTo = new Map<number, SendOp[]>();
  for (const op of sentAt.keys()) {
    if (op.kind !== 'send') continue;
    let l = sendsTo.get(op.dest);
    if (l === undefined) sendsTo.set(op.dest, (l = []));
    l.push(op);
  }
  const wildBy = new Map<number, RecvOp[]>();
  for (const op of recvTime.keys()) {
    if (op.source !== ANY_SOURCE || !replay.peer.has(op)) continue;
    let l = wildBy.get(op.rank);
    if (l === undefined) wildBy.set(op.rank, (l = []));
    l.push(op);
  }
  const findings: EngineFinding[] = [];
  for (const r of ranks) {
    const wild = (wildBy.get(r) ?? []).sort((a, b) => (recvOrder.get(a) ?? 0) - (recvOrder.get(b) ?? 0));
    for (const recv of wild) {
      const took = replay.peer.get(recv) as SendOp;
      const myTime = recvTime.get(recv) ?? 0;
      const myOrder = recvOrder.get(recv) ?? 0;
      const bytes = (s: SendOp) => s.count * (s.dtype?.size ?? 1);
      const rivals = (sendsTo.get(r) ?? []).filter((s) => {
        if (s === took || s.rank === took.rank || s.comm !== recv.comm) return false;
        if (recv.tag !== ANY_TAG && s.tag !== recv.tag) return false;
        // The rival must have been available: received later by this rank (a send never received is an
        // unmatched message, not a race).
        const other = replay.peer.get(s) as RecvOp | undefined;
        if (other === undefined || other.rank !== r || (recvOrder.get(other) ?? Infinity) <= myOrder)
          return false;
        // Concurrent: its sender had not heard of this receive when it sent.
        if (((sentAt.get(s) as Int32Array)[r] ?? 0) >= myTime) return false;
        // Observable: interchangeable messages (same tag and length, taken by the same call) are no race.
        return s.tag !== took.tag || bytes(s) !== bytes(took) || other.site !== recv.site;
      });
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
