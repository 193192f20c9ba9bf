/**
 * A receive held by a deadlock whose message would come from a persistent send that was never started: the
 * sender made the request (MPI_Send_init and kin) and never called MPI_Start on it (MPI_Wait on an inactive
 * persistent request returns at once, so the program goes on as if it had sent). The missing MPI_Start is the
 * bug, not the hang: a `request-misuse` error at the send's creation and at the receive.
 */
import { describeOp } from '../model/describe';
import { num } from '../model/fn-roles';
import { peerWorld, peersOf } from '../model/comms';
import type { RecvOp } from '../model/ops';
import type { EngineFinding } from '../model/types';
import { ANY_SOURCE, ANY_TAG } from '../model/types';
import type { DeadlockContext } from './wait-graph';
import { addTo } from '../model/group-by';

/**
 * For each receive (in the order given), the first live persistent send request of a rank it could hear from that
 * was never started and whose envelope the receive accepts; one finding per such request.
 */
export function unstartedSendFindings(st: DeadlockContext, recvs: readonly RecvOp[]): EngineFinding[] {
  const found: Unstarted[] = [];
  const seen = new Set<string>();
  for (const r of recvs) {
    const from =
      r.source === ANY_SOURCE
        ? peersOf(r.comm, r.rank).filter((p) => p !== r.rank)
        : [peerWorld(r.comm, r.rank, r.source) ?? -1];
    for (const x of from) {
      const t = st.tracks[x];
      if (t === undefined) continue;
      const p = t.reqs;
      for (const req of t.requests.values()) {
        // Never started: a persistent send request, inactive, that MPI_Start never posted (one started before
        // may simply not have been started again yet: the deadlock is then about something else).
        if (!p.isLive(req) || !p.persistent(req) || !p.isSend(req) || p.everStarted(req)) continue;
        const e = p.template(req);
        if (e === undefined) continue;
        const comm = st.comms.known(x, num(e, NaN, 'comm'));
        if (comm !== r.comm) continue;
        if (peerWorld(comm, x, num(e, NaN, 'dest')) !== r.rank) continue;
        const tag = num(e, NaN, 'stag', 'tag');
        if (r.tag !== ANY_TAG && tag !== r.tag) continue;
        const key = `${x}:${p.handle(req)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ rank: x, site: p.site(req), fn: p.fn(req).name, tag, comm: comm.name, recv: r });
        break;
      }
    }
  }
  // One finding for the same missing MPI_Start on several ranks (every rank of an exchange).
  const groups = new Map<string, Unstarted[]>();
  for (const u of found) {
    const key = `${u.fn}|${u.recv.fn.name}`;
    addTo(groups, key, u);
  }
  return [...groups.values()].map((us) => {
    const u = us[0] as Unstarted;
    const more = us.length > 1 ? ` (and ${us.length - 1} more such request${us.length > 2 ? 's' : ''})` : '';
    return {
      kind: 'request-misuse',
      severity: 'error',
      message: `Rank ${u.rank}'s persistent send (${u.fn} to rank ${u.recv.rank}, tag ${u.tag}) was never started with MPI_Start, and rank ${u.recv.rank}'s ${describeOp(u.recv)} waits forever for its message${more}. Start the request (MPI_Start or MPI_Startall) before waiting for it.`,
      locations: us.flatMap((x) => [
        {
          rank: x.rank,
          site: x.site,
          call: x.fn,
          detail: `${x.fn} to rank ${x.recv.rank}, tag ${x.tag} on ${x.comm}: never started`,
        },
        {
          rank: x.recv.rank,
          site: x.recv.site,
          call: x.recv.fn.name,
          detail: `${describeOp(x.recv)}: never satisfied`,
        },
      ]),
    };
  });
}

interface Unstarted {
  readonly rank: number;
  readonly site: number;
  readonly fn: string;
  readonly tag: number;
  readonly comm: string;
  readonly recv: RecvOp;
}
