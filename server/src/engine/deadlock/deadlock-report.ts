/**
 * Turns the deadlocked ranks of a wait-for graph into one finding: the ranks of the cycle (or the ones
 * waiting on a rank that ended) in order, then the ranks stuck only behind them, each with its blocking call
 * and what it waits for, and a sentence on what to change.
 */
import { describeOp, doing, namesRoot, peerName, ranksName, rootName, tagName } from '../model/describe';
import type { RecvOp, SendOp } from '../model/ops';
import {
  diffName,
  mismatchFindings,
  pairMismatches,
  type MismatchPair,
} from '../point-to-point/envelope-mismatch';
import { unstartedSendFindings } from './unstarted-send';
import type { EngineFinding, RawLocation } from '../model/types';
import {
  holdingItems,
  type Blocked,
  type DeadlockContext,
  type WaitGraph,
  type WaitItem,
} from './wait-graph';
import { addTo } from '../model/group-by';

interface Node {
  readonly b: Blocked;
  readonly holding: readonly WaitItem[];
  /** Deadlocked ranks it waits on. */
  readonly edges: readonly number[];
  /** Waits on something that can never happen (an ended rank, a mismatched collective). */
  readonly hopeless: boolean;
}

/** Strongly connected components (Tarjan), as lists of ranks. */
function components(nodes: ReadonlyMap<number, Node>): number[][] {
  let next = 0;
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const stack: number[] = [];
  const on = new Set<number>();
  const out: number[][] = [];
  const visit = (v: number): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of nodes.get(v)?.edges ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const comp: number[] = [];
      for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
        on.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      out.push(comp.sort((a, b) => a - b));
    }
  };
  for (const v of [...nodes.keys()].sort((a, b) => a - b)) if (!index.has(v)) visit(v);
  return out;
}

/** Shortest cycle through start inside a component (BFS), as ranks in wait order. */
function cycleFrom(start: number, nodes: ReadonlyMap<number, Node>, comp: ReadonlySet<number>): number[] {
  const prev = new Map<number, number>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i] as number;
    for (const w of nodes.get(v)?.edges ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let x = v; x !== start;) {
          x = prev.get(x) as number;
          path.push(x);
        }
        return path.reverse();
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** "ranks 2,3 which are in MPI_Reduce, rank 4 which is running" */
function groupByDoing(st: DeadlockContext, ranks: readonly number[]): string {
  const groups = new Map<string, number[]>();
  for (const r of ranks) {
    const d = doing(st.tracks[r]);
    addTo(groups, d, r);
  }
  return [...groups]
    .map(
      ([d, rs]) =>
        `${ranksName(rs)} ${rs.length > 1 ? d.replace('which is', 'which are').replace('which has', 'which have') : d}`,
    )
    .join(', ');
}

/**
 * The unreceived sends that the blocked receives most likely meant (`envelope-mismatch.ts`): the receives the
 * deadlock holds (`held`, none in flight), with the sends to their ranks that nothing will receive (not in flight,
 * not cancelled).
 */
function mismatches(
  st: DeadlockContext,
  held: readonly RecvOp[],
  inFlight: ReadonlySet<unknown>,
): MismatchPair[] {
  const recvs = [...held].sort((a, b) => a.order - b.order);
  const sends: SendOp[] = [];
  for (const dst of new Set(recvs.map((r) => r.rank)))
    for (const s of st.matcher.unmatchedTo(dst))
      if (!s.matched && !inFlight.has(s) && s.cancelCalled !== true) sends.push(s);
  return pairMismatches(recvs, sends, st.tracks);
}

function sentInstead(r: RecvOp, pairs: readonly MismatchPair[]): string {
  const p = pairs.find((x) => x.recv === r);
  if (p === undefined) return '';
  const s = p.send;
  const where = s.comm === r.comm ? '' : ` on ${s.comm.name}`;
  return ` (rank ${s.rank} sent ${tagName(s.tag)}${where} instead, with ${s.fn.name})`;
}

/** Advice for the first blocked receive whose peer sent it a message it cannot take. */
function missAdvice(nodes: readonly Node[], pairs: readonly MismatchPair[]): string | undefined {
  for (const n of nodes)
    for (const it of n.holding) {
      if (it.what.kind !== 'recv') continue;
      const r = it.what.op;
      const p = pairs.find((x) => x.recv === r);
      if (p === undefined) continue;
      const s = p.send;
      const theirs = s.comm === r.comm ? tagName(s.tag) : `${tagName(s.tag)} on ${s.comm.name}`;
      const mine = [
        p.diff.source ? `from ${peerName(r.comm, r.source, r.rank)},` : '',
        tagName(r.tag),
        s.comm === r.comm ? '' : `on ${r.comm.name}`,
      ]
        .filter((x) => x !== '')
        .join(' ');
      return `Rank ${s.rank} sent ${theirs} with ${s.fn.name} where rank ${r.rank} ${r.kind === 'recv' ? 'receives' : 'probes for'} ${mine}: make the send's and the receive's ${diffName(p.diff)} agree.`;
    }
  return undefined;
}

function itemDetail(
  st: DeadlockContext,
  item: WaitItem,
  canAct: readonly boolean[],
  pairs: readonly MismatchPair[],
): string {
  const w = item.what;
  const track = (r: number) => st.tracks[r];
  switch (w.kind) {
    case 'send':
    case 'recv': {
      const base = describeOp(w.op);
      const stuck = item.peers.filter((p) => canAct[p] !== true);
      if (w.op.kind === 'send' || !item.any) {
        const peer = item.peers[0] ?? -1;
        const t = track(peer);
        const gone = t !== undefined && (t.ended !== undefined || t.inFinalize);
        return (
          (gone ? `${base}, ${doing(t)}` : base) + (w.op.kind !== 'send' ? sentInstead(w.op, pairs) : '')
        );
      }
      return `${base}; every rank that could send is blocked or gone (${ranksName(stuck)})`;
    }
    case 'coll': {
      const name = `${w.coll.comm.open.get(w.coll.index)?.calls.find((c) => c !== undefined)?.fn ?? 'collective'}`;
      if (w.mismatch.length > 0) {
        const other = w.coll.comm.open
          .get(w.coll.index)
          ?.calls.find((c) => c !== undefined && w.mismatch.includes(c.rank));
        return `collective #${w.coll.index + 1} on ${w.coll.comm.name}: ${ranksName(w.mismatch)} called ${other?.fn ?? 'another collective'}${other && namesRoot(w.coll.comm, other.root) ? ` (root ${rootName(other.root)})` : ''} instead`;
      }
      return `on ${w.coll.comm.name} (collective #${w.coll.index + 1}, ${name}): waiting for ${groupByDoing(st, w.missing)}`;
    }
    case 'finalize':
      return `waiting for ${groupByDoing(st, w.missing)}`;
    case 'win-wait':
      return `waiting for the MPI_Win_complete of ${groupByDoing(st, w.missing)}`;
    case 'win-complete':
      return `waiting for the MPI_Win_post of ${groupByDoing(st, w.missing)}`;
  }
}

function locationOf(
  st: DeadlockContext,
  node: Node,
  canAct: readonly boolean[],
  pairs: readonly MismatchPair[],
  behind: boolean,
): RawLocation {
  const cur = node.b.track.cur;
  const call = cur?.enter.fn.name ?? 'MPI';
  let viaRequest = false;
  const parts = node.holding.map((it) => {
    const d = itemDetail(st, it, canAct, pairs);
    if (it.requestPos >= 0) {
      viaRequest = true;
      return `request ${it.requestPos} (${d}) never ${it.what.kind === 'send' ? 'received' : 'matched'}`;
    }
    if (it.what.kind === 'coll') return `${call} ${d}`;
    if (it.what.kind === 'finalize' || it.what.kind === 'win-wait' || it.what.kind === 'win-complete')
      return `${call}: ${d}`;
    if (cur?.enter.fn.cls === 'buffer_detach') return `${call} waits until ${d} is received`;
    return d;
  });
  const detail = (viaRequest ? `${call}: ` : '') + parts.join('; ');
  return {
    rank: node.b.track.rank,
    site: cur?.enter.site ?? 0,
    call,
    detail: behind ? `blocked behind the deadlock: ${detail}` : detail,
  };
}

/** "rank 0 waits in MPI_Recv for rank 1" */
function waitPhrase(st: DeadlockContext, node: Node, to: number | undefined): string {
  const call = node.b.track.cur?.enter.fn.name ?? 'MPI';
  if (to !== undefined) return `rank ${node.b.track.rank} waits in ${call} for rank ${to}`;
  const item = node.holding.find((it) => it.impossible) ?? node.holding[0];
  if (item?.what.kind === 'coll' && item.what.mismatch.length > 0) {
    return `rank ${node.b.track.rank} waits in ${call} on ${item.what.coll.comm.name}, where ${ranksName(item.what.mismatch)} called a different collective`;
  }
  const gone = item?.peers.find(
    (p) => st.tracks[p]?.ended !== undefined || st.tracks[p]?.inFinalize === true,
  );
  return `rank ${node.b.track.rank} waits in ${call} for rank ${gone ?? '?'}, ${doing(gone === undefined ? undefined : st.tracks[gone])}`;
}

function advice(
  nodes: readonly Node[],
  pairs: readonly MismatchPair[],
  unstarted: readonly EngineFinding[],
): string {
  const kinds = new Set(nodes.flatMap((n) => n.holding.map((it) => it.what.kind)));
  if (nodes.some((n) => n.holding.some((it) => it.what.kind === 'coll' && it.what.mismatch.length > 0))) {
    return 'Every rank of a communicator must call the same collectives, with the same root, in the same order.';
  }
  const miss = missAdvice(nodes, pairs);
  if (miss !== undefined) return miss;
  const never = unstarted[0]?.locations[0];
  if (never !== undefined) {
    const to = unstarted[0]?.locations[1]?.rank ?? '?';
    return `Rank ${never.rank}'s persistent send to rank ${to} (${never.call}) was never started: start it with MPI_Start before waiting for it.`;
  }
  if (nodes.some((n) => n.b.track.cur?.enter.fn.cls === 'buffer_detach')) {
    return 'MPI_Buffer_detach waits until every buffered message has been received: detach the buffer only once the receivers are sure to post their receives (after the point where they wait for this rank), or receive before waiting.';
  }
  if (nodes.some((n) => n.hopeless)) {
    return 'Make every receive (and collective) have its matching send (and call) on the other rank before that rank calls MPI_Finalize.';
  }
  if (kinds.size === 1 && kinds.has('recv')) {
    return 'Make one of them send first, or post the receives with MPI_Irecv before sending, or use MPI_Sendrecv.';
  }
  if (kinds.has('send') && !kinds.has('coll')) {
    return 'These sends complete only once the matching receive is posted (the library does not buffer them): post the receives first with MPI_Irecv, or use MPI_Sendrecv or MPI_Isend.';
  }
  if (kinds.has('win-complete')) {
    return 'MPI_Win_complete (and, on some libraries, MPI_Win_start) returns once every target named by the MPI_Win_start has exposed its window to this origin with MPI_Win_post: make each target post with a group that names the origin, or leave the target out of the start group.';
  }
  if (kinds.has('win-wait')) {
    return 'MPI_Win_wait returns once every origin named by the MPI_Win_post has called MPI_Win_start and MPI_Win_complete on the window: make each of them do so before it waits for the target.';
  }
  if (kinds.has('coll')) {
    return 'A rank waits in a collective for ranks that wait for it elsewhere: call the collective on every rank at the same point, or complete the point-to-point exchange before it.';
  }
  return 'Change the order of these calls so that one of them can complete.';
}

export function deadlockFinding(st: DeadlockContext, g: WaitGraph): EngineFinding | undefined {
  if (g.deadlocked.length === 0) return undefined;
  // A rank that aborted (MPI_Abort, or MPI's fatal error handler) takes the whole job down: whoever waits for
  // it is about to be killed by the launcher, not stuck. The abort's cause is the finding, not a deadlock.
  if (st.tracks.some((t) => t.ended === 'abort')) return undefined;
  const inSet = new Set(g.deadlocked.map((b) => b.track.rank));
  const nodes = new Map<number, Node>();
  for (const b of g.deadlocked) {
    const holding = holdingItems(b, g.canAct);
    const edges = [...new Set(holding.flatMap((it) => it.peers.filter((p) => inSet.has(p))))].sort(
      (x, y) => x - y,
    );
    const hopeless = holding.some(
      (it) =>
        it.impossible ||
        (!it.any &&
          it.peers.some(
            (p) => st.tracks[p]?.ended !== undefined || (st.tracks[p]?.inFinalize === true && !inSet.has(p)),
          )),
    );
    nodes.set(b.track.rank, { b, holding, edges, hopeless });
  }
  const core = new Set<number>();
  const cycles: number[][] = [];
  for (const comp of components(nodes)) {
    const first = comp[0] as number;
    const cyclic = comp.length > 1 || (nodes.get(first)?.edges.includes(first) ?? false);
    if (cyclic) {
      comp.forEach((r) => core.add(r));
      cycles.push(cycleFrom(first, nodes, new Set(comp)));
    }
  }
  for (const [r, n] of nodes) if (n.hopeless) core.add(r);
  if (core.size === 0) for (const r of inSet) core.add(r); // cannot happen with a finite graph; stay safe

  // The messages the held receives cannot take: named in the deadlock's words, and reported as their own
  // finding beside it (taken with the deadlock: the session takes findings right after findDeadlock()).
  const held: RecvOp[] = [];
  for (const n of nodes.values())
    for (const it of n.holding)
      if (it.what.kind === 'recv' && !g.inFlight.has(it.what.op)) held.push(it.what.op);
  const pairs = mismatches(st, held, g.inFlight);
  for (const f of mismatchFindings(pairs, true)) st.report(f);
  // The held receives no mismatch explains, whose sender made a persistent send and never started it.
  const paired = new Set(pairs.map((p) => p.recv));
  const alone = held.filter((r) => !paired.has(r)).sort((a, b) => a.rank - b.rank || a.order - b.order);
  const unstarted = unstartedSendFindings(st, alone);
  for (const f of unstarted) st.report(f);

  // Mark what is reported so that the end-of-run check does not report it again as unmatched.
  for (const n of nodes.values())
    for (const it of n.holding)
      if (it.what.kind === 'send' || it.what.kind === 'recv') it.what.op.reported = true;

  const phrases: string[] = [];
  const ordered: number[] = [];
  for (const cyc of cycles) {
    cyc.forEach((r, i) => {
      phrases.push(waitPhrase(st, nodes.get(r) as Node, cyc[(i + 1) % cyc.length]));
      ordered.push(r);
    });
  }
  for (const r of [...core].sort((a, b) => a - b)) {
    if (ordered.includes(r)) continue;
    phrases.push(waitPhrase(st, nodes.get(r) as Node, undefined));
    ordered.push(r);
  }
  const behind = [...inSet].filter((r) => !core.has(r)).sort((a, b) => a - b);
  const coreNodes = ordered.map((r) => nodes.get(r) as Node);
  const tail = phrases.length > 1 ? '; none of them can go on.' : '; it can never go on.';
  const others =
    behind.length > 0 ? ` ${ranksName(behind)} ${behind.length > 1 ? 'are' : 'is'} blocked behind them.` : '';
  // The ranks that ended while others wait for them: where they ended is half of the bug.
  const gone = new Map<number, number[]>();
  for (const r of ordered) {
    for (const it of (nodes.get(r) as Node).holding) {
      for (const p of it.peers) {
        const t = st.tracks[p];
        if (t !== undefined && !inSet.has(p) && (t.ended !== undefined || t.inFinalize) && !it.any) {
          // Each rank once: the ranks come one at a time (the outer loop), so a repeat is the list's last.
          const g = gone.get(p);
          if (g === undefined) gone.set(p, [r]);
          else if (g[g.length - 1] !== r) g.push(r);
        }
      }
    }
  }
  const goneLocations: RawLocation[] = [...gone].map(([p, waiting]) => {
    const t = st.tracks[p];
    const call = t?.lastCall || 'MPI_Finalize';
    return {
      rank: p,
      site: t?.lastSite ?? 0,
      call,
      detail: `${call}: ended while ${ranksName(waiting)} still ${waiting.length > 1 ? 'wait' : 'waits'} for it`,
    };
  });
  return {
    kind: 'deadlock',
    severity: 'error',
    message: `Deadlock: ${phrases.join(', ')}${tail}${others} ${advice(coreNodes, pairs, unstarted)}`,
    locations: [
      ...ordered.map((r) => locationOf(st, nodes.get(r) as Node, g.canAct, pairs, false)),
      ...goneLocations,
      ...behind.map((r) => locationOf(st, nodes.get(r) as Node, g.canAct, pairs, true)),
    ],
  };
}
