/* mpiscope-test
 * ranks: 2
 * expect: buffer-overlap lines 20
 */
/* Rank 0 posts a receive into buf[0..1], then a helper from a header posts another into buf[1..2] before the
 * first completed: buffer-overlap at the two MPI_Irecv lines, one here and one in the header. The header's line
 * must be named in the header: only line 20 is this file's. (GNU addr2line 2.40 reports the header's MPI_Irecv
 * at line 7 of this file: the helper is the first code of the compilation unit's DWARF 5 line table.) */
#include "buffer-overlap-irecv-in-header.h"
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    int buf[4] = {0, 0, 0, 0};
    MPI_Request r[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(buf, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        post_second_half(buf + 1, 1, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        printf("%d %d %d\n", buf[0], buf[1], buf[2]);
    } else if (rank == 1) {
        int v[2] = {1, 2};
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Send(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
