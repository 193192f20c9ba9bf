/* mpiscope-test
 * ranks: 1
 * expect: none
 */
/* Datatype constructors and queries: subarray, resized, struct, size, extents, envelope, name, dup. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int sizes[2] = {4, 4}, sub[2] = {2, 2}, starts[2] = {1, 1}, size, ni, na, nd, combiner, len;
    int blocks[2] = {1, 1};
    MPI_Aint displs[2] = {0, 8}, lb, extent;
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, block, wide, rec, copy;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Init(&argc, &argv);
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &block);
    MPI_Type_create_resized(block, 0, 64, &wide);
    MPI_Type_create_struct(2, blocks, displs, types, &rec);
    MPI_Type_commit(&rec);
    MPI_Type_size(rec, &size);
    MPI_Type_get_extent(wide, &lb, &extent);
    MPI_Type_get_envelope(block, &ni, &na, &nd, &combiner);
    MPI_Type_set_name(rec, "record");
    MPI_Type_get_name(rec, name, &len);
    MPI_Type_dup(rec, &copy);
    MPI_Type_free(&copy);
    MPI_Type_free(&rec);
    MPI_Type_free(&wide);
    MPI_Type_free(&block);
    MPI_Finalize();
    return 0;
}
