/**
 * What the MPI library will still match by itself: the pending receives paired with the unmatched sends, as
 * the library pairs them. Read by the deadlock analysis (those pairs release their ranks) and by the
 * end-of-run unmatched check (those messages were in flight, not lost).
 */
import type { RankTrack } from '../model/rank-track';
import type { RecvOp, SendOp } from '../model/ops';
import { ANY_SOURCE, ANY_TAG } from '../model/types';
import type { Matcher } from './matching';

function envelopeAccepts(r: RecvOp, s: SendOp): boolean {
  return (
    s.comm === r.comm &&
    (r.source === ANY_SOURCE || s.srcCommRank === r.source) &&
    (r.tag === ANY_TAG || s.tag === r.tag)
  );
}

/**
 * Pairs pending receives with unmatched sends as the library would (each receive, in posting order, takes
 * the oldest send its envelope accepts): those pairs will complete without anyone else acting.
 */
export function simulateMatching(st: {
  readonly matcher: Matcher;
  readonly tracks: readonly RankTrack[];
}): Set<SendOp | RecvOp> {
  const will = new Set<SendOp | RecvOp>();
  const sendsTo = new Map<number, SendOp[]>();
  for (const s of st.matcher.unmatched()) {
    let l = sendsTo.get(s.dest);
    if (l === undefined) sendsTo.set(s.dest, (l = []));
    l.push(s);
  }
  for (const l of sendsTo.values()) l.sort((a, b) => a.order - b.order);
  for (const t of st.tracks) {
    const sends = sendsTo.get(t.rank);
    if (sends === undefined) continue;
    const recvs: RecvOp[] = [];
    const probes: RecvOp[] = [];
    const cur = t.inCall ? t.cur?.recv : undefined;
    if (cur !== undefined && !cur.done) (cur.kind === 'probe' ? probes : recvs).push(cur);
    t.pendingRecvs(recvs);
    recvs.sort((a, b) => a.order - b.order);
    for (const r of recvs) {
      const s = sends.find((x) => !will.has(x) && envelopeAccepts(r, x));
      if (s !== undefined) {
        will.add(s);
        will.add(r);
      }
    }
    for (const p of probes) if (sends.some((x) => !will.has(x) && envelopeAccepts(p, x))) will.add(p);
  }
  return will;
}
