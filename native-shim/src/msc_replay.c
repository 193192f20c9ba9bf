/* Replaying a message race the other way (mpiscope run --replay-race ID): one wildcard receive of one rank is
 * turned into a receive from the chosen sender; every other call runs free.
 *
 * The session passes MPISCOPE_REPLAY_RACE=RANK:K:SENDER (world ranks; K counts from 1). The receive is named by
 * its rank and by how many wildcard receives that rank had posted, counted exactly as the engine counts them
 * (calls of the spec's replayClasses whose source is MPI_ANY_SOURCE, at their ENTER: server/src/engine/calls.ts),
 * so that a finding of one run names the same call in the next. The generated wrappers of those classes call
 * msc_replay_source before their ENTER words are taken, so the ENTER the analyzer sees carries the forced source
 * (its wait-for graph then treats the receive as what MPI got: a receive from one rank), and msc_replay_forced
 * after the ENTER, so the FINDING note that says what was forced follows its call.
 *
 * Cost when not replaying: one load of msc_replay_armed in the wrappers of the receive classes. */
#include <stdio.h>
#include <stdlib.h>

#include "msc_shim.h"

int msc_replay_armed;
static int want_k, want_sender;
static _Atomic int seen;

__attribute__((constructor)) static void msc_replay_setup(void)
{
    const char *v = getenv("MPISCOPE_REPLAY_RACE");
    int rank, k, sender;
    char end;
    if (!v || sscanf(v, "%d:%d:%d%c", &rank, &k, &sender, &end) != 3 || k < 1 || sender < 0) return;
    /* Only the receiving rank counts; the others never pay more than the load of the flag. */
    if (rank != msc_launcher_rank()) return;
    want_k = k;
    want_sender = sender;
    msc_replay_armed = 1;
}

/* The sender's rank in comm, or -1 when the sender is not a member (then the receive is left as the program
 * wrote it: forcing a source outside the communicator would be an invalid argument of ours). One group
 * translation, once per run: off the hot path by construction. */
static int comm_rank_of_world(MPI_Comm comm, int world)
{
    MPI_Group wg, cg;
    int out = MPI_UNDEFINED;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) return -1;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    int rc = inter ? PMPI_Comm_remote_group(comm, &cg) : PMPI_Comm_group(comm, &cg);
    if (rc == MPI_SUCCESS) {
        PMPI_Group_translate_ranks(wg, 1, &world, cg, &out);
        PMPI_Group_free(&cg);
    }
    PMPI_Group_free(&wg);
    return out == MPI_UNDEFINED ? -1 : out;
}

int msc_replay_source(int *source, MPI_Comm comm)
{
    if (*source != MPI_ANY_SOURCE) return 0;
    int n = atomic_fetch_add_explicit(&seen, 1, memory_order_relaxed) + 1;
    if (n != want_k) return 0;
    int r = comm_rank_of_world(comm, want_sender);
    if (r < 0) {
        fprintf(stderr,
                "mpiscope: --replay-race: rank %d is not a member of the communicator of this rank's wildcard "
                "receive number %d; the receive runs as the program wrote it\n",
                want_sender, want_k);
        return 0;
    }
    *source = r;
    return 1;
}

void msc_replay_forced(msc_call *c, int param, int source)
{
    msc_finding(c, MSC_CHECK_REPLAY_FORCED, param, want_k, source, want_sender);
    /* The note is not about arguments MPI may abort on: it needs no flush before the call is forwarded. */
    msc_findings_clear();
}
