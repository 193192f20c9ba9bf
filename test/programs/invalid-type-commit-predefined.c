/* mpiscope-test
 * ranks: 1
 * expect: invalid-argument warning lines 14
 */
/* MPI_Type_commit of MPI_INT: predefined types are committed already (a warning: some MPIs accept it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Datatype t = MPI_INT;
    MPI_Init(&argc, &argv);
    MPI_Type_commit(&t);
    MPI_Finalize();
    return 0;
}
