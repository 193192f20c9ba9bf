/**
 * Data checks of one collective call once every member has entered it: the amounts each member gives must
 * be the amounts the others expect (count-mismatch), with the same type signature (type-mismatch) and, for
 * reductions, the same op (collective-mismatch). Amounts whose bytes differ only because the types do (as
 * many elements on both sides: 1 × MPI_DOUBLE against 1 × MPI_INT) are a type-mismatch, not a
 * count-mismatch. One finding per instance. A negative count is the shim's invalid-argument (MPI refuses the
 * call): the amounts it would make disagree are not compared. On an intercommunicator the root (MPI_ROOT) is
 * compared with the other group; the other members of its group (MPI_PROC_NULL) take no part.
 */
import type { CollCall, CollInstance, CommInfo, TypesAt } from '../model/comms';
import { describeData, opNames, signatureMismatch, typeNotCount, type DtypeInfo } from '../model/datatypes';
import type { CheckContext } from '../model/check-context';
import { checkPairs, type CollReport } from './coll-pairs';
import { checkNeighbors } from './coll-neighbors';
import { argOf, hasRole, list, num } from '../model/fn-roles';
import {
  PROC_NULL,
  ROOT,
  type CallEnter,
  type FindingKind,
  type FunctionSpec,
  type Handle,
  type RawLocation,
} from '../model/types';

interface Side {
  readonly call: CollCall;
  readonly count: number;
  readonly dtype: DtypeInfo | undefined;
}

const REDUCTIONS = new Set(['reduce', 'allreduce', 'scan', 'exscan', 'reduce_scatter_block']);

const TYPE_ROLES = ['datatype', 'stype', 'rtype', 'stypes', 'rtypes'] as const;

/** No type named. */
const NO_TYPES: TypesAt = { get: () => undefined };

/**
 * One type named (what nearly every collective call is: a Bcast, an Allreduce, a Reduce, or a Gather of one type
 * both ways): the pair itself, not a Map per call (a Map and its tables per member of every collective was the
 * largest object `mpiscope report` of a ScaLAPACK run allocated per collective).
 */
class OneType implements TypesAt {
  constructor(
    private readonly handle: Handle,
    private readonly type: DtypeInfo,
  ) {}

  get(handle: Handle): DtypeInfo | undefined {
    return handle === this.handle ? this.type : undefined;
  }
}

/** Per function id, the roles of TYPE_ROLES it has (found once, not five lookups by role name per call). */
const typeRoles: (readonly string[] | undefined)[] = [];

function typeRolesOf(fn: FunctionSpec): readonly string[] {
  let roles = typeRoles[fn.id];
  if (roles === undefined) {
    roles = TYPE_ROLES.filter((role) => hasRole(fn, role));
    if (fn.id >= 0) {
      while (typeRoles.length <= fn.id) typeRoles.push(undefined);
      typeRoles[fn.id] = roles;
    }
  }
  return roles;
}

/** The handles typesAtEntry found (reused: one array for every call). */
const named: Handle[] = [];

/** The datatypes a collective call names (scalar and per-peer arrays), resolved as they are now, at its ENTER. */
export function typesAtEntry(st: CheckContext, e: CallEnter): TypesAt {
  if (named.length !== 0) named.length = 0;
  const roles = typeRolesOf(e.fn);
  for (let r = 0; r < roles.length; r++) {
    const v = argOf(e, roles[r] as string);
    if (typeof v === 'number') named.push(v);
    else if (v !== undefined) for (let i = 0; i < v.length; i++) named.push(v[i] as Handle);
  }
  let one: OneType | undefined;
  let oneHandle = NaN;
  let types: Map<Handle, DtypeInfo> | undefined;
  for (let i = 0; i < named.length; i++) {
    const handle = named[i] as Handle;
    const t = st.dtypes.type(e.rank, handle);
    if (t === undefined || handle === oneHandle) continue;
    if (one === undefined) {
      one = new OneType(handle, t);
      oneHandle = handle;
      continue;
    }
    if (types === undefined) types = new Map([[oneHandle, one.get(oneHandle) as DtypeInfo]]);
    types.set(handle, t);
  }
  return types ?? one ?? NO_TYPES;
}

function sideOf(call: CollCall, count: string, type: string): Side {
  return {
    call,
    count: num(call.enter, 0, count),
    dtype: call.types.get(num(call.enter, 0, type)),
  };
}

function bytes(s: Side): number | undefined {
  return s.dtype === undefined || s.count < 0 ? undefined : s.count * s.dtype.size;
}

/** "4 × MPI_INT (16 bytes)"; one derived type's description already gives its bytes. */
function amount(s: Side): string {
  const derived = s.count === 1 && s.dtype !== undefined && s.dtype.name === undefined;
  return `${describeData(s.count, s.dtype)}${derived ? '' : ` (${bytes(s)} bytes)`}`;
}

function loc(s: Side, what: string): RawLocation {
  return {
    rank: s.call.rank,
    site: s.call.site,
    call: s.call.fn,
    detail: `${s.call.fn} ${what} ${describeData(s.count, s.dtype)}`,
  };
}

export function checkCollectiveData(st: CheckContext, comm: CommInfo, inst: CollInstance): void {
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
    if (comm.remote === undefined && agree(calls, coll !== 'bcast')) return;
    // On an intercommunicator the root passes MPI_ROOT, and the other members of its group (MPI_PROC_NULL)
    // take no part in the data.
    const inter = comm.remote !== undefined;
    const sides = calls
      .filter((c) => !inter || c.root !== PROC_NULL)
      .map((c) => sideOf(c, 'count', 'datatype'))
      .filter((s) => s.count >= 0);
    const ref =
      (coll === 'bcast' || coll === 'reduce'
        ? sides.find((s) =>
            inter ? s.call.root === ROOT : s.call.root === comm.members.indexOf(s.call.rank),
          )
        : undefined) ?? sides[0];
    if (ref === undefined) return;
    const refBytes = bytes(ref);
    const bytesOff = sides.filter(
      (s) => bytes(s) !== undefined && refBytes !== undefined && bytes(s) !== refBytes,
    );
    const countOff = bytesOff.some((s) => !typeOnly(ref, s)) ? bytesOff : [];
    if (countOff.length > 0) {
      report(
        'count-mismatch',
        `Rank ${ref.call.rank} ${coll === 'bcast' ? 'broadcasts' : 'contributes'} ${amount(ref)} but ${countOff.map((s) => `rank ${s.call.rank} expects ${amount(s)}`).join(', ')}. Every rank must give the same count and type`,
        [loc(ref, 'with'), ...countOff.map((s) => loc(s, 'with'))],
      );
      return;
    }
    const typeOff = sides.filter(
      (s) =>
        s !== ref &&
        s.dtype &&
        ref.dtype &&
        (bytesOff.includes(s) || signatureMismatch(ref.dtype, ref.count, s.dtype, s.count)),
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
      const opOf = (c: CollCall) => c.op;
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

  if (coll.startsWith('neighbor_')) {
    // A halo exchange repeats its neighbourhood collective every step, and MPI may let a disagreement pass
    // (MPICH does not fail a block longer than its receive block): one finding per communicator and set of
    // call sites. Keyed by the communicator too, so that its owner alone decides it (the same with any K).
    const seen = st.memory('neighbor-findings', () => new Set<string>());
    const key = `${comm.key}|${calls.map((c) => `${c.rank}:${c.site}`).join(',')}`;
    if (seen.has(key)) return;
    checkNeighbors(comm, inst.calls, coll, (kind, message, locations) => {
      seen.add(key);
      report(kind, message, locations);
    });
    return;
  }
  if (coll === 'reduce_scatter') {
    // On an intercommunicator each group passes its own recvcounts (one entry per member of that group,
    // MPI-3.1 §5.10.1): the members of one group are compared with each other only.
    if (comm.remote === undefined) checkSameCounts(calls, report);
    else
      for (const group of groupsOf(comm, calls))
        checkSameCounts(
          calls.filter((c) => group.includes(c.rank)),
          report,
        );
    return;
  }
  if (checkRootedCounts(comm, calls, coll, report)) return;
  checkPairs(comm, inst.calls, coll, report);
}

/**
 * What nearly every broadcast and reduction is, decided without the sides below (arrays and closures per
 * instance, 5% of `mpiscope report` of a ScaLAPACK run): every member gives the same count of one basic type
 * (the same size, the same uniform signature) and, for a reduction, the same op. Then no amount, type or op
 * differs and the checks below would report nothing.
 */
function agree(calls: readonly CollCall[], reduction: boolean): boolean {
  const a = calls[0];
  if (a === undefined) return true;
  const count = num(a.enter, 0, 'count');
  const t = a.types.get(num(a.enter, 0, 'datatype'));
  if (t === undefined || count < 0 || t.sig.uniform < 0) return false;
  for (let i = 1; i < calls.length; i++) {
    const c = calls[i] as CollCall;
    if (num(c.enter, 0, 'count') !== count || (reduction && c.op !== a.op)) return false;
    const u = c.types.get(num(c.enter, 0, 'datatype'));
    if (u === undefined || u.size !== t.size || u.sig.uniform !== t.sig.uniform) return false;
  }
  return true;
}

/** The two amounts' bytes differ only because their types do (as many elements, other signatures). */
function typeOnly(a: Side, b: Side): boolean {
  return (
    a.dtype !== undefined &&
    b.dtype !== undefined &&
    typeNotCount(a.dtype, a.count, b.dtype, b.count) !== undefined
  );
}

/** The local groups (world ranks) of an intercommunicator's members that made these calls, each once. */
function groupsOf(comm: CommInfo, calls: readonly CollCall[]): (readonly number[])[] {
  const groups = new Map<string, readonly number[]>();
  for (const c of calls) {
    const g = comm.local?.get(c.rank);
    if (g !== undefined) groups.set(g.join(','), g);
  }
  return [...groups.values()];
}

/** MPI_Reduce_scatter: every member must pass the same recvcounts (the blocks each one gets). */
function checkSameCounts(calls: readonly CollCall[], report: CollReport): void {
  const [ref, ...rest] = calls;
  if (ref === undefined) return;
  const counts = (c: CollCall) => list(c.enter, 'rcounts').join(',');
  if (calls.some((c) => list(c.enter, 'rcounts').some((n) => n < 0))) return;
  const off = rest.filter((c) => counts(c) !== counts(ref));
  if (off.length === 0) return;
  report(
    'count-mismatch',
    `Rank ${ref.rank} passes recvcounts [${counts(ref)}] but ${off.map((c) => `rank ${c.rank} passes [${counts(c)}]`).join(', ')}. Every rank must pass the same recvcounts`,
    [ref, ...off].map((c) => ({
      rank: c.rank,
      site: c.site,
      call: c.fn,
      detail: `${c.fn} with recvcounts [${counts(c)}]`,
    })),
  );
}

/**
 * Rooted gathers and scatters: what each member gives or takes against what the root expects for it. True
 * when it reported.
 */
function checkRootedCounts(
  comm: CommInfo,
  calls: readonly CollCall[],
  coll: string,
  report: CollReport,
): boolean {
  // On an intercommunicator the root passes MPI_ROOT and deals with the other group only (whose members name
  // it by a rank of its group), by their ranks in that group.
  const inter = comm.remote !== undefined;
  const rootCall = inter
    ? calls.find((c) => c.root === ROOT)
    : calls.find((c) => c.root >= 0 && comm.members[c.root] === c.rank);
  if (rootCall === undefined || !['gather', 'gatherv', 'scatter', 'scatterv'].includes(coll)) return false;
  const peers = inter ? (comm.remote?.get(rootCall.rank) ?? []) : comm.members;
  const gather = coll.startsWith('gather');
  const rootType = rootCall.types.get(num(rootCall.enter, 0, gather ? 'rtype' : 'stype'));
  const perRank = coll.endsWith('v') ? list(rootCall.enter, gather ? 'rcounts' : 'scounts') : undefined;
  const rootCount = num(rootCall.enter, 0, gather ? 'rcount' : 'scount');
  const off: { side: Side; expect: number }[] = [];
  for (const c of calls) {
    if (inter && c.root < 0) continue; // the root's group
    const side = sideOf(c, gather ? 'scount' : 'rcount', gather ? 'stype' : 'rtype');
    const i = peers.indexOf(c.rank);
    const expectCount = perRank !== undefined ? (perRank[i] ?? 0) : rootCount;
    const have = bytes(side);
    if (have === undefined || rootType === undefined || expectCount < 0) continue;
    // MPI_IN_PLACE at the root sends nothing of its own: skip it.
    if (c === rootCall && num(c.enter, 0, 'sbuf') === -1) continue;
    if (have !== expectCount * rootType.size) off.push({ side, expect: expectCount });
  }
  if (off.length === 0) return false;
  const rootSide = (o: { expect: number }): Side => ({ call: rootCall, count: o.expect, dtype: rootType });
  const what = gather ? 'sends' : 'takes';
  const locations = [
    { rank: rootCall.rank, site: rootCall.site, call: rootCall.fn, detail: `${rootCall.fn} at the root` },
    ...off.filter((o) => o.side.call !== rootCall).map((o) => loc(o.side, what)),
  ];
  if (off.every((o) => typeOnly(rootSide(o), o.side))) {
    report(
      'type-mismatch',
      `The root (rank ${rootCall.rank}) expects ${off.map((o) => `${describeData(o.expect, rootType)} from rank ${o.side.call.rank}, which ${what} ${describeData(o.side.count, o.side.dtype)}`).join('; ')}: as many elements, of another type. Use the same datatype as the root`,
      locations,
    );
    return true;
  }
  report(
    'count-mismatch',
    `The root (rank ${rootCall.rank}) expects ${off.map((o) => `${describeData(o.expect, rootType)} from rank ${o.side.call.rank}, which ${what} ${describeData(o.side.count, o.side.dtype)}`).join('; ')}. Make each rank's count match the root's`,
    locations,
  );
  return true;
}
