/*
 * A preloadable MPI_Allgather that knows the hosts (after TopoMPI): LD_PRELOAD this library (built by
 * native-tools/build.sh as lib-topo-allgather.so) and set MPISCOPE_TOPO_ALLGATHER:
 *   recursive-doubling   recursive doubling (a power-of-two number of ranks; otherwise Bruck is used)
 *   bruck                Bruck's algorithm
 *   unset or off         the MPI library's own MPI_Allgather
 * Both run over a virtual numbering of the ranks computed once, at the first call, from the hosts the ranks
 * are on: ranks of one host get virtual numbers that differ in their high bits (host-minor order: the
 * first rank of every host, then the second of every host, ...). Both algorithms move the most data in
 * their last steps, between virtual ranks that differ in the high bits, so those steps stay inside a host
 * and only the small early steps cross hosts. MPISCOPE_TOPO_ORDER=identity keeps MPI's own numbering (the
 * same algorithm without topology, to compare). MPISCOPE_TOPO_VERBOSE=1 prints, per rank at MPI_Finalize,
 * the bytes it sent to ranks on other hosts. MPISCOPE_TOPO_FAKE_HOSTS=K pretends rank r runs on host
 * r * K / N (the launcher's block placement on K hosts), for tests on one machine.
 * Only MPI_COMM_WORLD and contiguous receive types are handled; every other call goes to PMPI_Allgather.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum algo { ALGO_OFF, ALGO_RD, ALGO_BRUCK };

static int ready, algo, nranks, me, vme;
static int *order;   /* virtual number -> rank */
static int *host_of; /* rank -> host index */
static long long cross_bytes;

static void setup(void) {
  ready = 1;
  const char *a = getenv("MPISCOPE_TOPO_ALLGATHER");
  algo = a == NULL ? ALGO_OFF
         : strcmp(a, "recursive-doubling") == 0 ? ALGO_RD
         : strcmp(a, "bruck") == 0 ? ALGO_BRUCK
         : ALGO_OFF;
  if (algo == ALGO_OFF) return;
  PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (algo == ALGO_RD && (nranks & (nranks - 1)) != 0) algo = ALGO_BRUCK;
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len;
  PMPI_Get_processor_name(name, &len);
  char *names = malloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME);
  /* A collective inside the first MPI_Allgather: every rank of the communicator is in that call, so
   * every rank reaches this one too, in the same order. */
  PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                 MPI_COMM_WORLD);
  host_of = malloc(sizeof(int) * (size_t)nranks);
  int hosts = 0;
  const char *fake = getenv("MPISCOPE_TOPO_FAKE_HOSTS");
  for (int r = 0; r < nranks; r++) {
    if (fake != NULL && atoi(fake) > 0) {
      host_of[r] = (int)((long long)r * atoi(fake) / nranks);
      if (host_of[r] + 1 > hosts) hosts = host_of[r] + 1;
      continue;
    }
    host_of[r] = -1;
    for (int q = 0; q < r; q++)
      if (strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME, names + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0) {
        host_of[r] = host_of[q];
        break;
      }
    if (host_of[r] < 0) host_of[r] = hosts++;
  }
  free(names);
  order = malloc(sizeof(int) * (size_t)nranks);
  const char *ord = getenv("MPISCOPE_TOPO_ORDER");
  if (ord != NULL && strcmp(ord, "identity") == 0) {
    for (int r = 0; r < nranks; r++) order[r] = r;
  } else {
    /* Host-minor order: the k-th rank of each host in turn, for k = 0, 1, ... */
    int *seen = calloc((size_t)hosts, sizeof(int)), v = 0;
    for (int k = 0; v < nranks; k++)
      for (int h = 0; h < hosts; h++) {
        int count = 0;
        for (int r = 0; r < nranks; r++)
          if (host_of[r] == h && count++ == k) order[v++] = r;
      }
    free(seen);
  }
  for (int v = 0; v < nranks; v++)
    if (order[v] == me) vme = v;
}

static void exchange(char *sb, int sbytes, int to, char *rb, int rbytes, int from) {
  if (host_of[order[to]] != host_of[me]) cross_bytes += sbytes;
  PMPI_Sendrecv(sb, sbytes, MPI_BYTE, order[to], 7001, rb, rbytes, MPI_BYTE, order[from], 7001, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!ready) setup();
  int size;
  MPI_Aint lb, extent;
  if (algo == ALGO_OFF || comm != MPI_COMM_WORLD ||
      PMPI_Type_size(recvtype, &size) != MPI_SUCCESS || PMPI_Type_get_extent(recvtype, &lb, &extent) != MPI_SUCCESS ||
      lb != 0 || (MPI_Aint)size != extent)
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  const int n = nranks;
  const size_t B = (size_t)recvcount * (size_t)size;
  char *out = recvbuf;
  char *tmp = malloc(B * (size_t)n + 1);
  /* tmp holds blocks by virtual number (recursive doubling) or by distance from this rank (Bruck). */
  size_t own = algo == ALGO_RD ? (size_t)vme * B : 0;
  if (sendbuf == MPI_IN_PLACE)
    memcpy(tmp + own, out + (size_t)me * B, B);
  else
    PMPI_Sendrecv(sendbuf, sendcount, sendtype, me, 7000, tmp + own, recvcount, recvtype, me, 7000, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  if (algo == ALGO_RD) {
    for (int d = 1; d < n; d <<= 1) {
      int pv = vme ^ d;
      int base = vme & ~(d - 1), pbase = pv & ~(d - 1);
      exchange(tmp + (size_t)base * B, (int)(d * B), pv, tmp + (size_t)pbase * B, (int)(d * B), pv);
    }
    for (int v = 0; v < n; v++) memcpy(out + (size_t)order[v] * B, tmp + (size_t)v * B, B);
  } else {
    for (int d = 1; d < n; d <<= 1) {
      int c = d < n - d ? d : n - d;
      exchange(tmp, (int)(c * B), (vme - d + n) % n, tmp + (size_t)d * B, (int)(c * B), (vme + d) % n);
    }
    for (int i = 0; i < n; i++) memcpy(out + (size_t)order[(vme + i) % n] * B, tmp + (size_t)i * B, B);
  }
  free(tmp);
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  if (ready && algo != ALGO_OFF && getenv("MPISCOPE_TOPO_VERBOSE") != NULL)
    fprintf(stderr, "topo-allgather: rank %d sent %lld bytes to other hosts\n", me, cross_bytes);
  return PMPI_Finalize();
}
