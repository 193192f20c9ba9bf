/**
 * Message races: a wildcard receive (MPI_ANY_SOURCE) whose message could have come from another sender,
 * because that other send was concurrent with the receive (not caused by it). Happened-before comes from
 * vector clocks computed over the run's steps in causal order (a receive after the send it took;
 * collectives join every member). Reported as the first race of each rank, as DESIGN.md asks.
 */
import type { EngineFinding } from './types';
import { describeOp } from './describe';
import type { P2pOp, RecvOp, SendOp } from './ops';
import type { Replay, Step } from './replay';
import { ANY_SOURCE, ANY_TAG } from './types';

/** Vector clocks cost a copy per send: beyond this many ranks the check is skipped. */
const MAX_RANKS = 512;

export function messageRaces(replay: Replay, worldSize: number): EngineFinding[] {
  if (!replay.enabled || worldSize > MAX_RANKS) return [];
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);
  const n = Math.max(worldSize, (ranks[ranks.length - 1] ?? 0) + 1);
  const vc = new Map<number, Int32Array>(ranks.map((r) => [r, new Int32Array(n)]));
  const sentAt = new Map<P2pOp, Int32Array>();
  const recvTime = new Map<RecvOp, number>();
  const recvOrder = new Map<RecvOp, number>();
  const pos = new Map<number, number>(ranks.map((r) => [r, 0]));
  const arrived = new Map<string, number[]>();
  const here = new Set<number>();

  const clock = (r: number) => vc.get(r) as Int32Array;
  const merge = (into: Int32Array, from: Int32Array) => {
    for (let i = 0; i < into.length; i++) if ((from[i] ?? 0) > (into[i] ?? 0)) into[i] = from[i] ?? 0;
  };
  // Execute in causal order: a receive waits until its send has been executed; a collective until all arrived.
  const can = (r: number, s: Step): boolean => {
    if (s.k === 'post') return true;
    if (s.k === 'wait') {
      if (s.op.kind === 'send') return true;
      const p = replay.peer.get(s.op);
      return p === undefined || sentAt.has(p);
    }
    const key = `${s.comm.id}:${s.index}`;
    if (!here.has(r)) {
      arrived.set(key, [...(arrived.get(key) ?? []), r]);
      here.add(r);
    }
    const who = arrived.get(key) ?? [];
    if (who.length < s.comm.size) return false;
    const joined = new Int32Array(n);
    for (const m of who) merge(joined, clock(m));
    for (const m of who) merge(clock(m), joined);
    return true;
  };
  for (let progress = true; progress;) {
    progress = false;
    for (const r of ranks) {
      const steps = replay.steps.get(r) ?? [];
      let i = pos.get(r) ?? 0;
      const c = clock(r);
      while (i < steps.length) {
        const s = steps[i] as Step;
        if (!can(r, s)) break;
        here.delete(r);
        c[r] = (c[r] ?? 0) + 1;
        if (s.k === 'post' && s.op.kind === 'send') sentAt.set(s.op, c.slice());
        if (s.k === 'wait' && s.op.kind !== 'send') {
          const p = replay.peer.get(s.op);
          const at = p === undefined ? undefined : sentAt.get(p);
          if (at !== undefined) merge(c, at);
          recvTime.set(s.op, c[r] ?? 0);
          recvOrder.set(s.op, i);
        }
        i++;
        progress = true;
      }
      pos.set(r, i);
    }
  }

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
