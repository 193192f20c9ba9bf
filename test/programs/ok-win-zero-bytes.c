/* mpiscope-test
 * ranks: 3
 * expect: none
 */
/* Windows of zero bytes on some ranks, then on every rank (MPI_Win_allocate_shared, MPI_Win_allocate,
 * MPI_Win_create): a window of no bytes has no memory, whatever base address MPI hands out for it (Open MPI's
 * MPI_Win_allocate of 0 bytes can give one in the caller's stack), so its memory is never "in the stack frame of a function that has returned"
 * (MPICH's rma/win_zero.c does the same). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, shm_rank;
    void *base = NULL;
    MPI_Comm shm;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Comm_rank(shm, &shm_rank);
    MPI_Win_allocate_shared(shm_rank % 2, 1, MPI_INFO_NULL, shm, &base, &win);
    MPI_Win_free(&win);
    MPI_Win_allocate(rank % 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_free(&win);
    base = rank % 2 ? malloc(1) : NULL;
    MPI_Win_create(base, rank % 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    free(base);
    MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, shm, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_free(&win);
    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    MPI_Comm_free(&shm);
    MPI_Finalize();
    return 0;
}
