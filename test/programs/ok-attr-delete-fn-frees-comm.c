/* mpiscope-test
 * ranks: 2
 * expect: none
 */
/* A library's way of keeping an inner communicator (mpi4py's object reductions, PETSc's inner comms): a duplicate
 * cached as an attribute of the user's communicator, freed by the attribute's delete function when that
 * communicator is freed; and a cleanup attribute on MPI_COMM_SELF, whose delete function MPI_Finalize runs first
 * and which frees the keyval then. The MPI calls of the delete functions are the program's: nothing leaks and
 * nothing is called after MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>

static int inner_keyval = MPI_KEYVAL_INVALID;

static int free_inner(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    MPI_Comm *inner = attr;
    (void)comm, (void)keyval, (void)extra;
    MPI_Comm_free(inner);
    free(inner);
    return MPI_SUCCESS;
}

static int cleanup(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    MPI_Comm_free_keyval(&inner_keyval);
    return MPI_SUCCESS;
}

/* The library's reduction: on the communicator's inner duplicate, made at its first use. */
static int sum(MPI_Comm comm, int x)
{
    MPI_Comm *inner;
    int found, total;
    MPI_Comm_get_attr(comm, inner_keyval, &inner, &found);
    if (!found) {
        inner = malloc(sizeof *inner);
        MPI_Comm_dup(comm, inner);
        MPI_Comm_set_attr(comm, inner_keyval, inner);
    }
    MPI_Allreduce(&x, &total, 1, MPI_INT, MPI_SUM, *inner);
    return total;
}

int main(int argc, char **argv)
{
    int rank, self_keyval;
    MPI_Comm mine;
    MPI_Init(&argc, &argv);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_inner, &inner_keyval, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cleanup, &self_keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    MPI_Comm_free_keyval(&self_keyval);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &mine);
    sum(mine, rank);
    sum(mine, rank);
    MPI_Comm_free(&mine); /* frees the inner duplicate too */
    sum(MPI_COMM_WORLD, rank);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, inner_keyval); /* and the world's */
    MPI_Finalize();
    return 0;
}
