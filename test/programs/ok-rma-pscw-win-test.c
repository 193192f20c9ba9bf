/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Generalized active target closed by polling: rank 0 exposes its window to rank 1 and, instead of blocking in
 * MPI_Win_wait, polls MPI_Win_test until it returns true (which closes the exposure epoch), then exposes it again
 * and closes that one with MPI_Win_wait. Rank 1 puts into it in two access epochs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *mem, vals[2] = {5, 6}, peer, flag = 0, polls = 0;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);

    for (int it = 0; it < 2; it++) {
        if (rank == 0) {
            MPI_Win_post(peer_group, 0, win);
            if (it == 0) {
                while (!flag) {
                    MPI_Win_test(win, &flag);
                    polls++;
                }
            } else {
                MPI_Win_wait(win);
            }
            if (mem[it] != vals[it]) printf("epoch %d: got %d\n", it, mem[it]);
        } else {
            MPI_Win_start(peer_group, 0, win);
            MPI_Put(&vals[it], 1, MPI_INT, 0, it, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }

    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return polls < 0;
}
