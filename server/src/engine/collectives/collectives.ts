/**
 * Collective calls per communicator, in call order. MPI requires every member to call the same
 * collectives in the same order, so the n-th collective of one member meets the n-th of every other.
 * An instance lives until all members entered it; one whose members disagree stays (and is reported).
 */
import { collSlotOf, type CollCall, type CollInstance, type CommInfo } from '../model/comms';
import type { CheckContext } from '../model/check-context';
import { namesRoot, rootName } from '../model/describe';
import { hasRole, num } from '../model/fn-roles';
import { checkCollectiveData, typesAtEntry } from './coll-checks';
import { allPairs, MAX_MEMBERS } from './coll-pairs';
import { PROC_NULL, ROOT, type EngineFinding, type CallEnter, type RawLocation } from '../model/types';

export interface CollRef {
  readonly comm: CommInfo;
  readonly index: number;
}

export function enterCollective(st: CheckContext, e: CallEnter, comm: CommInfo): CollRef | undefined {
  // An instance has a slot per member: on an intercommunicator both groups' members.
  const me = collSlotOf(comm, e.rank);
  if (me < 0) return undefined;
  const index = comm.entered[me] ?? 0;
  comm.entered[me] = index + 1;
  const inst = comm.open.get(index) ?? openInstance(comm, index);
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
  if (inst.first === undefined) inst.first = call;
  if (!inst.mismatched) {
    // On an intracommunicator the calls so far all agree (sameCall is then equality of function and root): the
    // first one stands for them all, instead of a search of the instance's slots (with a closure) per member.
    const first =
      comm.remote === undefined
        ? inst.first === call
          ? undefined
          : inst.first
        : disagreeing(comm, inst, call);
    if (first !== undefined && !sameCall(comm, first, call)) {
      inst.mismatched = true;
      // Every shard follows the instances (the wait-for graph and the replay need them); the owner of the
      // communicator checks them. On an intercommunicator the disagreement found first depends on the order
      // the members came in: it is reported once all are there (or at the end), over all of them.
      if (comm.remote === undefined && st.owns.comm(comm.key)) reportMismatch(st, comm, inst);
    }
  }
  if (inst.mismatched && comm.remote !== undefined && inst.arrived === comm.size && st.owns.comm(comm.key))
    reportMismatch(st, comm, inst);
  if (inst.arrived === comm.size && !inst.mismatched) {
    comm.open.delete(index);
    // The pairs of an all-to-all past the bound are not checked (coll-pairs.ts): every shard follows the
    // instances, so the global one, which names skipped checks, sees it whatever shard owns the communicator.
    if (comm.remote === undefined && comm.size > MAX_MEMBERS && allPairs(call.enter.fn.coll))
      st.boundReached('coll-pairs');
    if (st.owns.comm(comm.key)) checkData(st, comm, inst);
  } else e.keepWords(); // the data checks read its words when the last member enters, in a later batch
  return { comm, index };
}

/*
 * The closures of enterCollective's checks live in the functions below: a closure in enterCollective itself that
 * captured its variables (comm, inst, call) made it allocate a context at every member's call, whether or not
 * the closure was made (V8 makes a function's context when it is entered).
 */

function openInstance(comm: CommInfo, index: number): CollInstance {
  const inst: CollInstance = {
    index,
    calls: new Array<undefined>(comm.size),
    arrived: 0,
    mismatched: false,
    first: undefined,
  };
  comm.open.set(index, inst);
  return inst;
}

/** On an intercommunicator: a call of the instance that does not agree with `call`, if any. */
function disagreeing(comm: CommInfo, inst: CollInstance, call: CollCall): CollCall | undefined {
  return inst.calls.find((c) => c !== undefined && c !== call && !sameCall(comm, c, call));
}

function reportMismatch(st: CheckContext, comm: CommInfo, inst: CollInstance): void {
  st.asOwner(() => st.report(mismatchFinding(comm, inst)));
}

function checkData(st: CheckContext, comm: CommInfo, inst: CollInstance): void {
  st.asOwner(() => checkCollectiveData(st, comm, inst));
}

/**
 * Two members' calls of one instance agree: the same function and, on an intracommunicator, the same root.
 * On an intercommunicator (MPI-3.1 §5.2.2) the root's group passes MPI_ROOT at the root and MPI_PROC_NULL at
 * the others, and the other group passes the root's rank in the root's group: two calls of one group agree
 * when they name the same remote root or are both of the root's group with at most one MPI_ROOT; two calls of
 * different groups when one names the other's rank in its group exactly if that one is the root. Each pair
 * that disagrees is an error of the program, and every error of the roots makes some pair disagree.
 */
export function sameCall(comm: CommInfo, a: CollCall, b: CollCall): boolean {
  if (a.fn !== b.fn) return false;
  // -1: the function has no root.
  if (comm.remote === undefined || a.root === -1 || b.root === -1) return a.root === b.root;
  const here = (r: number) => r === ROOT || r === PROC_NULL;
  const ga = comm.local?.get(a.rank);
  const gb = comm.local?.get(b.rank);
  if (ga === undefined || gb === undefined) return true; // a group not known: say nothing
  if (ga[0] === gb[0])
    return (
      here(a.root) === here(b.root) && (here(a.root) ? a.root !== ROOT || b.root !== ROOT : a.root === b.root)
    );
  if (here(a.root) === here(b.root)) return false; // both groups hold the root, or neither
  const [named, holder, holderGroup] = here(a.root) ? [b.root, a, ga] : [a.root, b, gb];
  return (named === holderGroup.indexOf(holder.rank)) === (holder.root === ROOT);
}

function mismatchFinding(comm: CommInfo, inst: CollInstance): EngineFinding {
  const calls = inst.calls.filter((c) => c !== undefined);
  const first = calls[0];
  const other = first === undefined ? undefined : calls.find((c) => c !== first && !sameCall(comm, first, c));
  const rooted = (c: { root: number }) => namesRoot(comm, c.root);
  const what = (c: { rank: number; fn: string; root: number }) =>
    `rank ${c.rank} calls ${c.fn}${rooted(c) && other?.fn === first?.fn ? ` with root ${rootName(c.root)}` : ''}`;
  const locations: RawLocation[] = calls.map((c) => ({
    rank: c.rank,
    site: c.site,
    call: c.fn,
    detail: `${c.fn}${rooted(c) ? ` (root ${rootName(c.root)})` : ''} as collective #${inst.index + 1} on ${comm.name}`,
  }));
  return {
    kind: 'collective-mismatch',
    severity: 'error',
    message:
      `Collective mismatch on ${comm.name}: ${first ? what(first) : ''} but ${other ? what(other) : ''} as collective #${inst.index + 1} ` +
      `on this communicator. Every rank of a communicator must call the same collectives, with the same root, in the same order` +
      (comm.remote === undefined
        ? '.'
        : ": on an intercommunicator the root passes MPI_ROOT, the other ranks of its group MPI_PROC_NULL, and every rank of the other group the root's rank in the root's group."),
    locations,
  };
}

/**
 * At the end of a run: the intercommunicators' mismatched collectives some members never reached (reported
 * over the members whose calls arrived), and when the run did not finish (a rank aborted, often inside that
 * very collective) the data checks of the collectives some members never reached.
 */
export function checkOpenCollectives(st: CheckContext, dataChecks: boolean): void {
  for (const comm of st.comms.all())
    for (const inst of comm.open.values()) {
      if (!st.owns.comm(comm.key)) continue;
      if (inst.mismatched) {
        if (comm.remote !== undefined && inst.arrived < comm.size)
          st.asOwner(() => st.report(mismatchFinding(comm, inst)));
      } else if (dataChecks && inst.arrived >= 2) st.asOwner(() => checkCollectiveData(st, comm, inst));
    }
}
