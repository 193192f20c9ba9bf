/** count-mismatch in all-to-all and all-gather exchanges: what each rank sends each other rank, pair by pair. */
import { test } from 'node:test';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

const IN_PLACE = -1;

function alltoallv(r: Rank, sendcounts: number[], recvcounts: number[], o: { hang?: boolean } = {}): void {
  const n = sendcounts.length;
  const displs = Array.from({ length: n }, (_, i) => 100 * i);
  r.call(
    'MPI_Alltoallv',
    {
      sendbuf: 0x1000,
      sendcounts,
      sdispls: displs,
      sendtype: INT,
      recvbuf: 0x9000,
      recvcounts,
      rdispls: displs,
      recvtype: INT,
      comm: r.handle('world'),
    },
    o,
  );
}

/** counts[i][j]: how many ints rank i sends rank j. */
const counts = [
  [1, 2, 3],
  [4, 5, 6],
  [7, 8, 9],
];
const column = (j: number) => counts.map((row) => row[j] as number);

test('MPI_Alltoallv with each rank receiving what the others send it: no finding', () => {
  const job = new Job(3);
  for (const r of job.ranks) alltoallv(r, counts[r.rank] as number[], column(r.rank));
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test('MPI_Alltoallv given the send counts as receive counts: one count-mismatch at every rank', () => {
  const job = new Job(3);
  for (const r of job.ranks) alltoallv(r, counts[r.rank] as number[], counts[r.rank] as number[]);
  for (const r of job.ranks) r.finalize();
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1, 2],
      message: [
        'rank 0 sends 2 × MPI_INT to rank 1, which expects 4 × MPI_INT from it',
        "one rank's send counts are the others' receive counts",
      ],
    },
  ]);
});

test('MPI_Allgather in place and MPI_Alltoall: checked pair by pair', () => {
  const ok = new Job(2);
  for (const r of ok.ranks) {
    const comm = r.handle('world');
    // In place, rank 0 sends its own block: recvcount × recvtype.
    const sendbuf = r.rank === 0 ? IN_PLACE : 0x1000;
    const args = { sendbuf, sendcount: 2, sendtype: INT, recvbuf: 0x9000, recvcount: 2, recvtype: INT, comm };
    r.call('MPI_Allgather', args);
    r.call('MPI_Alltoall', { ...args, sendbuf: 0x1000 });
    r.finalize();
  }
  check(ok, []);
  const bad = new Job(2);
  for (const r of bad.ranks) {
    const comm = r.handle('world');
    const sendcount = r.rank === 1 ? 3 : 2;
    r.call('MPI_Alltoall', {
      sendbuf: 1,
      sendcount,
      sendtype: INT,
      recvbuf: 2,
      recvcount: 2,
      recvtype: INT,
      comm,
    });
    r.finalize();
  }
  check(bad, [
    {
      kind: 'count-mismatch',
      ranks: [0, 1],
      message: ['rank 1 sends 3 × MPI_INT to rank 0, which expects 2'],
    },
  ]);
});

test('a rank that aborts inside the exchange: the calls that arrived are still compared', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  alltoallv(r0, counts[0] as number[], counts[0] as number[], { hang: true });
  alltoallv(r1, counts[1] as number[], counts[1] as number[], { hang: true });
  // Rank 2's records were lost: MPI killed the job before its shim could send them.
  for (const r of [r0, r1, r2]) r.end('signal', 9);
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1] }]);
});
