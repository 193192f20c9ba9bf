/**
 * Data checks of one collective call once every member has entered it: the amounts each member gives must
 * be the amounts the others expect (count-mismatch), with the same type signature (type-mismatch) and, for
 * reductions, the same op (collective-mismatch).
 */
import type { CollCall, CollInstance, CommInfo } from './comms';
import { describeData, opNames, signatureMismatch, type DtypeInfo } from './datatypes';
import type { EngineState } from './engine-state';
import { list, num } from './fn-roles';
import type { FindingKind, RawLocation } from './types';

interface Side {
  readonly call: CollCall;
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
}

const REDUCTIONS = new Set(['reduce', 'allreduce', 'scan', 'exscan', 'reduce_scatter_block']);
/** Collectives where every member sends to and receives from every member. */
const EXCHANGES = new Set(['alltoall', 'alltoallv', 'allgather', 'allgatherv']);

function sideOf(st: EngineState, call: CollCall, count: string[], type: string[]): Side {
  return {
    call,
    count: num(call.enter, 0, ...count),
    dtype: st.dtypes.type(call.rank, num(call.enter, 0, ...type)),
  };
}

function bytes(s: Side): number | undefined {
  return s.dtype === undefined ? undefined : s.count * s.dtype.size;
}

function loc(s: Side, what: string): RawLocation {
  return {
    rank: s.call.rank,
    site: s.call.site,
    call: s.call.fn,
    detail: `${s.call.fn} ${what} ${describeData(s.count, s.dtype)}`,
  };
}

export function checkCollectiveData(st: EngineState, comm: CommInfo, inst: CollInstance): void {
  const calls = inst.calls.filter((c): c is CollCall => c !== undefined);
  const first = calls[0];
  if (first === undefined) return;
  const coll = first.enter.fn.coll ?? '';
  const report = (kind: FindingKind, message: string, locations: RawLocation[]) =>
    st.report({
      kind,
      severity: 'error',
      message: `${message} (${first.fn} on ${comm.name}, collective #${inst.index + 1}).`,
      locations,
    });

  if (coll === 'bcast' || REDUCTIONS.has(coll)) {
    const sides = calls.map((c) => sideOf(st, c, ['count'], ['datatype']));
    const ref =
      (coll === 'bcast' || coll === 'reduce'
        ? sides.find((s) => s.call.root === comm.members.indexOf(s.call.rank))
        : undefined) ?? sides[0];
    if (ref === undefined) return;
    const refBytes = bytes(ref);
    const countOff = sides.filter(
      (s) => bytes(s) !== undefined && refBytes !== undefined && bytes(s) !== refBytes,
    );
    if (countOff.length > 0) {
      report(
        'count-mismatch',
        `Rank ${ref.call.rank} ${coll === 'bcast' ? 'broadcasts' : 'contributes'} ${describeData(ref.count, ref.dtype)} (${refBytes} bytes) but ${countOff.map((s) => `rank ${s.call.rank} expects ${describeData(s.count, s.dtype)} (${bytes(s)} bytes)`).join(', ')}. Every rank must give the same count and type`,
        [loc(ref, 'with'), ...countOff.map((s) => loc(s, 'with'))],
      );
      return;
    }
    const typeOff = sides.filter(
      (s) => s !== ref && s.dtype && ref.dtype && signatureMismatch(ref.dtype, ref.count, s.dtype, s.count),
    );
    if (typeOff.length > 0) {
      report(
        'type-mismatch',
        `Rank ${ref.call.rank} uses ${describeData(ref.count, ref.dtype)} but ${typeOff.map((s) => `rank ${s.call.rank} uses ${describeData(s.count, s.dtype)}`).join(', ')}. Use the same datatype on every rank`,
        [loc(ref, 'with'), ...typeOff.map((s) => loc(s, 'with'))],
      );
      return;
    }
    if (REDUCTIONS.has(coll)) {
      const opOf = (c: CollCall) => st.dtypes.op(c.rank, num(c.enter, 0, 'op'));
      const refOp = opOf(ref.call);
      const opOff = calls.filter((c) => {
        const o = opOf(c);
        return refOp !== undefined && refOp >= 0 && o !== undefined && o >= 0 && o !== refOp;
      });
      if (opOff.length > 0 && refOp !== undefined) {
        const name = (o: number | undefined) => (o === undefined ? '?' : (opNames[o] ?? 'a user op'));
        report(
          'collective-mismatch',
          `Rank ${ref.call.rank} reduces with ${name(refOp)} but ${opOff.map((c) => `rank ${c.rank} with ${name(opOf(c))}`).join(', ')}. Every rank must use the same op`,
          [ref.call, ...opOff].map((c) => ({
            rank: c.rank,
            site: c.site,
            call: c.fn,
            detail: `${c.fn} with ${name(opOf(c))}`,
          })),
        );
      }
    }
    return;
  }

  if (EXCHANGES.has(coll)) {
    checkExchange(st, comm, calls, coll, report);
    return;
  }

  // Rooted gathers and scatters: what each member gives or takes against what the root expects for it.
  const rootCall = calls.find((c) => c.root >= 0 && comm.members[c.root] === c.rank);
  if (rootCall === undefined || !['gather', 'gatherv', 'scatter', 'scatterv'].includes(coll)) return;
  const gather = coll.startsWith('gather');
  const rootType = st.dtypes.type(rootCall.rank, num(rootCall.enter, 0, gather ? 'rtype' : 'stype'));
  const perRank = coll.endsWith('v') ? list(rootCall.enter, gather ? 'rcounts' : 'scounts') : undefined;
  const rootCount = num(rootCall.enter, 0, gather ? 'rcount' : 'scount');
  const off: { side: Side; expect: number }[] = [];
  for (const c of calls) {
    const side = sideOf(st, c, [gather ? 'scount' : 'rcount'], [gather ? 'stype' : 'rtype']);
    const i = comm.members.indexOf(c.rank);
    const expectCount = perRank !== undefined ? (perRank[i] ?? 0) : rootCount;
    const have = bytes(side);
    if (have === undefined || rootType === undefined) continue;
    // MPI_IN_PLACE at the root sends nothing of its own: skip it.
    if (c === rootCall && num(c.enter, 0, 'sbuf') === -1) continue;
    if (have !== expectCount * rootType.size) off.push({ side, expect: expectCount });
  }
  if (off.length > 0) {
    report(
      'count-mismatch',
      `The root (rank ${rootCall.rank}) expects ${off.map((o) => `${describeData(o.expect, rootType)} from rank ${o.side.call.rank}, which ${gather ? 'sends' : 'takes'} ${describeData(o.side.count, o.side.dtype)}`).join('; ')}. Make each rank's count match the root's`,
      [
        { rank: rootCall.rank, site: rootCall.site, call: rootCall.fn, detail: `${rootCall.fn} at the root` },
        ...off.filter((o) => o.side.call !== rootCall).map((o) => loc(o.side, gather ? 'sends' : 'takes')),
      ],
    );
  }
}

/** Count and type one member's call sends to (or, recv, expects from) member `peer` of an exchange. */
function partOf(st: EngineState, c: CollCall, coll: string, peer: number, me: number, recv: boolean): Side {
  // MPI_IN_PLACE: the data sent come from the receive buffer, with the receive counts and type.
  const fromRecv = recv || num(c.enter, 0, 'sbuf') === -1;
  const perPeer = fromRecv ? coll.endsWith('v') : coll === 'alltoallv';
  // In place, an all-gather sends its own block: the receive count of its own index.
  const index = !recv && coll.startsWith('allgather') ? me : peer;
  const count = perPeer
    ? (list(c.enter, fromRecv ? 'rcounts' : 'scounts')[index] ?? 0)
    : num(c.enter, 0, fromRecv ? 'rcount' : 'scount');
  return { call: c, count, dtype: st.dtypes.type(c.rank, num(c.enter, 0, fromRecv ? 'rtype' : 'stype')) };
}

/** All-to-all and all-gather: what member i sends to member j against what j expects from i, every pair. */
function checkExchange(
  st: EngineState,
  comm: CommInfo,
  calls: readonly CollCall[],
  coll: string,
  report: (kind: FindingKind, message: string, locations: RawLocation[]) => void,
): void {
  const off: { send: Side; recv: Side }[] = [];
  for (const a of calls) {
    const i = comm.members.indexOf(a.rank);
    for (const b of calls) {
      const j = comm.members.indexOf(b.rank);
      const send = partOf(st, a, coll, j, i, false);
      const recv = partOf(st, b, coll, i, j, true);
      const [sb, rb] = [bytes(send), bytes(recv)];
      if (sb !== undefined && rb !== undefined && sb !== rb) off.push({ send, recv });
    }
  }
  const [head] = off;
  if (head === undefined) return;
  const pair = (o: { send: Side; recv: Side }) =>
    `rank ${o.send.call.rank} sends ${describeData(o.send.count, o.send.dtype)} to rank ${o.recv.call.rank}, which expects ${describeData(o.recv.count, o.recv.dtype)} from it`;
  const more = off.length > 3 ? ` (and ${off.length - 3} more pairs)` : '';
  report(
    'count-mismatch',
    `The amounts of an exchange disagree: ${off.slice(0, 3).map(pair).join('; ')}${more}. What a rank sends to another must be what that one expects from it: ${coll === 'alltoallv' ? "one rank's send counts are the others' receive counts (exchange them first, e.g. with MPI_Alltoall)" : 'make the counts and types agree'}`,
    calls.map((c) => ({
      rank: c.rank,
      site: c.site,
      call: c.fn,
      detail: off.some((o) => o.send.call === c || o.recv.call === c)
        ? `${c.fn}: its counts disagree with its peers'`
        : `${c.fn}`,
    })),
  );
}
