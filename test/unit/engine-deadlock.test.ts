import { test } from 'node:test';
import { check } from './engine-check';
import { ANY, Job } from './engine-dsl';

test('recv-recv deadlock names both ranks and calls', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.recv(1, { tag: 7, hang: true });
  r1?.recv(0, { tag: 7, hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['rank 0 waits in MPI_Recv for rank 1, rank 1 waits in MPI_Recv for rank 0', 'send first'],
      details: [
        'MPI_Recv from rank 1, tag 7 on MPI_COMM_WORLD',
        'MPI_Recv from rank 0, tag 7 on MPI_COMM_WORLD',
      ],
    },
  ]);
});

function ranks(job: Job) {
  return job.ranks;
}

test('three-rank ring', () => {
  const job = new Job(3);
  ranks(job).forEach((r, i) => r.recv((i + 1) % 3, { hang: true }));
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1, 2],
      message: [
        'rank 0 waits in MPI_Recv for rank 1, rank 1 waits in MPI_Recv for rank 2, rank 2 waits in MPI_Recv for rank 0',
      ],
    },
  ]);
});

test('a rank waiting on the cycle is reported as blocked behind it', () => {
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r0?.recv(1, { hang: true });
  r1?.recv(0, { hang: true });
  r2?.recv(0, { hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1, 2],
      message: ['rank 2 is blocked behind them'],
      details: ['', '', 'blocked behind the deadlock: MPI_Recv from rank 0'],
    },
  ]);
});

test('collectives called in a different order: mismatch and deadlock', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.bcast(0, { hang: true });
  r1?.barrier({ hang: true });
  check(job, [
    {
      kind: 'collective-mismatch',
      ranks: [0, 1],
      message: ['rank 0 calls MPI_Bcast', 'rank 1 calls MPI_Barrier'],
    },
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['same collectives'],
      details: ['rank 1 called MPI_Barrier instead', 'rank 0 called MPI_Bcast'],
    },
  ]);
});

test('a collective waiting for a rank that waits for a message from it', () => {
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r0?.barrier({ hang: true });
  r1?.barrier({ hang: true });
  r2?.recv(0, { hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 2, 1],
      details: ['waiting for rank 2 which is in MPI_Recv', 'MPI_Recv from rank 0', 'blocked behind'],
    },
  ]);
});

test('Waitall on a message that is never sent', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  const a = r0?.irecv(1, { tag: 0 }) ?? 0;
  const b = r0?.irecv(1, { tag: 5 }) ?? 0;
  r0?.waitall([a, b], { hang: true });
  r1?.send(0, { tag: 0 }).finalize();
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['rank 0 waits in MPI_Waitall for rank 1, which already finalized'],
      details: [
        'MPI_Waitall: request 1 (MPI_Irecv from rank 1, tag 5 on MPI_COMM_WORLD, which already finalized) never matched',
      ],
    },
  ]);
});

test('wildcard receive whose possible senders are all blocked is deadlocked', () => {
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r0?.recv(ANY, { hang: true });
  r1?.recv(2, { hang: true });
  r2?.recv(1, { hang: true });
  check(job, [{ kind: 'deadlock', ranks: [1, 2, 0], details: ['', '', 'MPI_Recv from any rank'] }]);
});

test('wildcard receive with a sender still running is not deadlocked', () => {
  const job = new Job(3);
  const [r0, r1] = ranks(job);
  r0?.recv(ANY, { hang: true });
  r1?.recv(2, { hang: true }); // rank 2 is running: it can still send to both
  check(job, []);
});

test('waiting for a rank that finalized is a deadlock even alone', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.recv(1, { tag: 3, hang: true });
  r1?.finalize();
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['rank 0 waits in MPI_Recv for rank 1, which already finalized'],
      details: [
        'MPI_Recv from rank 1, tag 3 on MPI_COMM_WORLD, which already finalized',
        'MPI_Finalize: ended while rank 0 still waits for it',
      ],
    },
  ]);
});

test('a rank in MPI_Finalize and one waiting for its message', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.finalize({ hang: true });
  r1?.recv(0, { hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      details: ['MPI_Finalize: waiting for rank 1 which is in MPI_Recv', 'MPI_Recv from rank 0'],
    },
  ]);
});

test('two synchronous sends to each other', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.ssend(1, { hang: true });
  r1?.ssend(0, { hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['MPI_Irecv'],
      details: ['MPI_Ssend to rank 1, tag 0', 'MPI_Ssend to rank 0'],
    },
  ]);
});

test('a blocked send whose receive is already posted is not deadlocked', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r1?.irecv(0);
  r1?.barrier({ hang: true });
  r0?.ssend(1, { hang: true });
  check(job, []);
});

test('a blocked receive whose message is already sent is not deadlocked', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.send(1, { tag: 4 });
  r0?.recv(1, { hang: true }); // rank 1 is about to receive tag 4 and then send
  r1?.barrier({ hang: true }); // … but first waits for rank 0 in a barrier: that one is a deadlock
  check(job, [{ kind: 'deadlock', ranks: [0, 1] }]);
  const ok = new Job(2);
  const [q0, q1] = ranks(ok);
  q0?.send(1, { tag: 4 });
  q1?.recv(0, { tag: 4, hang: true });
  check(ok, []);
});

test('deadlock on a duplicated communicator, where handles differ per rank', () => {
  const job = new Job(2);
  for (const r of ranks(job)) r.commCreate('MPI_Comm_dup', 'world', 'dup', [0, 1]);
  const [r0, r1] = ranks(job);
  r0?.send(1, { comm: 'world', tag: 1 }); // sent on MPI_COMM_WORLD: cannot match a receive on the dup
  r0?.recv(1, { comm: 'dup', hang: true });
  r1?.recv(0, { comm: 'dup', tag: 1, hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: ['Rank 0 sent tag 1 on MPI_COMM_WORLD with MPI_Send where rank 1 receives tag 1 on'],
      details: [
        'on communicator MPI_COMM_WORLD/1 (MPI_Comm_dup)',
        'on communicator MPI_COMM_WORLD/1 (MPI_Comm_dup) (rank 0 sent tag 1 on MPI_COMM_WORLD instead, with MPI_Send)',
      ],
    },
    {
      kind: 'message-mismatch',
      ranks: [0, 1],
      message: [
        'rank 0 sent with MPI_Send to rank 1, tag 1 on MPI_COMM_WORLD is never received: its communicator does not match',
      ],
      details: ['never received (its communicator does not match the receive)', 'never satisfied'],
    },
  ]);
});

test('MPI_Buffer_detach waits for the receiver of a pending buffered message', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.send(1, { tag: 3 }, 'MPI_Bsend').call('MPI_Buffer_detach', { buffer_addr: 0, size: 0 }, { hang: true });
  r1?.barrier({ hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: [
        'rank 0 waits in MPI_Buffer_detach for rank 1, rank 1 waits in MPI_Barrier for rank 0',
        'MPI_Buffer_detach waits until every buffered message has been received',
      ],
      details: ['MPI_Buffer_detach waits until MPI_Bsend to rank 1, tag 3', 'MPI_Barrier on MPI_COMM_WORLD'],
    },
  ]);
});

test('MPI_Buffer_detach of received (or no) buffered messages blocks nobody', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.send(1, {}, 'MPI_Bsend').call('MPI_Buffer_detach', { buffer_addr: 0, size: 0 }, { hang: true });
  r1?.recv(0).barrier({ hang: true });
  check(job, []);
});

test('a receive its peer sent another tag to: the advice names both tags', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  // Rank 0's halo goes out with tag 12 and returns (buffered); rank 1 expects tag 13 from it.
  r0?.isend(1, { tag: 12 });
  r0?.recv(1, { tag: 12, hang: true });
  r1?.recv(0, { tag: 13, hang: true });
  check(job, [
    {
      kind: 'deadlock',
      ranks: [0, 1],
      message: [
        "Rank 0 sent tag 12 with MPI_Isend where rank 1 receives tag 13: make the send's and the receive's tag agree.",
      ],
      details: ['', '(rank 0 sent tag 12 instead, with MPI_Isend)'],
    },
    { kind: 'message-mismatch', ranks: [0, 1], message: ['its tag does not match', 'waits for it forever'] },
  ]);
});

test('no deadlock is claimed while a rank that aborted takes the job down', () => {
  // Rank 1 failed a call under MPI_ERRORS_ARE_FATAL (its END says abort); rank 0 waits in a barrier for it.
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.barrier({ hang: true });
  r1?.recv(0, { tag: 3, hang: true });
  r1?.end('abort', 6);
  check(job, []);
  // The same wait for a rank that merely exited is a deadlock.
  const exited = new Job(2);
  const [e0, e1] = ranks(exited);
  e0?.barrier({ hang: true });
  e1?.end('exit-without-finalize', 0);
  check(exited, [
    { kind: 'deadlock', ranks: [0, 1], message: ['which already ended (exit-without-finalize)'] },
    { kind: 'call-order', ranks: [1] },
  ]);
});

test('a receive naming a source that finalized, beside another rank message to it: a source mismatch', () => {
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r2?.send(1, { tag: 5 }).finalize();
  r1?.recv(0, { tag: 5, hang: true });
  r0?.finalize();
  check(job, [
    {
      kind: 'deadlock',
      ranks: [1, 0],
      message: [
        "Rank 2 sent tag 5 with MPI_Send where rank 1 receives from rank 0, tag 5: make the send's and the receive's source agree.",
      ],
    },
    {
      kind: 'message-mismatch',
      ranks: [2, 1],
      message: ['its source does not match', 'rank 1 waits for it forever'],
    },
  ]);
});

test('a receive naming a source that could still send is no mismatch of another rank message', () => {
  // Ranks 0 and 1 receive from each other first; rank 2's message to rank 1 is meant for a later receive.
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r2?.send(1, { tag: 0 });
  r2?.recv(0, { hang: true });
  r0?.recv(1, { hang: true });
  r1?.recv(0, { hang: true });
  check(job, [{ kind: 'deadlock', ranks: [0, 1, 2] }]);
});

test('a wildcard receive for another tag than the message its peer sent: a tag mismatch', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.send(1, { tag: 1 }).finalize();
  r1?.recv(ANY, { tag: 2, hang: true });
  check(job, [
    { kind: 'deadlock', ranks: [1] },
    { kind: 'message-mismatch', ranks: [0, 1], message: ['its tag does not match'] },
  ]);
});

test('a probe for another tag than the message sent: a tag mismatch of the probe', () => {
  const job = new Job(2);
  const [r0, r1] = ranks(job);
  r0?.send(1, { tag: 7 }).finalize();
  r1?.probe(0, { tag: 8, hang: true });
  check(job, [
    { kind: 'deadlock', ranks: [1, 0] },
    {
      kind: 'message-mismatch',
      ranks: [0, 1],
      message: ['its tag does not match', "the send's and the probe's tag"],
    },
  ]);
});

test('a receive naming a source on a rank that also received from any source: a race, no source mismatch', () => {
  // Rank 1's wildcard receive took rank 0's message; its receive from rank 0 then waits while rank 2's is left.
  const job = new Job(3);
  const [r0, r1, r2] = ranks(job);
  r0?.send(1, { tag: 5 }).finalize();
  r2?.send(1, { tag: 5 }).finalize();
  r1?.recv(ANY, { tag: 5, got: [0, 5] });
  r1?.recv(0, { tag: 5, hang: true });
  check(job, [{ kind: 'deadlock', ranks: [1, 0] }]);
});
