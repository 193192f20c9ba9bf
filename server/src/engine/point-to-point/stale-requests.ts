/**
 * Stale request handles: a Wait, Test, Cancel, Start, Request_free or Request_get_status given a handle whose
 * request already completed and was freed (a nonblocking request completed by a Wait/Test, any request freed by
 * MPI_Request_free). MPI set the program's variable to MPI_REQUEST_NULL then, so a handle that still names the
 * request is a copy taken before: the object it points to is gone (or, once MPI reuses it, another request).
 *
 * A handle stops being stale when MPI hands it out again (the EXIT of a call that creates a request): it is a live
 * request then (RankTrack.requests), which checkStale asks first, and it leaves the live requests only where it is
 * retired again (completed or freed), which overwrites its entry. So handing it out does not delete its entry:
 * that was a lookup in a table of up to 65,536 handles per rank at every new request (a cache miss each, 5% of
 * the engine's time in bench/engine-throughput, whose handles are never reused). The one
 * blind spot: a request made by a function the shim does not intercept (MPI-IO's nonblocking calls, generalised
 * requests, request-based RMA) that reuses a retired handle looks stale too; mpi-api.json lists the others.
 */
import type { CheckContext } from '../model/check-context';
import { C, classOf } from '../model/fn-class';
import { list, RoleReader } from '../model/fn-roles';
import type { RankTrack } from '../model/rank-track';
import { DONE_REQUEST, type CallEnter, type Handle } from '../model/types';

/** The request named by `handle` is gone: completed and freed by `how` ("MPI_Wait", "MPI_Request_free"). */
export function retire(t: RankTrack, handle: Handle, how: string): void {
  if (handle === 0) return;
  t.retired.set(handle, how);
}

/** The request handles a call uses as inputs, for the classes that take existing requests. */
export function inputRequests(e: CallEnter): readonly Handle[] {
  // By class code (fn-class.ts), not a chain of comparisons of the class string: this runs at every ENTER.
  switch (classOf[e.fn.id]) {
    case C.WAIT:
    case C.TEST:
    case C.START:
    case C.REQUEST_FREE:
    case C.CANCEL:
    case C.REQUEST_GET_STATUS:
      return [REQUEST.num(e, 0)];
    case C.WAITALL:
    case C.WAITANY:
    case C.WAITSOME:
    case C.TESTALL:
    case C.TESTANY:
    case C.TESTSOME:
    case C.STARTALL:
      return list(e, 'requests');
    default:
      return NO_HANDLES;
  }
}

/** The 'request' argument's word by function id (fn-roles.ts RoleReader), not a Map lookup per Wait. */
const REQUEST = new RoleReader('request');

/** Most calls take no request: one shared empty list, not an array per call (this runs at every ENTER). */
const NO_HANDLES: readonly Handle[] = [];

/**
 * Called at the ENTER of every call, before the call's own bookkeeping consumes its requests. `inputs` is
 * inputRequests(e), read once by the caller (which keeps it as the call's waits).
 */
export function checkStale(st: CheckContext, t: RankTrack, e: CallEnter, inputs: readonly Handle[]): void {
  if (t.retired.empty) return;
  // By index: a for-of here allocated an iterator per call (it runs at every ENTER).
  for (let i = 0; i < inputs.length; i++) {
    const h = inputs[i] as Handle;
    if (h === 0 || t.requests.has(h)) continue;
    const how = t.retired.get(h);
    if (how === undefined) continue;
    const seen = st.memory('stale-requests', () => new Set<string>());
    // One finding per misusing call site and rank: a loop that waits on stale copies is one bug.
    const key = `${t.rank}:${e.site}`;
    if (seen.has(key)) return;
    seen.add(key);
    const freed =
      how === 'MPI_Request_free' ? 'was freed by MPI_Request_free' : `already completed in ${how}`;
    st.report({
      kind: 'request-misuse',
      severity: 'error',
      message: `Rank ${t.rank} calls ${e.fn.name} on a request that ${freed}: the handle is a stale copy (MPI set the original variable to MPI_REQUEST_NULL), and the request it named no longer exists. Complete each request once, through one variable, and do not keep copies of request handles.`,
      locations: [
        {
          rank: t.rank,
          site: e.site,
          call: e.fn.name,
          detail: `${e.fn.name} on a request that ${freed}`,
        },
      ],
    });
    return;
  }
}

/**
 * A call MPI failed (its EXIT carries an error: under MPI_ERRORS_ARE_FATAL the shim's handler records it before
 * the job aborts) that was given a request handle naming nothing this rank has: MPI never handed it out (an
 * uninitialized MPI_Request variable, typically) and it is not a retired copy (checkStale's case). Judged only
 * once MPI has rejected the call, never at ENTER: a request made by a function the shim does not intercept is
 * unknown too, and MPI accepts those. Runs on the error path only, so a Wait or Test costs nothing more.
 */
export function checkUnknownFailed(st: CheckContext, t: RankTrack, e: CallEnter): void {
  const inputs = inputRequests(e);
  for (let i = 0; i < inputs.length; i++) {
    const h = inputs[i] as Handle;
    if (h === 0 || h === DONE_REQUEST || t.requests.has(h) || t.retired.has(h)) continue;
    st.report({
      kind: 'invalid-argument',
      severity: 'error',
      message: `Rank ${t.rank} calls ${e.fn.name} with a request handle that names no request of this rank (MPI never returned it: an uninitialized MPI_Request variable?), and MPI failed the call. Give ${e.fn.name} only requests that a call returned, or MPI_REQUEST_NULL.`,
      locations: [
        {
          rank: t.rank,
          site: e.site,
          call: e.fn.name,
          detail: `${e.fn.name} on a request MPI never returned`,
        },
      ],
    });
    return;
  }
}
