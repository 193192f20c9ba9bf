/**
 * Findings the shim makes before a call reaches MPI (invalid arguments, modified send buffers). A collective
 * called with the same invalid argument on every rank is one finding, not one per rank.
 */
import { commRankOf } from '../model/comms';
import type { CheckContext } from '../model/check-context';
import { num } from '../model/fn-roles';
import type { EngineFinding, FindingKind, RawLocation, ShimFindingEvent } from '../model/types';
import { MEMORY_CHECKS, memoryFinding } from './memory-access';

/** Checks whose id is itself a finding kind (send-buffer-modified); the others are invalid arguments. */
const OWN_KIND: ReadonlySet<string> = new Set(['send-buffer-modified']);

/**
 * Messages for checks whose values say more than the spec's one-line text. bsend-buffer-too-small's values are
 * [bytes needed (MPI_Pack_size + MPI_BSEND_OVERHEAD), bytes attached, packed size].
 */
function specificMessage(e: ShimFindingEvent): { message: string; detail: string } | undefined {
  if (e.check === 'bsend-buffer-too-small') {
    const [need = 0, have = 0] = e.values;
    const attached = have > 0 ? `only ${have} bytes are attached` : 'no buffer is attached';
    return {
      message: `Rank ${e.rank}'s ${e.fn.name} needs ${need} bytes of buffer space (MPI_Pack_size of the message + MPI_BSEND_OVERHEAD), but ${attached} with MPI_Buffer_attach: MPI fails the send or sends it unbuffered. Attach a buffer of at least that size for every buffered message that can be pending at once.`,
      detail: `${e.fn.name} needs ${need} bytes, ${have > 0 ? `${have} attached` : 'none attached'}`,
    };
  }
  return undefined;
}

type Merged = Map<string, { finding: EngineFinding; locations: RawLocation[] }>;

export function shimFinding(st: CheckContext, e: ShimFindingEvent): void {
  // The memcheck mode's findings are about the program's loads and stores, not about a call's arguments.
  if (MEMORY_CHECKS.has(e.check)) return memoryFinding(st, e);
  const t = st.track(e.rank);
  // The offending call's arguments were refused: it matches no message (the ENTER precedes the FINDING).
  const call = t.call(e.seq);
  if (call !== undefined) call.rejected = true;
  const kind: FindingKind = OWN_KIND.has(e.check) ? (e.check as FindingKind) : 'invalid-argument';
  const param = e.param >= 0 ? e.fn.params[e.param] : undefined;
  const specific = specificMessage(e);
  let location: RawLocation = {
    rank: e.rank,
    site: e.site,
    call: e.fn.name,
    detail: specific?.detail ?? `${e.fn.name}: ${e.message}`,
  };
  // The shim finds a modified send buffer when the send completes (in its Wait/Test); values[0] is the send's
  // request id. The finding belongs to the send that was given the buffer.
  const send = e.check === 'send-buffer-modified' ? t.sendCreators.get(e.values[0] ?? 0) : undefined;
  if (send !== undefined) {
    location = {
      rank: e.rank,
      site: send.site,
      call: send.fn.name,
      detail: `${send.fn.name}'s buffer modified before its ${e.fn.name} completed it`,
    };
  }

  let key: string | undefined;
  if (e.fn.cls === 'collective' || e.fn.cls === 'icollective') {
    const comm = st.comms.lookup(e.rank, call !== undefined ? num(call.enter, 0, 'comm') : 0);
    const me = commRankOf(comm, e.rank);
    const index = (comm.entered[me] ?? 0) - (call !== undefined ? 1 : 0);
    key = `${e.check}|${e.fn.name}|${comm.id}|${index}`;
    const byKey = st.memory('shim-findings', (): Merged => new Map());
    const prior = byKey.get(key);
    if (prior !== undefined) {
      // Still waiting in the findings queue: add this rank to it; already delivered: the first rank stands for all.
      if (st.isPending(prior.finding)) prior.locations.push(location);
      return;
    }
    const locations = [location];
    const finding: EngineFinding = {
      kind,
      severity: 'error',
      message: `${e.fn.name} is called with an invalid argument on ${comm.name}: ${e.message}${param ? ` (${param.name})` : ''}. Fix the argument on every rank.`,
      locations,
    };
    byKey.set(key, { finding, locations });
    st.report(finding);
    return;
  }
  st.report({
    kind,
    severity: 'error',
    message:
      specific?.message ??
      (kind === 'send-buffer-modified'
        ? `Rank ${e.rank} wrote into the buffer of a pending ${send?.fn.name ?? 'send'} before it completed: the message may carry the new data or the old. Wait for the send (MPI_Wait) before reusing its buffer.`
        : `Rank ${e.rank} calls ${e.fn.name} with an invalid argument: ${e.message}${param ? ` (${param.name} = ${e.values[0]})` : ''}.`),
    locations: [location],
  });
}
