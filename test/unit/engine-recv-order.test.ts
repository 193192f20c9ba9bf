// Non-overtaking for receives: of two receives posted with the same envelope, the earlier takes the earlier
// message, whether or not the program ever completes it. LAMMPS's fix neb (2022) overwrites the request of
// one of three receives before its MPI_Waitall; matching by completion order shifted every later message.
import { test } from 'node:test';
import { check } from './engine-check';
import { FLOAT, Job } from './engine-dsl';

test('a receive never completed still takes its message before the later receives of its envelope', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  for (let round = 0; round < 2; round++) {
    const bufs = 0x10000 * (round + 1);
    r0?.irecv(1, { count: 4, buf: bufs, site: 0x31 }); // its request is lost: never waited
    const b = r0?.irecv(1, { count: 4, buf: bufs + 0x100 }) ?? 0;
    const c = r0?.irecv(1, { count: 2, type: FLOAT, buf: bufs + 0x200 }) ?? 0;
    r1?.send(0, { count: 4 }).send(0, { count: 4 }).send(0, { count: 2, type: FLOAT });
    r0?.waitall([b, c]);
  }
  for (const r of job.ranks) r.finalize();
  // Only the lost requests (one call site, so one location for both): no truncation, no type mismatch.
  check(job, [{ kind: 'resource-leak', ranks: [0], message: ['2 requests created by MPI_Irecv'] }]);
});
