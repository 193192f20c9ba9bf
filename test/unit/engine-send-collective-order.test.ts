// A standard send whose receiver first enters a collective the sender joins only after the send: the MPI
// standard's own example of an erroneous program (it deadlocks when the send is not buffered and the
// collective synchronizes). HPC Challenge's latency benchmark does this with an empty message.
import { test } from 'node:test';
import { check } from './engine-check';
import { Job } from './engine-dsl';

test('a send before a broadcast whose receiver receives only after it: potential deadlock, named with the collective', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 0, tag: 102 }).bcast(1);
  r1?.bcast(1).recv(0, { count: 0, tag: 102 });
  for (const r of job.ranks) r.finalize();
  check(job, [
    {
      kind: 'potential-deadlock',
      ranks: [0],
      message: [
        'rank 0 waits in MPI_Send for rank 1 to post the receive',
        'rank 1 waits in collective #1 on MPI_COMM_WORLD for rank 0',
      ],
    },
  ]);
});

test('the same calls with the receive before the broadcast are correct', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { count: 0, tag: 102 }).bcast(1);
  r1?.recv(0, { count: 0, tag: 102 }).bcast(1);
  for (const r of job.ranks) r.finalize();
  check(job, []);
});
