/**
 * Collectives where every member sends to every other (allgather, allgatherv, alltoall, alltoallv,
 * alltoallw), and the rooted ones' type signatures: for each ordered pair (i sends to j), what i gives for j
 * must be what j expects from i — the same number of bytes (count-mismatch), then the same type signature
 * (type-mismatch; also when only the types make the bytes differ: as many elements on both sides). Per-pair counts and types come from the v/w arrays. With MPI_IN_PLACE a member's own block
 * is described by its receive arguments. Intercommunicators are left alone (their blocks go to the remote
 * group), and so are all-to-all instances of more than MAX_MEMBERS members (the check is quadratic; the report's
 * "Not checked" names them: collectives.ts); a rooted one's pairs are one per member, checked at any size.
 */
import type { CollCall, CommInfo } from '../model/comms';
import { describeData, signatureMismatch, typeNotCount, type DtypeInfo } from '../model/datatypes';
import { list, num } from '../model/fn-roles';
import type { FindingKind, RawLocation } from '../model/types';

export const MAX_MEMBERS = 256;

/** The collectives whose pairs are every member with every other: those the bound above stops. */
export function allPairs(coll: string | undefined): boolean {
  return coll === 'allgather' || coll === 'allgatherv' || (coll?.startsWith('alltoall') ?? false);
}
const IN_PLACE = -1;
/** Pairs named in a finding's message; the rest are counted. */
const SHOWN = 3;

export interface Block {
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
}

type BlockOf = (call: CollCall, peer: number) => Block;

/** A type the call named, as it was when the call was entered. */
function typeOf(call: CollCall, handle: number): DtypeInfo | undefined {
  return call.types.get(handle);
}

/** What member `call` receives from communicator rank `peer`. */
function recvBlock(coll: string): BlockOf {
  return (call, peer) => {
    const e = call.enter;
    if (coll === 'alltoallw')
      return { count: list(e, 'rcounts')[peer] ?? 0, dtype: typeOf(call, list(e, 'rtypes')[peer] ?? 0) };
    const count =
      coll === 'allgatherv' || coll === 'alltoallv' ? (list(e, 'rcounts')[peer] ?? 0) : num(e, 0, 'rcount');
    return { count, dtype: typeOf(call, num(e, 0, 'rtype')) };
  };
}

/** What member `call` sends to communicator rank `peer`. */
function sendBlock(coll: string, self: (c: CollCall) => number): BlockOf {
  const recv = recvBlock(coll);
  return (call, peer) => {
    const e = call.enter;
    // In place: the member's own block of the receive buffer is what it contributes.
    if (num(e, 0, 'sbuf') === IN_PLACE)
      return coll.startsWith('alltoall') ? recv(call, peer) : recv(call, self(call));
    if (coll === 'alltoallw')
      return { count: list(e, 'scounts')[peer] ?? 0, dtype: typeOf(call, list(e, 'stypes')[peer] ?? 0) };
    const count = coll === 'alltoallv' ? (list(e, 'scounts')[peer] ?? 0) : num(e, 0, 'scount');
    return { count, dtype: typeOf(call, num(e, 0, 'stype')) };
  };
}

/** A negative count is the shim's invalid-argument, not a disagreement: such a block is not compared. */
const bytes = (b: Block): number | undefined =>
  b.dtype === undefined || b.count < 0 ? undefined : b.count * b.dtype.size;

export interface Pair {
  readonly from: CollCall;
  readonly to: CollCall;
  readonly sent: Block;
  readonly expected: Block;
}

export type CollReport = (kind: FindingKind, message: string, locations: RawLocation[]) => void;

/**
 * Checks the pairs of one collective instance whose members all entered; reports at most one finding
 * (count-mismatch first: a type comparison of blocks of different lengths says nothing more).
 */
export function checkPairs(
  comm: CommInfo,
  calls: readonly (CollCall | undefined)[],
  coll: string,
  report: CollReport,
): void {
  // Every member with every other is quadratic: past MAX_MEMBERS not checked, and named (collectives.ts). The
  // rooted collectives' pairs are one per member: checked whatever the size.
  if (comm.remote !== undefined || (calls.length > MAX_MEMBERS && allPairs(coll))) return;
  const self = (c: CollCall) => comm.members.indexOf(c.rank);
  const pairs = pairsOf(calls, coll, comm);
  if (pairs === undefined) return;
  const send = sendBlock(coll, self);
  const recv = recvBlock(coll);
  const rooted = !coll.startsWith('all');
  const counted: Pair[] = [];
  const typed: Pair[] = [];
  for (const [i, j] of pairs) {
    const from = calls[i];
    const to = calls[j];
    if (from === undefined || to === undefined) continue;
    const sent = rooted && coll.startsWith('scatter') ? rootedScatter(from, j, coll) : send(from, j);
    const expected = rooted && coll.startsWith('gather') ? rootedGather(to, i, coll) : recv(to, i);
    classifyPair({ from, to, sent, expected }, rooted, counted, typed);
  }
  const present = calls.filter((c): c is CollCall => c !== undefined);
  reportPairs(present, counted, typed, rooted, coll, report);
}

/**
 * Sorts one pair: bytes that differ (counted; for an unrooted exchange only when not as many elements of other
 * types), or the same bytes of another type signature (typed). Blocks of unknown type or negative count are
 * not compared.
 */
export function classifyPair(p: Pair, rooted: boolean, counted: Pair[], typed: Pair[]): void {
  const { sent, expected } = p;
  const a = bytes(sent);
  const b = bytes(expected);
  if (a === undefined || b === undefined || sent.dtype === undefined || expected.dtype === undefined) return;
  // The rooted collectives' differing bytes are coll-checks.ts's (count or type, against the root).
  if (
    a !== b &&
    (rooted || typeNotCount(sent.dtype, sent.count, expected.dtype, expected.count) === undefined)
  )
    counted.push(p);
  else if (a !== b) typed.push(p);
  else if (signatureMismatch(sent.dtype, sent.count, expected.dtype, expected.count)) typed.push(p);
}

/** One finding for the pairs that disagree: count-mismatch first, else type-mismatch. */
export function reportPairs(
  present: readonly CollCall[],
  counted: readonly Pair[],
  typed: readonly Pair[],
  rooted: boolean,
  coll: string,
  report: CollReport,
): void {
  // The rooted collectives' byte counts are checked against the root in coll-checks.ts.
  if (counted.length > 0 && !rooted) {
    const advice = coll.startsWith('neighbor_')
      ? "a rank's block for a destination is that neighbour's block for it as a source, in the topology's order of neighbours (MPI_Cart_create: per dimension the negative direction, then the positive; MPI_Graph_create: the node's edges; MPI_Dist_graph_create_adjacent: the sources and destinations as given; MPI_Dist_graph_create: as MPI_Dist_graph_neighbors gives them)"
      : coll === 'alltoallv' || coll === 'alltoallw'
        ? "one rank's send counts are the others' receive counts (exchange them first, e.g. with MPI_Alltoall)"
        : 'make the counts and types agree';
    report(
      'count-mismatch',
      `The amounts of an exchange disagree: ${describePairs(counted)}. What a rank sends to another must be what that one expects from it: ${advice}`,
      locationsOf(present, counted),
    );
  } else if (typed.length > 0 && counted.length === 0) {
    report(
      'type-mismatch',
      `The types of ${rooted ? 'a gather or scatter' : 'an exchange'} disagree: ${describePairs(typed)}. Send and receive blocks must have the same type signature (the same basic types in the same order)`,
      locationsOf(present, typed),
    );
  }
}

/** The ordered pairs (sender, receiver) in communicator ranks, or undefined for other collectives. */
function pairsOf(
  calls: readonly (CollCall | undefined)[],
  coll: string,
  comm: CommInfo,
): [number, number][] | undefined {
  const n = calls.length;
  const all: [number, number][] = [];
  if (coll === 'allgather' || coll === 'allgatherv' || coll.startsWith('alltoall')) {
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) all.push([i, j]);
    return all;
  }
  const root = calls.find((c) => c !== undefined && c.root >= 0 && comm.members[c.root] === c.rank)?.root;
  if (root === undefined) return undefined;
  if (coll === 'gather' || coll === 'gatherv') {
    for (let i = 0; i < n; i++) if (i !== root) all.push([i, root]);
    return all;
  }
  if (coll === 'scatter' || coll === 'scatterv') {
    for (let j = 0; j < n; j++) if (j !== root) all.push([root, j]);
    return all;
  }
  return undefined;
}

/** The root of a gather: what it expects from communicator rank `peer`. */
function rootedGather(root: CollCall, peer: number, coll: string): Block {
  const e = root.enter;
  const count = coll === 'gatherv' ? (list(e, 'rcounts')[peer] ?? 0) : num(e, 0, 'rcount');
  return { count, dtype: typeOf(root, num(e, 0, 'rtype')) };
}

/** The root of a scatter: what it sends to communicator rank `peer`. */
function rootedScatter(root: CollCall, peer: number, coll: string): Block {
  const e = root.enter;
  const count = coll === 'scatterv' ? (list(e, 'scounts')[peer] ?? 0) : num(e, 0, 'scount');
  return { count, dtype: typeOf(root, num(e, 0, 'stype')) };
}

function describePairs(pairs: readonly Pair[]): string {
  // Bytes say more than counts when the two sides use types of different sizes.
  const size = (p: Pair, b: Block) =>
    p.sent.dtype?.size !== p.expected.dtype?.size ? ` (${bytes(b)} bytes)` : '';
  const shown = pairs
    .slice(0, SHOWN)
    .map(
      (p) =>
        `rank ${p.from.rank} sends ${describeData(p.sent.count, p.sent.dtype)}${size(p, p.sent)} to rank ${p.to.rank}, which expects ${describeData(p.expected.count, p.expected.dtype)}${size(p, p.expected)} from it`,
    );
  const more = pairs.length > SHOWN ? ` (and ${pairs.length - SHOWN} more pairs)` : '';
  return `${shown.join('; ')}${more}`;
}

/** Every member's call of the instance (the corpus rule for collectives), saying which disagree with whom. */
function locationsOf(calls: readonly CollCall[], pairs: readonly Pair[]): RawLocation[] {
  return calls.map((c) => {
    const sends = pairs.filter((p) => p.from === c).map((p) => p.to.rank);
    const expects = pairs.filter((p) => p.to === c && p.from !== c).map((p) => p.from.rank);
    const parts = [
      ...(sends.length > 0
        ? [`sends rank${sends.length > 1 ? 's' : ''} ${sends.join(',')} other than expected`]
        : []),
      ...(expects.length > 0
        ? [`expects otherwise from rank${expects.length > 1 ? 's' : ''} ${expects.join(',')}`]
        : []),
    ];
    return {
      rank: c.rank,
      site: c.site,
      call: c.fn,
      detail: parts.length > 0 ? `${c.fn}: ${parts.join('; ')}` : c.fn,
    };
  });
}
