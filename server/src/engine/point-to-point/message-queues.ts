/**
 * The message queues of a paused job, as parallel debuggers show them: per rank its pending sends, its pending
 * receives and the unexpected messages waiting for it, with call sites, and the graph between ranks they make.
 * A narrow read of what matching keeps anyway (no state of its own): the matcher's unmatched sends and each
 * rank's posted receives.
 *
 * What the engine can tell from the records: a send no receive took is *pending at its sender* while the
 * sender's side has not completed (a blocking send that waits, an Isend not yet completed), and an *unexpected
 * message at its destination* once the sender's side completed (MPI buffered it: it waits in the receiver's
 * unexpected queue). Which of the two a library really does (eager or rendezvous) is not in the records.
 *
 * The graph's edges are "waits for": a pending receive waits for its source (every member of the communicator
 * but itself for MPI_ANY_SOURCE), a pending send for its destination. A cycle of ranks waiting for each other
 * (a strongly connected component of more than one rank, or a rank waiting for itself) is marked.
 */
import type { CheckContext } from '../model/check-context';
import { describeOp } from '../model/describe';
import type { RecvOp, SendOp } from '../model/ops';
import { ANY_SOURCE, ANY_TAG, PROC_NULL } from '../model/types';
import type { Matcher } from './matching';
import { addTo } from '../model/group-by';

export interface QueueEntry {
  readonly kind: 'send' | 'receive' | 'unexpected';
  /** The rank whose queue holds it (the sender for a pending send, the receiver otherwise). */
  readonly rank: number;
  /** The other end: the destination of a send, the source of a receive (-1: any rank), the sender of a message. */
  readonly peer: number;
  /** -1: any tag. */
  readonly tag: number;
  readonly comm: string;
  /** Elements and datatype as the call gave them: "4 × MPI_INT". */
  readonly count: number;
  /** The call that posted it, and its return address for the session to resolve to file:line. */
  readonly call: string;
  readonly site: number;
  /** The rank that made the call (the sender of an unexpected message). */
  readonly caller: number;
  readonly detail: string;
}

export interface QueueEdge {
  /** `from` waits for `to`. */
  readonly from: number;
  readonly to: number;
  readonly kind: 'send' | 'receive';
  /** Part of a cycle of ranks waiting for each other. */
  readonly inCycle: boolean;
}

export interface MessageQueues {
  readonly entries: readonly QueueEntry[];
  readonly edges: readonly QueueEdge[];
  /** Each cycle's ranks, ascending. */
  readonly cycles: readonly (readonly number[])[];
}

/** What the queues are read from: the model and the matcher (EngineState has both). */
export interface QueueContext extends CheckContext {
  readonly matcher: Matcher;
}

function postedReceives(st: QueueContext): RecvOp[] {
  const out: RecvOp[] = [];
  for (const t of st.tracks) {
    if (t.ended !== undefined) continue;
    const cur = t.cur?.recv;
    if (cur !== undefined && !cur.done && cur.kind !== 'probe' && t.cur?.exited !== true) out.push(cur);
    t.pendingRecvs(out);
  }
  return out.sort((a, b) => a.order - b.order);
}

function sourceWorld(r: RecvOp): number {
  if (r.source === ANY_SOURCE) return -1;
  return r.comm.members[r.source] ?? -1;
}

export function messageQueues(st: QueueContext): MessageQueues {
  const entries: QueueEntry[] = [];
  const edges = new Map<string, { from: number; to: number; kind: 'send' | 'receive' }>();
  const edge = (from: number, to: number, kind: 'send' | 'receive') => {
    const key = `${from}>${to}`;
    if (!edges.has(key)) edges.set(key, { from, to, kind });
  };
  const sends: SendOp[] = [...st.matcher.unmatched()].sort((a, b) => a.order - b.order);
  for (const s of sends) {
    const pending = !s.done;
    entries.push({
      kind: pending ? 'send' : 'unexpected',
      rank: pending ? s.rank : s.dest,
      peer: pending ? s.dest : s.rank,
      tag: s.tag,
      comm: s.comm.name,
      count: s.count,
      call: s.fn.name,
      site: s.site,
      caller: s.rank,
      detail: pending ? describeOp(s) : `${describeOp(s)}: arrived, no receive posted`,
    });
    if (pending && st.tracks[s.rank]?.ended === undefined) edge(s.rank, s.dest, 'send');
  }
  for (const r of postedReceives(st)) {
    if (r.source === PROC_NULL) continue;
    const src = sourceWorld(r);
    entries.push({
      kind: 'receive',
      rank: r.rank,
      peer: src,
      tag: r.tag === ANY_TAG ? -1 : r.tag,
      comm: r.comm.name,
      count: r.count,
      call: r.fn.name,
      site: r.site,
      caller: r.rank,
      detail: describeOp(r),
    });
    if (src >= 0) edge(r.rank, src, 'receive');
    else for (const m of r.comm.members) if (m !== r.rank) edge(r.rank, m, 'receive');
  }
  // By rank, then sends, receives, unexpected; each in posting order (stable: the arrival order of ranks is not).
  const kindOrder = { send: 0, receive: 1, unexpected: 2 };
  entries.sort((a, b) => a.rank - b.rank || kindOrder[a.kind] - kindOrder[b.kind]);
  const list = [...edges.values()].sort((a, b) => a.from - b.from || a.to - b.to);
  const cycles = stronglyConnected(list);
  const cyclic = new Map<number, number>();
  cycles.forEach((c, i) => c.forEach((r) => cyclic.set(r, i)));
  return {
    entries,
    edges: list.map((e) => ({
      ...e,
      inCycle: cyclic.has(e.from) && cyclic.get(e.from) === cyclic.get(e.to),
    })),
    cycles,
  };
}

/** Tarjan's strongly connected components with more than one rank, or a rank with an edge to itself. */
function stronglyConnected(edges: readonly { from: number; to: number }[]): number[][] {
  const next = new Map<number, number[]>();
  for (const e of edges) addTo(next, e.from, e.to);
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const stack: number[] = [];
  const on = new Set<number>();
  const out: number[][] = [];
  let counter = 0;
  const visit = (v: number): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const comp: number[] = [];
      let w: number;
      do {
        w = stack.pop() as number;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (next.get(v) ?? []).includes(v)) out.push(comp.sort((a, b) => a - b));
    }
  };
  for (const v of [...next.keys()].sort((a, b) => a - b)) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
}
