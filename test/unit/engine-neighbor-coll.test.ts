// Neighbourhood collectives: each member's block for a destination against that neighbour's block for it as a
// source, over the topology the creating call gave (MPI_Cart_create, MPI_Dist_graph_create_adjacent, a dup).
import { test } from 'node:test';
import { check } from './engine-check';
import { FLOAT, INT, Job, type Rank } from './engine-dsl';

/** MPI_Cart_create of one dimension over world, known afterwards as 'cart' (the new handle per rank). */
function cart1d(r: Rank, n: number, periodic: boolean): void {
  const world = Array.from({ length: n }, (_, i) => i);
  const handle = 5000 + r.rank;
  const seq = r.call(
    'MPI_Cart_create',
    {
      comm_old: r.handle('world'),
      ndims: 1,
      dims: [n],
      periods: [periodic ? 1 : 0],
      reorder: 0,
      comm_cart: 0,
    },
    {},
    [],
    { comm_cart: handle },
  );
  r.announce('cart', handle, world, r.handle('world'), seq);
}

/** MPI_Dist_graph_create_adjacent over world, known afterwards as 'graph'. */
function adjacent(r: Rank, n: number, sources: number[], dests: number[]): void {
  const world = Array.from({ length: n }, (_, i) => i);
  const handle = 6000 + r.rank;
  const seq = r.call(
    'MPI_Dist_graph_create_adjacent',
    {
      comm_old: r.handle('world'),
      indegree: sources.length,
      sources,
      sourceweights: 0,
      outdegree: dests.length,
      destinations: dests,
      destweights: 0,
      info: 0,
      reorder: 0,
      comm_dist_graph: 0,
    },
    {},
    [],
    { comm_dist_graph: handle },
  );
  r.announce('graph', handle, world, r.handle('world'), seq);
}

function alltoallv(r: Rank, comm: string, scounts: number[], rcounts: number[], stype = INT): void {
  r.call('MPI_Neighbor_alltoallv', {
    sendbuf: 0x100,
    sendcounts: scounts,
    sdispls: scounts.map(() => 0),
    sendtype: stype,
    recvbuf: 0x200,
    recvcounts: rcounts,
    rdispls: rcounts.map(() => 0),
    recvtype: INT,
    comm: r.handle(comm),
  });
}

function end(job: Job, comm: string): void {
  for (const r of job.ranks) r.commFree(comm).finalize();
}

test('neighbor_alltoallv on a Cartesian line: blocks that agree are silent, the ends (MPI_PROC_NULL) are not judged', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    cart1d(r, 3, false);
    // Block 0 goes to the left neighbour, block 1 to the right; rank r sends r + 1 values each way.
    const left = r.rank - 1;
    const right = r.rank + 1;
    alltoallv(r, 'cart', [r.rank + 1, r.rank + 1], [left >= 0 ? left + 1 : 99, right < 3 ? right + 1 : 99]);
  }
  end(job, 'cart');
  check(job, []);
});

test('neighbor_alltoallv on a Cartesian line: a rank expecting more from its left neighbour is a count-mismatch', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    cart1d(r, 3, false);
    alltoallv(r, 'cart', [2, 2], r.rank === 2 ? [3, 2] : [2, 2]);
  }
  end(job, 'cart');
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1, 2],
      message: [
        'rank 1 sends 2 × MPI_INT to rank 2, which expects 3 × MPI_INT from it',
        'MPI_Neighbor_alltoallv',
      ],
    },
  ]);
});

test("neighbor_alltoallv on a duplicate of a Cartesian communicator: its topology is the parent's", () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    cart1d(r, 3, true);
    r.commCreate('MPI_Comm_dup', 'cart', 'halo', [0, 1, 2]);
    alltoallv(r, 'halo', [2, 2], [2, 2], r.rank === 0 ? FLOAT : INT);
    r.commFree('halo');
  }
  end(job, 'cart');
  check(job, [{ kind: 'type-mismatch', ranks: [0, 1, 2], message: ['rank 0 sends 2 × MPI_FLOAT to rank'] }]);
});

test('a periodic dimension of two ranks (each neighbour twice) is left alone', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    cart1d(r, 2, true);
    alltoallv(r, 'cart', [2, 2], r.rank === 1 ? [3, 2] : [2, 2]);
  }
  end(job, 'cart');
  check(job, []);
});

test('neighbor_allgatherv on MPI_Dist_graph_create_adjacent: blocks in the order the sources were given', () => {
  for (const wrong of [false, true]) {
    const job = new Job(4);
    for (const r of job.ranks) {
      const sources = [(r.rank + 3) % 4, (r.rank + 2) % 4];
      const dests = [(r.rank + 1) % 4, (r.rank + 2) % 4];
      adjacent(r, 4, sources, dests);
      // Rank r sends r + 1 values; the right receive counts are the sources' ranks + 1.
      const rcounts = (wrong && r.rank === 3 ? dests : sources).map((s) => s + 1);
      r.call('MPI_Neighbor_allgatherv', {
        sendbuf: 0x100,
        sendcount: r.rank + 1,
        sendtype: INT,
        recvbuf: 0x200,
        recvcounts: rcounts,
        displs: [0, 8],
        recvtype: INT,
        comm: r.handle('graph'),
      });
    }
    end(job, 'graph');
    check(
      job,
      wrong ? [{ kind: 'count-mismatch', ranks: [0, 1, 2, 3], message: ['to rank 3, which expects'] }] : [],
    );
  }
});

test("neighbor_alltoall on MPI_Graph_create: each node's neighbours from index and edges, both ways", () => {
  // A star: node 0 linked with 1 and 2 (edges 1,2 | 0 | 0).
  const index = [2, 3, 4];
  const edges = [1, 2, 0, 0];
  for (const wrong of [false, true]) {
    const job = new Job(3);
    for (const r of job.ranks) {
      const handle = 7000 + r.rank;
      const seq = r.call(
        'MPI_Graph_create',
        { comm_old: r.handle('world'), nnodes: 3, index, edges, reorder: 0, comm_graph: 0 },
        {},
        [],
        { comm_graph: handle },
      );
      r.announce('graph', handle, [0, 1, 2], r.handle('world'), seq);
      r.call('MPI_Neighbor_alltoall', {
        sendbuf: 0x100,
        sendcount: 2,
        sendtype: INT,
        recvbuf: 0x200,
        recvcount: wrong && r.rank === 2 ? 3 : 2,
        recvtype: INT,
        comm: r.handle('graph'),
      });
    }
    end(job, 'graph');
    check(
      job,
      wrong
        ? [
            {
              kind: 'count-mismatch',
              ranks: [0, 1, 2],
              message: ['rank 0 sends 2 × MPI_INT to rank 2, which expects 3'],
            },
          ]
        : [],
    );
  }
});
