/**
 * Collective calls per communicator, in call order. MPI requires every member to call the same
 * collectives in the same order, so the n-th collective of one member meets the n-th of every other.
 * An instance lives until all members entered it; one whose members disagree stays (and is reported).
 */
import { commRankOf, type CollInstance, type CommInfo } from '../model/comms';
import type { CheckContext } from '../model/check-context';
import { hasRole, num } from '../model/fn-roles';
import { checkCollectiveData, typesAtEntry } from './coll-checks';
import type { EngineFinding, CallEnter, RawLocation } from '../model/types';

export interface CollRef {
  readonly comm: CommInfo;
  readonly index: number;
}

export function enterCollective(st: CheckContext, e: CallEnter, comm: CommInfo): CollRef | undefined {
  const me = commRankOf(comm, e.rank);
  if (me < 0) return undefined;
  const index = comm.entered[me] ?? 0;
  comm.entered[me] = index + 1;
  let inst = comm.open.get(index);
  if (inst === undefined) {
    inst = { index, calls: new Array<undefined>(comm.size), arrived: 0, mismatched: false };
    comm.open.set(index, inst);
  }
  const call = {
    rank: e.rank,
    fn: e.fn.name,
    seq: e.seq,
    site: e.site,
    root: num(e, -1, 'root'),
    enter: e,
    types: typesAtEntry(st, e),
    op: hasRole(e.fn, 'op') ? st.dtypes.op(e.rank, num(e, 0, 'op')) : undefined,
  };
  inst.calls[me] = call;
  inst.arrived++;
  if (!inst.mismatched) {
    const first = inst.calls.find((c) => c !== undefined && c !== call);
    if (first !== undefined && (first.fn !== call.fn || first.root !== call.root)) {
      inst.mismatched = true;
      // Every shard follows the instances (the wait-for graph and the replay need them); the owner of the
      // communicator checks them.
      if (st.owns.comm(comm.key)) st.asOwner(() => st.report(mismatchFinding(comm, inst)));
    }
  }
  if (inst.arrived === comm.size && !inst.mismatched) {
    comm.open.delete(index);
    if (st.owns.comm(comm.key)) st.asOwner(() => checkCollectiveData(st, comm, inst));
  } else e.keepWords(); // the data checks read its words when the last member enters, in a later batch
  return { comm, index };
}

function mismatchFinding(comm: CommInfo, inst: CollInstance): EngineFinding {
  const calls = inst.calls.filter((c) => c !== undefined);
  const first = calls[0];
  const other = calls.find((c) => c.fn !== first?.fn || c.root !== first.root);
  const what = (c: { rank: number; fn: string; root: number }) =>
    `rank ${c.rank} calls ${c.fn}${c.root >= 0 && other?.fn === first?.fn ? ` with root ${c.root}` : ''}`;
  const locations: RawLocation[] = calls.map((c) => ({
    rank: c.rank,
    site: c.site,
    call: c.fn,
    detail: `${c.fn}${c.root >= 0 ? ` (root ${c.root})` : ''} as collective #${inst.index + 1} on ${comm.name}`,
  }));
  return {
    kind: 'collective-mismatch',
    severity: 'error',
    message:
      `Collective mismatch on ${comm.name}: ${first ? what(first) : ''} but ${other ? what(other) : ''} as collective #${inst.index + 1} ` +
      `on this communicator. Every rank of a communicator must call the same collectives, with the same root, in the same order.`,
    locations,
  };
}

/**
 * At the end of a run that did not finish (a rank aborted, often inside that very collective): the data
 * checks of the collectives some members never reached, over the members whose calls arrived.
 */
export function checkOpenCollectives(st: CheckContext): void {
  for (const comm of st.comms.all())
    for (const inst of comm.open.values())
      if (!inst.mismatched && inst.arrived >= 2 && st.owns.comm(comm.key))
        st.asOwner(() => checkCollectiveData(st, comm, inst));
}
