// Rooted collectives on an intercommunicator (MPI-3.1 §5.2.2): the root passes MPI_ROOT, the other members of
// its group MPI_PROC_NULL, and the other group the root's rank in the root's group. Those differing roots agree;
// two MPI_ROOTs, a root no one takes, or a group naming different roots do not.
import { test } from 'node:test';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';
import { functionNamed } from '../../server/src/protocol/spec';

const ROOT = -3; // MPI_ROOT and MPI_PROC_NULL as the shim writes them
const PROC_NULL = -2;

/** Four ranks: group A = world ranks 0, 2 and group B = 1, 3, joined by an intercommunicator `inter`. */
function job4(): Job {
  const job = new Job(4);
  for (const r of job.ranks) {
    const a = r.rank % 2 === 0;
    r.intercomm('inter', a ? [0, 2] : [1, 3], a ? [1, 3] : [0, 2]);
  }
  return job;
}

/** Each rank's root argument when the root is world rank 0 (rank 0 of group A). */
const roots = (r: Rank): number => (r.rank % 2 === 1 ? 0 : r.rank === 0 ? ROOT : PROC_NULL);

function gather(r: Rank, root: number, count: number, rcount = 1): void {
  r.call('MPI_Gather', {
    sendbuf: 0x100,
    sendcount: count,
    sendtype: INT,
    recvbuf: 0x200,
    recvcount: rcount,
    recvtype: INT,
    root,
    comm: r.handle('inter'),
  });
}

const finalizeAll = (job: Job) => job.ranks.forEach((r) => r.commFree('inter').finalize());

test('intercommunicator: MPI_ROOT, MPI_PROC_NULL and the remote root rank agree (bcast, reduce, gather)', () => {
  const job = job4();
  for (const r of job.ranks) {
    r.bcast(roots(r), { comm: 'inter' });
    r.reduce(roots(r), { comm: 'inter' });
    // MPI_PROC_NULL's counts are not significant: give nonsense.
    gather(r, roots(r), r.rank === 2 ? 99 : 1, r.rank === 2 ? 7 : 1);
    // The root in group B this time: rank 1 of B (world rank 3).
    r.bcast(r.rank % 2 === 0 ? 1 : r.rank === 3 ? ROOT : PROC_NULL, { comm: 'inter' });
  }
  finalizeAll(job);
  check(job, []);
});

test('intercommunicator: two ranks of the root group passing MPI_ROOT is a collective-mismatch', () => {
  const job = job4();
  for (const r of job.ranks) r.bcast(r.rank % 2 === 1 ? 0 : ROOT, { comm: 'inter' });
  finalizeAll(job);
  check(job, [{ kind: 'collective-mismatch', ranks: [0, 1, 2, 3], message: ['with root MPI_ROOT'] }]);
});

test('intercommunicator: the other group naming different roots is a collective-mismatch', () => {
  const job = job4();
  for (const r of job.ranks) r.bcast(r.rank === 3 ? 1 : roots(r), { comm: 'inter' });
  finalizeAll(job);
  check(job, [{ kind: 'collective-mismatch', ranks: [0, 1, 2, 3] }]);
});

test('intercommunicator: the named root passing MPI_PROC_NULL (no root at all) is a collective-mismatch', () => {
  const job = job4();
  for (const r of job.ranks) r.bcast(r.rank % 2 === 1 ? 0 : PROC_NULL, { comm: 'inter' });
  finalizeAll(job);
  check(job, [{ kind: 'collective-mismatch', ranks: [0, 1, 2, 3] }]);
});

test('intercommunicator: both groups naming a remote root is a collective-mismatch', () => {
  const job = job4();
  for (const r of job.ranks) r.bcast(0, { comm: 'inter' });
  finalizeAll(job);
  check(job, [{ kind: 'collective-mismatch', ranks: [0, 1, 2, 3] }]);
});

test('intercommunicator gather: the other group sending less than MPI_ROOT expects is a count-mismatch', () => {
  const job = job4();
  for (const r of job.ranks) gather(r, roots(r), r.rank === 3 ? 1 : 2, 2);
  finalizeAll(job);
  check(job, [
    {
      kind: 'count-mismatch',
      ranks: [0, 3],
      message: ['expects 2 × MPI_INT from rank 3, which sends 1 × MPI_INT'],
    },
  ]);
});

test('intercommunicator: the deadlock of a mismatched collective names the root as MPI_ROOT', () => {
  const job = job4();
  for (const r of job.ranks) {
    if (r.rank % 2 === 0) r.bcast(roots(r), { comm: 'inter', hang: true });
    else r.barrier({ comm: 'inter', hang: true });
  }
  check(job, [
    {
      kind: 'collective-mismatch',
      ranks: [0, 1, 2, 3],
      details: ['MPI_Bcast (root MPI_ROOT)', '', 'MPI_Bcast (root MPI_PROC_NULL)'],
    },
    {
      kind: 'deadlock',
      ranks: [0, 1, 2, 3],
      details: [
        '',
        'called MPI_Bcast (root MPI_ROOT) instead',
        '',
        'called MPI_Bcast (root MPI_ROOT) instead',
      ],
    },
  ]);
});

test('intercommunicator: a nonblocking collective refused on every rank is one finding per call, whatever the order', () => {
  // A member's collectives are counted in its slot of the union (as the instances are), not in the slot of the
  // first group's rank with the same local rank: ranks 1 and 3 read ranks 0's and 1's counts before.
  const job = job4();
  const fn = functionNamed('MPI_Ibcast');
  for (const r of job.ranks)
    for (const site of [0x51, 0x52]) {
      const seq = r.call(
        'MPI_Ibcast',
        { buffer: 1, count: -1, datatype: INT, root: roots(r), comm: r.handle('inter'), request: 0 },
        { hang: true, site },
      );
      r.events.push(
        {
          type: 'shim-finding',
          rank: r.rank,
          seq,
          time: r.events.length + 1e6,
          fn,
          site,
          check: 'negative-count',
          message: 'the count is negative',
          param: 1,
          values: [-1],
        },
        { type: 'exit', rank: r.rank, seq, time: r.events.length + 1e6 + 1, fn, returnCode: 0, outputs: {} },
      );
    }
  finalizeAll(job);
  check(job, [
    { kind: 'invalid-argument', ranks: [0, 1, 2, 3], details: ['', '', '', ''] },
    { kind: 'invalid-argument', ranks: [0, 1, 2, 3] },
  ]);
});
