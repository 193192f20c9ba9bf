/**
 * call-order: MPI called from threads beyond the level MPI_Init_thread granted.
 *
 * - Two calls of one rank in flight at once (an ENTER while the previous call has no EXIT yet) can only come
 *   from two threads: the shim's re-entry guard keeps a thread's calls from nesting, and a thread's records
 *   are contiguous in order. That is an error below MPI_THREAD_MULTIPLE.
 * - A call the shim flags as made from another thread than MPI_Init's (CallEnter.otherThread) is an error
 *   under MPI_THREAD_SINGLE and MPI_THREAD_FUNNELED, even when it does not overlap another call.
 *
 * The level is the one the program asked for (MPI_Init_thread's `required`; MPI_Init is MPI_THREAD_SINGLE):
 * both Open MPI and MPICH grant what is asked up to MULTIPLE. Only the first violation of each rank is
 * reported: after it, the rank's calls interleave and nothing more is certain. Lost records (an EXIT dropped
 * makes the next ENTER look concurrent) turn the overlap check off. The same violation at the same call sites
 * on several ranks is one finding with a location per rank; so that a rank whose stream arrives late still
 * joins it, the findings are held until the end of the run (or a deadlock) instead of reported at once.
 */
import type { CheckContext } from '../model/check-context';
import { num } from '../model/fn-roles';
import type { RankTrack } from '../model/rank-track';
import type { CallEnter, RawLocation } from '../model/types';

/** MPI_THREAD_SINGLE … MPI_THREAD_MULTIPLE: 0..3 in both Open MPI and MPICH (and in the hello's threadLevel). */
const LEVEL_NAMES = [
  'MPI_THREAD_SINGLE',
  'MPI_THREAD_FUNNELED',
  'MPI_THREAD_SERIALIZED',
  'MPI_THREAD_MULTIPLE',
] as const;
const MULTIPLE = 3;
const SERIALIZED = 2;

function levelName(level: number): string {
  return LEVEL_NAMES[level] ?? `thread level ${level}`;
}

/** The thread level a rank's MPI_Init / MPI_Init_thread asks for. */
export function onInitEnter(t: RankTrack, e: CallEnter): void {
  // `required` is MPI_Init_thread's only 'value' parameter (roles name parameters, see mpi-api.json).
  const required = e.fn.name === 'MPI_Init_thread' ? num(e, 0, 'value') : 0;
  t.threadLevel = Math.min(Math.max(required, 0), MULTIPLE);
}

/** "Rank 2" / "Ranks 0,1,2", and the verb's ending that goes with it. */
function whoCalls(ranks: readonly number[]): string {
  return ranks.length === 1 ? `Rank ${ranks[0]} calls` : `Ranks ${ranks.join(',')} call`;
}

/**
 * Called at every ENTER before it becomes the rank's current call. A violation is held (held-findings.ts) and
 * merged with the same violation at the same call sites on other ranks: reported at the end of the run.
 */
export function checkThreadLevel(st: CheckContext, t: RankTrack, e: CallEnter): void {
  const level = t.threadLevel;
  if (level === undefined || level >= MULTIPLE || t.threadReported) return;
  const prev = t.cur;
  // A call from a callback MPI runs inside the current call (an attribute's delete function) nests in it.
  const overlaps = prev !== undefined && !prev.exited && st.lost === 0 && e.nested !== true;
  const foreign = e.otherThread === true && level < SERIALIZED;
  if (!overlaps && !foreign) return;
  t.threadReported = true;
  const here: RawLocation = {
    rank: t.rank,
    site: e.site,
    call: e.fn.name,
    detail: foreign
      ? `${e.fn.name} from a thread other than the one that called MPI_Init`
      : `${e.fn.name} while another thread is in ${prev?.enter.fn.name ?? 'MPI'}`,
  };
  if (foreign) {
    st.held.add(`thread-foreign|${level}|${e.fn.name}`, t.rank, [here], (ranks, locations) => ({
      kind: 'call-order',
      severity: 'error',
      message: `${whoCalls(ranks)} ${e.fn.name} from a thread other than the one that called MPI_Init, but ${ranks.length === 1 ? 'the rank' : 'they'} asked for ${levelName(level)}: only the main thread may call MPI. Call MPI only from the main thread, or request MPI_THREAD_SERIALIZED (one thread at a time) or MPI_THREAD_MULTIPLE with MPI_Init_thread and check what it provides.`,
      locations,
    }));
    return;
  }
  const other = prev as NonNullable<typeof prev>;
  const inner: RawLocation = {
    rank: t.rank,
    site: other.enter.site,
    call: other.enter.fn.name,
    detail: `${other.enter.fn.name} in progress on another thread`,
  };
  const key = `thread-overlap|${level}|${other.enter.fn.name}|${e.fn.name}`;
  st.held.add(key, t.rank, [inner, here], (ranks, locations) => ({
    kind: 'call-order',
    severity: 'error',
    message: `${whoCalls(ranks)} ${e.fn.name} while another of ${ranks.length === 1 ? 'its' : 'their'} threads is still inside ${other.enter.fn.name}, but ${ranks.length === 1 ? 'the rank' : 'they'} asked for ${levelName(level)}: two threads may not be in MPI at the same time. Serialize the calls (one lock around every MPI call), or request MPI_THREAD_MULTIPLE with MPI_Init_thread and check what it provides.`,
    locations,
  }));
}
