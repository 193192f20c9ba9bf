/**
 * The note of a replay run (`mpiscope run --replay-race`): the shim forced one wildcard receive to take the chosen
 * sender's message (native-shim/src/msc_replay.c) and says so with a FINDING of check `replay-forced` right after
 * that call's ENTER. It is not an argument error: the call runs and matches as MPI got it (the ENTER already
 * carries the forced source), so it only becomes a note that places the forcing at its call site and tells the
 * session the receive was reached.
 */
import type { CheckContext } from '../model/check-context';
import type { ShimFindingEvent } from '../model/types';

export function replayForced(st: CheckContext, e: ShimFindingEvent): void {
  // Words: the receive's number among its rank's wildcard receives, the source forced (communicator rank),
  // and the sender's world rank.
  const [wildcard = 0, source = 0, sender = 0] = e.values;
  st.report({
    kind: 'message-race',
    severity: 'note',
    message: `Replayed the other way: rank ${e.rank}'s ${e.fn.name} (its wildcard receive number ${wildcard}) was forced to receive from rank ${sender} (rank ${source} of its communicator) instead of from any rank; the rest of the job ran free.`,
    locations: [
      {
        rank: e.rank,
        site: e.site,
        call: e.fn.name,
        detail: `${e.fn.name} forced to take rank ${sender}'s message`,
      },
    ],
    race: {
      id: `${e.rank}.${wildcard}.${sender}`,
      rank: e.rank,
      wildcard,
      took: sender,
      alternatives: [],
      forced: true,
    },
  });
}
