/* mpiscope-test
 * ranks: 2
 * mode: memcheck
 * expect: none
 */
/* Rank 0 exposes its window to rank 1 and, while the epoch is open, stores only into elements rank 1 does not
 * put to (0-3) and loads element 6; it updates element 5, the one rank 1 puts to, after MPI_Win_wait closed the
 * epoch. In the second epoch, closed by polling MPI_Win_test, it stores element 7 once the test returned true. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, *base, one = 1, peer, flag = 0, sum = 0;
    MPI_Group world_group, peer_group;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    peer = 1 - rank;
    MPI_Group_incl(world_group, 1, &peer, &peer_group);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_post(peer_group, 0, win);
        for (int i = 0; i < 4; i++)
            base[i] = i + 1;
        sum += base[6];
        MPI_Win_wait(win);
        base[5] += 10;
        MPI_Win_post(peer_group, 0, win);
        while (!flag)
            MPI_Win_test(win, &flag);
        base[7] += 10;
        printf("%d %d %d\n", base[5], base[7], sum);
    } else {
        for (int e = 0; e < 2; e++) {
            MPI_Win_start(peer_group, 0, win);
            MPI_Put(&one, 1, MPI_INT, 0, 5 + 2 * e, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
