/**
 * Buffers in the caller's stack frame (spec check stack-buffer-frame). The shim cannot know the local variable
 * a stack buffer lies in; it sends the buffer's offset from the caller's CFA and the bytes the call reaches. The
 * engine knows no binaries either: it passes each distinct description on as a candidate finding, which the
 * session judges against the caller's debug info (server/src/session/stack-objects.ts) and drops unless the
 * variable is smaller than what the call reaches. The ranks of one collective call that describe the same buffer
 * are one candidate with a location per rank, as the shim's other findings about a collective are, held until
 * every member has entered the call: the ranks may call it from different lines (the root from one branch, the
 * others from another), and each location is judged on its own.
 */
import type { CheckContext } from '../model/check-context';
import type { EngineFinding, RawLocation, ShimFindingEvent, StackBufferCandidate } from '../model/types';

export const STACK_BUFFER_CHECK = 'stack-buffer-frame';

interface Pending {
  readonly finding: EngineFinding;
  readonly locations: RawLocation[];
  readonly candidates: StackBufferCandidate[];
}

export function stackBufferCandidate(st: CheckContext, e: ShimFindingEvent): void {
  const [offset = 0, reach = 0, low = 0] = e.values;
  if (reach <= 0) return;
  const seen = st.memory('stack-buffer', () => new Set<string>());
  const key = `${e.rank}|${e.site}|${e.param}|${offset}|${reach}|${low}`;
  if (seen.has(key)) return;
  seen.add(key);
  const param = (e.param >= 0 ? e.fn.params[e.param]?.name : undefined) ?? 'buf';
  const location: RawLocation = {
    rank: e.rank,
    site: e.site,
    call: e.fn.name,
    detail: `${e.fn.name} (${param})`,
  };
  const candidate: StackBufferCandidate = { rank: e.rank, offset, reach, low, param };
  const coll = st.track(e.rank).call(e.seq)?.coll;
  const byInstance = st.memory('stack-buffer-colls', () => new Map<string, Pending>());
  // The same description (a buffer at the same place in the same frame, reaching as far) on another rank of the
  // instance joins its finding; once delivered, the first rank stands for all, as with the shim's other findings.
  const instance =
    coll !== undefined ? `${coll.comm.id}|${coll.index}|${param}|${offset}|${reach}|${low}` : undefined;
  const prior = instance !== undefined ? byInstance.get(instance) : undefined;
  if (prior !== undefined) {
    if (st.isPending(prior.finding) && !prior.locations.some((l) => l.rank === e.rank)) {
      const at = prior.locations.findIndex((l) => l.rank > e.rank);
      prior.locations.splice(at < 0 ? prior.locations.length : at, 0, location);
      prior.candidates.push(candidate);
    }
    return;
  }
  const locations = [location];
  const candidates = [candidate];
  const finding: EngineFinding = {
    kind: 'invalid-argument',
    severity: 'error',
    message: `${e.fn.name}'s ${param} reaches ${reach} bytes from the address it gives.`,
    locations,
    stackBuffer: candidates,
  };
  if (coll === undefined || instance === undefined) {
    st.report(finding);
    return;
  }
  byInstance.set(instance, { finding, locations, candidates });
  // Taken by the session once every member has entered the call, so that each rank's description has come (the
  // shim sends it right after the call's ENTER); reported at once, it left with the first rank's stream only.
  const { comm, index } = coll;
  st.reportWhen(finding, () => comm.entered.every((n) => n > index));
}
