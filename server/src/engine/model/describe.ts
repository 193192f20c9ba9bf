/** Words for findings: how ranks, operations and calls are named to the user. Never on the hot path. */
import { peerWorld, type CommInfo } from './comms';
import type { P2pOp } from './ops';
import type { RankTrack } from './rank-track';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, ROOT } from './types';

/** "rank 3", or "rank 1 (world rank 3)" on a communicator whose ranks differ from the world's. */
export function peerName(comm: CommInfo, commRank: number, me: number): string {
  if (commRank === ANY_SOURCE) return 'any rank';
  const world = peerWorld(comm, me, commRank);
  if (comm.remote !== undefined) return `remote rank ${commRank} (world rank ${world ?? '?'})`;
  return world === undefined || world === commRank
    ? `rank ${commRank}`
    : `rank ${commRank} (world rank ${world})`;
}

/** A root argument as the user wrote it (MPI_ROOT and MPI_PROC_NULL on an intercommunicator). */
export function rootName(root: number): string {
  return root === ROOT ? 'MPI_ROOT' : root === PROC_NULL ? 'MPI_PROC_NULL' : `${root}`;
}

/**
 * Whether a collective call names a root worth showing: a rank, or on an intercommunicator MPI_ROOT or
 * MPI_PROC_NULL (the root's group passes those instead of a rank). -1: the function has no root.
 */
export function namesRoot(comm: CommInfo, root: number): boolean {
  return root >= 0 || (comm.remote !== undefined && (root === ROOT || root === PROC_NULL));
}

export function tagName(tag: number): string {
  return tag === ANY_TAG ? 'any tag' : `tag ${tag}`;
}

/** "MPI_Recv from rank 1, tag 7 on MPI_COMM_WORLD" */
export function describeOp(op: P2pOp): string {
  if (op.kind === 'send') {
    return `${op.fn.name} to ${peerName(op.comm, op.destCommRank, op.rank)}, ${tagName(op.tag)} on ${op.comm.name}`;
  }
  return `${op.fn.name} from ${peerName(op.comm, op.source, op.rank)}, ${tagName(op.tag)} on ${op.comm.name}`;
}

/** What a rank is doing, as a clause after its name: "which already finalized", "which is in MPI_Recv". */
export function doing(t: RankTrack | undefined): string {
  if (t === undefined || !t.started) return 'which has not started';
  if (t.ended === 'finalized') return 'which already finalized';
  if (t.ended !== undefined) return `which already ended (${t.ended})`;
  if (t.inCall && t.cur) return `which is in ${t.cur.enter.fn.name}`;
  return 'which is running';
}

/** "ranks 2,3" / "rank 2" */
export function ranksName(ranks: readonly number[]): string {
  return ranks.length === 1 ? `rank ${ranks[0]}` : `ranks ${ranks.join(',')}`;
}
