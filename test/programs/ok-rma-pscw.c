/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Generalized active target: rank 0 exposes its window to rank 1 (post/wait), rank 1 puts two values
 * into it between start and complete. (MPI_Win_allocate: with MPI_Win_create on a stack array, MPICH 4.0.2's
 * PSCW puts landed one int early; see README.md.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mem, vals[2] = {5, 6}, peer;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);

    if (rank == 0) {
        MPI_Win_post(peer_group, 0, win);
        MPI_Win_wait(win);
        if (mem[0] != 5 || mem[1] != 6) printf("got %d %d\n", mem[0], mem[1]);
    } else {
        MPI_Win_start(peer_group, 0, win);
        MPI_Put(&vals[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Put(&vals[1], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }

    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
