/* Checks MPI_Allgather's result, for native-tools/lib-topo-allgather.so preloaded (perf-tools.test.ts):
 * int blocks of 1, 3 and 1000 elements from separate buffers and in place, and a strided (vector) type that
 * the library hands to the MPI library. Prints "allgather ok" or the first wrong element; exit 1 if wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n, me, bad = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int counts[] = {1, 3, 1000};
  for (int c = 0; c < 3 && !bad; c++) {
    int count = counts[c];
    int *s = malloc(sizeof(int) * (size_t)count), *r = malloc(sizeof(int) * (size_t)count * (size_t)n);
    for (int inplace = 0; inplace < 2 && !bad; inplace++) {
      for (int k = 0; k < count * n; k++) r[k] = -1;
      for (int k = 0; k < count; k++) s[k] = me * 100000 + k + inplace;
      if (inplace) {
        for (int k = 0; k < count; k++) r[me * count + k] = s[k];
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_INT, MPI_COMM_WORLD);
      } else {
        MPI_Allgather(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
      }
      for (int q = 0; q < n && !bad; q++)
        for (int k = 0; k < count; k++)
          if (r[q * count + k] != q * 100000 + k + inplace) {
            printf("allgather WRONG on rank %d: count %d%s, block %d element %d is %d\n", me, count,
                   inplace ? " in place" : "", q, k, r[q * count + k]);
            bad = 1;
            break;
          }
    }
    free(s);
    free(r);
  }
  /* Two ints every other int: not contiguous, so the library forwards to PMPI_Allgather. */
  MPI_Datatype strided;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int sv[3] = {me, -7, me + 1}, *rv = calloc(4 * (size_t)n, sizeof(int));
  MPI_Allgather(sv, 1, strided, rv, 1, strided, MPI_COMM_WORLD);
  for (int q = 0; q < n; q++)
    if (rv[q * 3] != q || rv[q * 3 + 2] != q + 1) bad = 1;
  MPI_Type_free(&strided);
  free(rv);
  int any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0 && !any) printf("allgather ok\n");
  MPI_Finalize();
  return any;
}
