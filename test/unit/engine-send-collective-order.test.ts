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
      ranks: [0, 1],
      message: [
        'rank 0 waits in MPI_Send for rank 1 to post the receive',
        'rank 1 waits in MPI_Bcast (collective #1 on MPI_COMM_WORLD) for rank 0',
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

test('a Reduce whose non-root returns early, then sends to the root that receives before the Reduce: potential deadlock on both lines', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.reduce(1, { site: 0x31 }).send(1, { site: 0x32 });
  r1?.recv(0, { site: 0x33 }).reduce(1, { site: 0x34 });
  for (const r of job.ranks) r.finalize();
  check(job, [
    {
      kind: 'potential-deadlock',
      ranks: [0, 1],
      message: [
        'a collective returned on some ranks before every member entered it',
        'rank 0 waits in MPI_Reduce (collective #1 on MPI_COMM_WORLD) for rank 1',
        'rank 1 waits in MPI_Recv for rank 0 to send',
      ],
    },
  ]);
});

test('an Isend completed by its Wait is a synchronous send without buffering: a ring of Isend, Wait, Recv', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    const i = job.ranks.indexOf(r);
    const h = r.isend((i + 1) % 3);
    r.wait(h).recv((i + 2) % 3);
  }
  for (const r of job.ranks) r.finalize();
  check(job, [{ kind: 'potential-deadlock', ranks: [0, 1, 2], message: ['waits in MPI_Isend for rank 1'] }]);
});

test('an Isend polled by MPI_Test until it completes is a Wait: a ring of Isend, Test loop, Recv', () => {
  const job = new Job(3);
  for (const r of job.ranks) {
    const i = job.ranks.indexOf(r);
    const h = r.isend((i + 1) % 3);
    r.test(h, false)
      .test(h, false)
      .test(h, true)
      .recv((i + 2) % 3);
  }
  for (const r of job.ranks) r.finalize();
  check(job, [{ kind: 'potential-deadlock', ranks: [0, 1, 2], message: ['waits in MPI_Isend for rank 1'] }]);
});

test('an Isend tested once, then the receive, then its Wait (BLACS): correct, even when that Test completed it', () => {
  // Without buffering the Test returns false and the rank goes on to its receive. The trace of a Test that
  // succeeded at its first try does not say whether the program would have polled again: no finding.
  const job = new Job(2);
  for (const r of job.ranks) {
    const i = job.ranks.indexOf(r);
    const h = r.isend(1 - i);
    r.test(h, true).recv(1 - i);
  }
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test('a Test that completes the send after other calls broke the polling is not a wait', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    const i = job.ranks.indexOf(r);
    const h = r.isend(1 - i);
    r.test(h, false).call('MPI_Type_size', { datatype: 1, size: 0 });
    r.test(h, true).recv(1 - i);
  }
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test('the correct twins: Irecv before the Wait of the Isend, and the Reduce after the exchange on both ranks', () => {
  const job = new Job(2);
  for (const r of job.ranks) {
    const i = job.ranks.indexOf(r);
    const hr = r.irecv(1 - i);
    const hs = r.isend(1 - i);
    r.waitall([hs, hr]);
  }
  const [r0, r1] = job.ranks;
  r0?.send(1).reduce(1);
  r1?.recv(0).reduce(1);
  for (const r of job.ranks) r.finalize();
  check(job, []);
});
