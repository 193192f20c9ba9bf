/**
 * Neighbourhood collectives (MPI_Neighbor_allgather(v), _alltoall(v/w) and their nonblocking forms): each member
 * sends one block to each destination and receives one from each source of its communicator's process topology,
 * in the topology's order of neighbours (MPI-3.1 §7.6). For each edge (i sends its k-th block to j, which takes it
 * as its block for i among its sources) the sent block must be what j expects: the same bytes (count-mismatch),
 * the same type signature (type-mismatch), judged as the all-to-all pairs are (coll-pairs.ts). Only where every
 * member's neighbours are known (comms.ts: from the arguments of MPI_Cart_create, MPI_Graph_create,
 * MPI_Dist_graph_create_adjacent and their duplicates; else from MPI, which the shim asks when it describes a new
 * communicator: MPI_Cart_sub, MPI_Dist_graph_create), and an edge repeated between one pair (a periodic dimension
 * of 1 or 2 ranks, a doubled edge) is left out: which of its blocks meets which is the library's business.
 */
import { NO_NEIGHBOUR, type CollCall, type CommInfo, type Neighbours } from '../model/comms';
import { list, num } from '../model/fn-roles';
import { classifyPair, reportPairs, type Block, type CollReport, type Pair } from './coll-pairs';

const IN_PLACE = -1;

/** The k-th block a member sends (to its k-th destination). */
function sendBlock(call: CollCall, coll: string, k: number): Block | undefined {
  const e = call.enter;
  if (num(e, 0, 'sbuf') === IN_PLACE) return undefined; // not allowed: the shim's finding
  const count =
    coll === 'neighbor_alltoallv' || coll === 'neighbor_alltoallw'
      ? list(e, 'scounts')[k]
      : num(e, 0, 'scount');
  const type = coll === 'neighbor_alltoallw' ? list(e, 'stypes')[k] : num(e, 0, 'stype');
  if (count === undefined || type === undefined) return undefined;
  return { count, dtype: call.types.get(type) };
}

/** The m-th block a member receives (from its m-th source). */
function recvBlock(call: CollCall, coll: string, m: number): Block | undefined {
  const e = call.enter;
  const count =
    coll === 'neighbor_allgather' || coll === 'neighbor_alltoall'
      ? num(e, 0, 'rcount')
      : list(e, 'rcounts')[m];
  const type = coll === 'neighbor_alltoallw' ? list(e, 'rtypes')[m] : num(e, 0, 'rtype');
  if (count === undefined || type === undefined) return undefined;
  return { count, dtype: call.types.get(type) };
}

/** Positions of `x` in `list`. */
function positions(xs: readonly number[], x: number): number[] {
  const at: number[] = [];
  for (let i = 0; i < xs.length; i++) if (xs[i] === x) at.push(i);
  return at;
}

export function checkNeighbors(
  comm: CommInfo,
  calls: readonly (CollCall | undefined)[],
  coll: string,
  report: CollReport,
): void {
  const topo = comm.topo;
  if (topo === undefined || comm.remote !== undefined) return;
  const neighbours: (Neighbours | undefined)[] = calls.map((c) =>
    c === undefined ? undefined : topo.get(c.rank),
  );
  const counted: Pair[] = [];
  const typed: Pair[] = [];
  for (let i = 0; i < calls.length; i++) {
    const from = calls[i];
    const mine = neighbours[i];
    if (from === undefined || mine === undefined) continue;
    for (let k = 0; k < mine.dests.length; k++) {
      const j = mine.dests[k] as number;
      if (j === NO_NEIGHBOUR) continue;
      const to = calls[j];
      const theirs = neighbours[j];
      if (to === undefined || theirs === undefined) continue;
      // One edge between the two, each way it is listed: its blocks meet.
      if (positions(mine.dests, j).length !== 1) continue;
      const at = positions(theirs.sources, i);
      if (at.length !== 1) continue;
      const sent = sendBlock(from, coll, k);
      const expected = recvBlock(to, coll, at[0] as number);
      if (sent === undefined || expected === undefined) continue;
      classifyPair({ from, to, sent, expected }, false, counted, typed);
    }
  }
  const present = calls.filter((c): c is CollCall => c !== undefined);
  reportPairs(present, counted, typed, false, coll, report);
}
