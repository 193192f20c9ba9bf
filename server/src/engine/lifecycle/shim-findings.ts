/**
 * Findings the shim makes before a call reaches MPI (invalid arguments, modified send buffers). A collective
 * called with the same invalid argument on every rank is one finding, not one per rank.
 */
import { collSlotOf } from '../model/comms';
import type { CheckContext } from '../model/check-context';
import { num } from '../model/fn-roles';
import type { EngineFinding, FindingKind, RawLocation, Severity, ShimFindingEvent } from '../model/types';
import { MEMORY_CHECKS, memoryFinding } from './memory-access';
import { replayForced } from '../causal-order/replay-forced';
import { STACK_BUFFER_CHECK, stackBufferCandidate } from './stack-buffer';
import { isMpiVerdict, mpiVerdict } from './mpi-verdict';
import api from '../../../../native-shim/spec/mpi-api.json';

/** Each check's severity, as the spec declares it (error when it says none). */
const SEVERITY: ReadonlyMap<string, Severity> = new Map(
  api.checks.map((c): [string, Severity] => [c.id, 'severity' in c ? (c.severity as Severity) : 'error']),
);

/**
 * Notes of the shim that say one of its checks went off on the rank that sent them (a table full, a bound reached):
 * not findings; the report's "Not checked" names `checks`, with the ranks, and `reason` after them.
 */
export const SHIM_CHECKS_OFF: ReadonlyMap<string, { readonly checks: string; readonly reason: string }> =
  new Map(api.checks.flatMap((c) => ('off' in c && c.off !== undefined ? [[c.id, c.off] as const] : [])));

/** How a finding of each severity calls the argument. */
const WHAT: Readonly<Record<Severity, string>> = {
  error: 'an invalid argument',
  warning: 'an argument that fails on some MPI libraries',
  note: 'a legal but suspicious argument',
};

/** Checks whose id is itself a finding kind (send-buffer-modified); the others are invalid arguments. */
const OWN_KIND: ReadonlySet<string> = new Set(['send-buffer-modified']);

/**
 * Messages for checks whose values say more than the spec's one-line text. bsend-buffer-too-small's values are
 * [bytes needed (MPI_Pack_size + MPI_BSEND_OVERHEAD), bytes attached, packed size].
 */
function specificMessage(
  e: ShimFindingEvent,
): { message: string; detail: string; collective?: string } | undefined {
  if (e.check === 'bsend-buffer-too-small') {
    const [need = 0, have = 0] = e.values;
    const attached = have > 0 ? `only ${have} bytes are attached` : 'no buffer is attached';
    return {
      message: `Rank ${e.rank}'s ${e.fn.name} needs ${need} bytes of buffer space (MPI_Pack_size of the message + MPI_BSEND_OVERHEAD), but ${attached} with MPI_Buffer_attach: MPI fails the send or sends it unbuffered. Attach a buffer of at least that size for every buffered message that can be pending at once.`,
      detail: `${e.fn.name} needs ${need} bytes, ${have > 0 ? `${have} attached` : 'none attached'}`,
    };
  }
  if (e.check === 'heap-buffer-too-small') {
    const [reach = 0, room = 0] = e.values;
    const param = (e.param >= 0 ? e.fn.params[e.param]?.name : undefined) ?? 'buf';
    return {
      message: `Rank ${e.rank}'s ${e.fn.name} reads or writes ${reach} bytes from ${param} (count × the datatype's extent), but ${param} lies in a heap block (malloc) that ends ${room} bytes after it: the call reaches past the memory the program allocated. Allocate count × the datatype's size bytes, or pass a smaller count.`,
      detail: `${e.fn.name}: ${param} reaches ${reach} bytes, its heap block ends after ${room}`,
      // One finding for the ranks of a collective: the numbers are each rank's, in its location.
      collective: `${e.fn.name}'s ${param} reaches past the end of its heap block (malloc) on the ranks below: the call reads or writes more bytes from ${param} than the block holds. Allocate as many bytes as the call reaches, or pass a smaller count or size.`,
    };
  }
  return undefined;
}

/**
 * The value of the offending argument, when the check's value word is one (a rank, a count, an extent); handle
 * words and flags say nothing to a reader, and checks about NULL carry 0.
 */
function valueText(e: ShimFindingEvent): string {
  if (e.check === 'dims-exceed-comm')
    return `: ${e.values[0]} processes needed, the communicator has ${e.values[1]}`;
  if (e.check === 'dims-not-divisor')
    return `: fixed extents multiply to ${e.values[0]}, nnodes is ${e.values[1]}`;
  if (e.check === 'zero-stride') return `: triplet ${e.values[0]}`;
  return NO_VALUE.has(e.check) ? '' : ` = ${e.values[0]}`;
}

/** Checks whose value word is a handle or nothing. */
const NO_VALUE: ReadonlySet<string> = new Set([
  'null-pointer',
  'overlapping-recv-type',
  'null-group',
  'null-file',
  'null-info',
  'null-errhandler',
  'empty-group',
  'intercomm-not-allowed',
  'intracomm-not-allowed',
  'missing-topology',
  'free-predefined',
  'commit-predefined',
  'commit-committed',
  'buffer-attached-twice',
  'detach-without-attach',
]);

/** Locations of a merged finding stay in rank order, whatever order the ranks' streams arrive in. */
function addInRankOrder(locations: RawLocation[], l: RawLocation): void {
  const at = locations.findIndex((m) => m.rank > l.rank);
  if (at < 0) locations.push(l);
  else locations.splice(at, 0, l);
}

type Merged = Map<string, { finding: EngineFinding; locations: RawLocation[]; ranks: Set<number> }>;

export function shimFinding(st: CheckContext, e: ShimFindingEvent): void {
  // The memcheck mode's findings are about the program's loads and stores, not about a call's arguments.
  if (MEMORY_CHECKS.has(e.check)) return memoryFinding(st, e);
  // A replay run's forced receive: a note, and the call is not rejected (it runs as MPI got it).
  if (e.check === 'replay-forced') return replayForced(st, e);
  // A stack buffer's description: a candidate the session judges with the caller's debug info; the call stands.
  if (e.check === STACK_BUFFER_CHECK) return stackBufferCandidate(st, e);
  // MPI's own error in the call, or a crash inside it: the call was not refused by the shim.
  if (isMpiVerdict(e.check)) return mpiVerdict(st, e);
  // Not a finding: the shim says one of its checks is off from here on, for the report's "Not checked".
  if (SHIM_CHECKS_OFF.has(e.check)) return st.shimCheckOff(e.check, e.rank);
  const t = st.track(e.rank);
  // The offending call's arguments were refused: it matches no message (the ENTER precedes the FINDING).
  const call = t.call(e.seq);
  if (call !== undefined) call.rejected = true;
  const kind: FindingKind = OWN_KIND.has(e.check) ? (e.check as FindingKind) : 'invalid-argument';
  const param = e.param >= 0 ? e.fn.params[e.param] : undefined;
  const specific = specificMessage(e);
  const severity = SEVERITY.get(e.check) ?? 'error';
  let location: RawLocation = {
    rank: e.rank,
    site: e.site,
    call: e.fn.name,
    detail: specific?.detail ?? `${e.fn.name}: ${e.message}`,
  };
  // The shim finds a modified send buffer when the send completes (in its Wait/Test); values[0] is the send's
  // request id. The finding belongs to the send that was given the buffer.
  const send = e.check === 'send-buffer-modified' ? t.sendCreator(e.values[0] ?? 0) : undefined;
  if (send !== undefined) {
    location = {
      rank: e.rank,
      site: send.site,
      call: send.fn.name,
      detail: `${send.fn.name}'s buffer modified before its ${e.fn.name} completed it`,
    };
  }

  let key: string | undefined;
  // A collective call (communicator constructors and topologies included: they are collective too) made with the
  // same invalid argument on several ranks is one finding for that instance.
  if (e.fn.cls === 'collective' || e.fn.cls === 'icollective' || call?.coll !== undefined) {
    const comm =
      call?.coll?.comm ?? st.comms.lookup(e.rank, call !== undefined ? num(call.enter, 0, 'comm') : 0);
    const index =
      call?.coll !== undefined
        ? call.coll.index
        : (comm.entered[collSlotOf(comm, e.rank)] ?? 0) - (call !== undefined ? 1 : 0);
    key = `${e.check}|${e.fn.name}|${comm.id}|${index}`;
    const byKey = st.memory('shim-findings', (): Merged => new Map());
    const prior = byKey.get(key);
    if (prior !== undefined) {
      // Still waiting in the findings queue: add this rank to it; already delivered: the first rank stands for all.
      if (st.isPending(prior.finding)) addInRankOrder(prior.locations, location);
      return;
    }
    const locations = [location];
    const finding: EngineFinding = {
      kind,
      severity,
      message:
        specific?.collective ??
        `${e.fn.name} is called with ${WHAT[severity]} on ${comm.name}: ${e.message}${param ? ` (${param.name})` : ''}. ${severity === 'note' ? 'Check that this is what is meant' : 'Fix the argument'} on every rank.`,
      locations,
    };
    byKey.set(key, { finding, locations, ranks: new Set([e.rank]) });
    // Taken by the session once every member has entered the call (each that makes the mistake has said so).
    const entered = comm.entered;
    st.reportWhen(finding, () => entered.every((n) => n > index));
    return;
  }
  // The same check failing at the same call site on several ranks (each rank builds the same bad group) is one
  // finding with a location per rank; a modified send buffer is about one send and stays alone.
  // Call sites are addresses that differ between processes, so the same site is told by the count: the k-th such
  // finding of a function on one rank goes with the k-th of the others.
  if (kind === 'invalid-argument') {
    const byKey = st.memory('shim-findings', (): Merged => new Map());
    const counts = st.memory('shim-finding-counts', () => new Map<string, number>());
    const countKey = `${e.rank}|${e.check}|${e.fn.name}`;
    const k = counts.get(countKey) ?? 0;
    counts.set(countKey, k + 1);
    const siteKey = `${e.check}|${e.fn.name}|#${k}`;
    const message =
      specific?.message ??
      `${e.fn.name} is called with ${WHAT[severity]}: ${e.message}${param ? ` (${param.name}${valueText(e)})` : ''}.`;
    const prior = byKey.get(siteKey);
    if (prior !== undefined) {
      if (prior.ranks.has(e.rank)) return;
      prior.ranks.add(e.rank);
      if (st.isPending(prior.finding)) addInRankOrder(prior.locations, location);
      // Taken already (the error showed at once): this rank's part goes on its own with the same key, and the
      // session adds it to the first finding's locations.
      else st.report({ kind, severity, message, locations: [location], merge: siteKey });
      return;
    }
    const locations = [location];
    const finding: EngineFinding = { kind, severity, message, locations, merge: siteKey };
    byKey.set(siteKey, { finding, locations, ranks: new Set([e.rank]) });
    st.report(finding);
    return;
  }
  st.report({
    kind,
    severity,
    message:
      specific?.message ??
      (kind === 'send-buffer-modified'
        ? `Rank ${e.rank} wrote into the buffer of a pending ${send?.fn.name ?? 'send'} before it completed: the message may carry the new data or the old. Wait for the send (MPI_Wait) before reusing its buffer.`
        : `Rank ${e.rank} calls ${e.fn.name} with ${WHAT[severity]}: ${e.message}${param ? ` (${param.name}${valueText(e)})` : ''}.`),
    locations: [location],
  });
}
