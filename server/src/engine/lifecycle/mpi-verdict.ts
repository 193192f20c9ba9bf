/**
 * MPI's own verdict on a call: the library failed it under MPI_ERRORS_ARE_FATAL (the shim's fatal-error handler
 * sends the error code and class, check `mpi-error`), or the rank died of a signal inside it (`crash-in-call`).
 * Either is a finding at that call. Not when the shim already refused the call's arguments (its finding says
 * why, more precisely); and the session drops it when another finding names the same call (a truncated receive
 * whose message the engine matched: its count-mismatch says more), so it is marked `mpiVerdict`.
 * A call that fails under MPI_ERRORS_RETURN (or a handler of the program's) never gets here: the program is told
 * and may handle the code, which is legal.
 */
import type { CheckContext } from '../model/check-context';
import type { EngineFinding, FindingKind, RawLocation, ShimFindingEvent } from '../model/types';
import api from '../../../../native-shim/spec/mpi-api.json';

export const MPI_ERROR_CHECK = 'mpi-error';
export const CRASH_IN_CALL_CHECK = 'crash-in-call';

interface ErrorClass {
  readonly name: string;
  readonly kind: FindingKind;
  readonly text: string;
}

/** MPI's error classes by the spec's id (errorClasses): the shim sends the id, since the libraries' numbers differ. */
const CLASSES: readonly ErrorClass[] = api.errorClasses.map((c) => ({
  name: c.class,
  kind: c.kind as FindingKind,
  text: c.text,
}));

/** What the finding suggests, by the class's kind. */
const ADVICE: Readonly<Partial<Record<FindingKind, string>>> = {
  'count-mismatch': 'Receive into a buffer (count × datatype) large enough for the message that arrives.',
  'request-misuse': 'Pass only requests that are active or MPI_REQUEST_NULL, and complete each one once.',
  'call-order':
    'Open and close the access epoch (fence, lock/unlock, start/complete) around the one-sided calls.',
};

const SIGNALS: Readonly<Record<number, string>> = {
  4: 'SIGILL',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  11: 'SIGSEGV',
};

type Merged = Map<string, { finding: EngineFinding; locations: RawLocation[] }>;

export function isMpiVerdict(check: string): boolean {
  return check === MPI_ERROR_CHECK || check === CRASH_IN_CALL_CHECK;
}

export function mpiVerdict(st: CheckContext, e: ShimFindingEvent): void {
  const t = st.track(e.rank);
  // The shim refused the call's arguments first: its finding is the explanation (the call stays as it was: a
  // receive MPI truncated still consumed its message, so the call is not marked rejected here).
  if (t.call(e.seq)?.rejected === true) return;
  const fn = e.fn.name;
  // A crash inside MPI_Finalize is MPI's teardown tripping over what the program left behind (MPICH aborts on a
  // window never freed, an epoch never closed): the leak and epoch checks say what, at the calls that made it.
  if (e.check === CRASH_IN_CALL_CHECK && fn === 'MPI_Finalize') return;
  let kind: FindingKind;
  let message: string;
  let detail: string;
  let key: string;
  if (e.check === MPI_ERROR_CHECK) {
    const [code = 0, id = -1] = e.values;
    const cls = CLASSES[id];
    kind = cls?.kind ?? 'invalid-argument';
    const named = cls !== undefined ? `${cls.name} (${cls.text})` : `error code ${code}`;
    const advice =
      ADVICE[kind] ??
      'MPI checked the arguments and refused one of them: fix it (the MPI library printed which one and why).';
    message = `MPI failed rank ${e.rank}'s ${fn} with ${named}, and MPI_ERRORS_ARE_FATAL aborted the job. ${advice}`;
    detail = `${fn}: MPI raised ${cls?.name ?? `error ${code}`}`;
    key = `${e.check}|${fn}|${cls?.name ?? code}`;
  } else {
    const [signal = 0, address = 0] = e.values;
    const name = SIGNALS[signal] ?? `signal ${signal}`;
    const at = signal === 11 || signal === 7 ? ` at address 0x${address.toString(16)}` : '';
    kind = 'invalid-argument';
    message = `Rank ${e.rank} died of ${name}${at} inside ${fn}: MPI (or a function it called back) touched memory it could not, so an argument of the call is probably invalid — a buffer smaller than count × datatype or already freed, a NULL or uninitialised pointer or handle, a displacement or count past the end of the data.`;
    detail = `${fn}: the rank died of ${name} inside the call`;
    key = `${e.check}|${fn}|${signal}`;
  }
  const location: RawLocation = { rank: e.rank, site: e.site, call: fn, detail };
  // The same verdict on the k-th such call of several ranks (a collective every rank passed the same bad argument)
  // is one finding with a location per rank, while it is still waiting in the findings queue.
  const counts = st.memory('mpi-verdict-counts', () => new Map<string, number>());
  const countKey = `${e.rank}|${key}`;
  const k = counts.get(countKey) ?? 0;
  counts.set(countKey, k + 1);
  const byKey = st.memory('mpi-verdicts', (): Merged => new Map());
  const prior = byKey.get(`${key}|#${k}`);
  if (prior !== undefined) {
    if (st.isPending(prior.finding) && !prior.locations.some((l) => l.rank === e.rank)) {
      const at = prior.locations.findIndex((l) => l.rank > e.rank);
      if (at < 0) prior.locations.push(location);
      else prior.locations.splice(at, 0, location);
    }
    return;
  }
  const locations = [location];
  const finding: EngineFinding = { kind, severity: 'error', message, locations, mpiVerdict: true };
  byKey.set(`${key}|#${k}`, { finding, locations });
  st.report(finding);
}
