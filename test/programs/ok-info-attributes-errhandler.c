/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* Info objects, a communicator attribute with its keyval, and MPI_ERRORS_RETURN on a duplicate, all freed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Info info, copy;
    MPI_Comm dup;
    MPI_Errhandler old;
    int keyval, value = 5, *got, flag, nkeys;
    char text[16];
    MPI_Init(&argc, &argv);
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "value");
    MPI_Info_get(info, "key", sizeof text - 1, text, &flag);
    MPI_Info_dup(info, &copy);
    MPI_Info_get_nkeys(copy, &nkeys);
    MPI_Info_free(&copy);
    MPI_Info_free(&info);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(dup, keyval, &value);
    MPI_Comm_get_attr(dup, keyval, &got, &flag);
    MPI_Comm_delete_attr(dup, keyval);
    MPI_Comm_free_keyval(&keyval);
    MPI_Comm_get_errhandler(dup, &old);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&old);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
