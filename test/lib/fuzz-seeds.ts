/** Well-formed jobs for the frame fuzzer: the engine DSL's calls of every class the decoder has a path for. */
import type { RankEvent } from '../../server/src/engine/model/types';
import { ANY, Job } from '../unit/engine-dsl';

export interface SeedJob {
  readonly size: number;
  readonly events: readonly RankEvent[];
}

export function seedJobs(): SeedJob[] {
  const out: SeedJob[] = [];
  // Point-to-point, nonblocking with a wildcard, a communicator made and used, collectives, a clean end.
  const a = new Job(3);
  for (const r of a.ranks) {
    const reqs = [r.irecv(ANY, { tag: ANY, got: [(r.rank + 1) % 3, 0] }), r.isend((r.rank + 2) % 3)];
    r.waitall(reqs);
    r.commCreate('MPI_Comm_dup', 'world', 'dup', [0, 1, 2]);
    r.bcast(0, { comm: 'dup' });
    r.reduce(1);
    r.allreduce();
    r.sendrecv((r.rank + 1) % 3, (r.rank + 2) % 3);
    r.barrier();
    r.commFree('dup');
    r.finalize();
  }
  out.push({ size: 3, events: a.relocate().interleave(1) });
  // Blocking pairs, a probe, a waitany, a rank that dies of a signal.
  const b = new Job(2);
  const [b0, b1] = b.ranks;
  if (b0 === undefined || b1 === undefined) throw new Error('two ranks');
  b0.send(1).recv(1, { tag: 3 });
  const h = b0.irecv(1, { tag: 5, got: [1, 5] });
  b0.waitany([h], 0).finalize();
  b1.recv(0).probe(0, { tag: ANY }).send(0, { tag: 3 }).send(0, { tag: 5 });
  b1.end('signal', 11);
  out.push({ size: 2, events: b.relocate().interleave(0) });
  return out;
}
