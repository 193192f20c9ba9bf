/* mpiscope-test
 * ranks: 4
 * expect: none
 */
/* A particle-migration step of a 1-D domain decomposition, repeated: particles are a C struct
 * sent as an MPI_Type_create_struct resized to sizeof(struct particle). Every step each rank
 * moves its particles, sends those that left its slab to the left or right neighbour (periodic)
 * with MPI_Isend, learns how many arrive with MPI_Probe + MPI_Get_count on the struct type and
 * receives them; global ids come from MPI_Exscan and the total is checked with MPI_Allreduce. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define START 200
#define STEPS 40
#define CAP 4096

struct particle {
    double x, v;
    long id;
    int species;
};

static MPI_Datatype particle_type(void)
{
    struct particle p = {0};
    int lens[3] = {2, 1, 1};
    MPI_Aint base, disp[3];
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_LONG, MPI_INT}, t, resized;
    MPI_Get_address(&p, &base);
    MPI_Get_address(&p.x, &disp[0]);
    MPI_Get_address(&p.id, &disp[1]);
    MPI_Get_address(&p.species, &disp[2]);
    for (int i = 0; i < 3; i++)
        disp[i] -= base;
    MPI_Type_create_struct(3, lens, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct particle), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&t);
    return resized;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype ptype = particle_type();
    struct particle *mine = malloc(CAP * sizeof *mine), *go[2], *in = malloc(CAP * sizeof *in);
    go[0] = malloc(CAP * sizeof(struct particle));
    go[1] = malloc(CAP * sizeof(struct particle));
    int n = START, left = (rank + size - 1) % size, right = (rank + 1) % size;
    long first;
    long count = n;
    MPI_Exscan(&count, &first, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        first = 0;
    unsigned seed = 11u * (unsigned)rank + 3u;
    for (int i = 0; i < n; i++) {
        mine[i].x = rank + (double)rand_r(&seed) / RAND_MAX;
        mine[i].v = ((double)rand_r(&seed) / RAND_MAX - 0.5) * 0.2;
        mine[i].id = first + i;
        mine[i].species = i % 3;
    }
    for (int step = 0; step < STEPS; step++) {
        int ngo[2] = {0, 0}, keep = 0;
        for (int i = 0; i < n; i++) {
            struct particle p = mine[i];
            p.x += p.v;
            if (p.x < 0)
                p.x += size;
            if (p.x >= size)
                p.x -= size;
            int owner = (int)p.x;
            if (owner == rank)
                mine[keep++] = p;
            else if (owner == left)
                go[0][ngo[0]++] = p;
            else
                go[1][ngo[1]++] = p;
        }
        n = keep;
        MPI_Request reqs[2];
        MPI_Isend(go[0], ngo[0], ptype, left, step, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(go[1], ngo[1], ptype, right, step, MPI_COMM_WORLD, &reqs[1]);
        for (int k = 0; k < 2; k++) {
            int from = k == 0 ? right : left, got;
            MPI_Status st;
            MPI_Probe(from, step, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, ptype, &got);
            MPI_Recv(in, got, ptype, from, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < got && n < CAP; i++)
                mine[n++] = in[i];
        }
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    long total = 0, local = n;
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("particles: %ld after %d steps (started with %d)\n", total, STEPS, START * size);
    MPI_Type_free(&ptype);
    free(mine);
    free(in);
    free(go[0]);
    free(go[1]);
    MPI_Finalize();
    return 0;
}
