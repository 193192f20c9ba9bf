import type { ArgValue, RankEvent } from '../engine/model/types';
import type { Finding } from '../session/session-api';
import { functionNamed } from '../protocol/spec';

/**
 * A made-up but realistic job for tests, the benchmark and the standalone page: N ranks in a ring halo
 * exchange (Isend/Irecv to both neighbours, Waitall, compute), an Allreduce every few iterations, and
 * optionally a deadlock at the end: ranks 0..2 each block in MPI_Recv from the next (a 3-rank ring) while
 * the others finalize. Events come iteration by iteration, ranks interleaved, as a live session may see them.
 */
export interface SyntheticOptions {
  readonly ranks: number;
  readonly iterations: number;
  readonly allreduceEvery?: number;
  readonly deadlock?: boolean;
  readonly seed?: number;
}

export interface SyntheticJob {
  readonly events: RankEvent[];
  readonly findings: Finding[];
  /** Call-site address → source line in SOURCE_FILE (what addr2line would answer). */
  readonly lines: ReadonlyMap<number, number>;
}

export const SOURCE_FILE = '/home/user/halo/halo.c';
const WORLD = 0x44000000;
const REALTIME_BASE = 1_700_000_000_000_000_000;
const TAG = 7;

/** One source line per kind of call, as a real program would have. */
const SITES: Readonly<Record<string, readonly [number, number]>> = {
  init: [0x401100, 12],
  isendLeft: [0x401200, 31],
  isendRight: [0x401220, 32],
  irecvLeft: [0x401240, 33],
  irecvRight: [0x401260, 34],
  waitall: [0x401280, 35],
  allreduce: [0x4012a0, 41],
  ringRecv: [0x4012c0, 52],
  ringSend: [0x4012e0, 53],
  finalize: [0x401300, 60],
};

function site(name: string): number {
  return SITES[name]?.[0] ?? 0;
}

/** Deterministic jitter, so screenshots and benchmarks are repeatable. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

class RankWriter {
  private seq = 0;
  private nextRequest = 1;
  /** This rank's monotonic clock reads base + job time (each process has its own base). */
  private readonly base: number;

  constructor(
    readonly rank: number,
    private readonly out: RankEvent[],
  ) {
    this.base = 5_000_000_000 + rank * 777_777_777;
  }

  clock(t: number): void {
    this.out.push({
      type: 'clock',
      rank: this.rank,
      seq: 0,
      time: this.base + t,
      realtime: REALTIME_BASE + t,
    });
  }

  world(size: number): void {
    const members = Array.from({ length: size }, (_, i) => i);
    this.out.push({
      type: 'comm',
      rank: this.rank,
      seq: 0,
      time: this.base,
      comm: WORLD + this.rank,
      size,
      myRank: this.rank,
      parent: 0,
      creatorSeq: 0,
      isInter: false,
      members,
      remoteMembers: [],
    });
  }

  request(): number {
    return 0x9000 + this.rank * 0x10000 + this.nextRequest++;
  }

  enter(name: string, t: number, where: number, args: Record<string, ArgValue>): number {
    const seq = ++this.seq;
    this.out.push({
      type: 'enter',
      rank: this.rank,
      seq,
      time: this.base + t,
      fn: functionNamed(name),
      site: where,
      args,
    });
    return seq;
  }

  complete(name: string, seq: number, t: number, request: number, source: number, bytes: number): void {
    this.out.push({
      type: 'complete',
      rank: this.rank,
      seq,
      time: this.base + t,
      fn: functionNamed(name),
      request,
      source,
      tag: TAG,
      bytes,
      error: 0,
      cancelled: false,
    });
  }

  exit(name: string, seq: number, t: number, outputs: Record<string, ArgValue> = {}): void {
    this.out.push({
      type: 'exit',
      rank: this.rank,
      seq,
      time: this.base + t,
      fn: functionNamed(name),
      returnCode: 0,
      outputs,
    });
  }

  p2p(peer: number, request: number): Record<string, ArgValue> {
    return {
      buf: 0x7f0000 + peer,
      count: 1024,
      datatype: 0x4c00040b,
      dest: peer,
      source: peer,
      tag: TAG,
      comm: WORLD + this.rank,
      request,
    };
  }

  end(t: number): void {
    this.out.push({
      type: 'end',
      rank: this.rank,
      seq: this.seq,
      time: this.base + t,
      how: 'finalized',
      code: 0,
      dropped: 0,
    });
  }
}

export function syntheticJob(o: SyntheticOptions): SyntheticJob {
  const n = o.ranks;
  const rand = rng(o.seed ?? 42);
  const events: RankEvent[] = [];
  const w = Array.from({ length: n }, (_, r) => new RankWriter(r, events));
  const bytes = 8192;
  let t = 0;
  for (const r of w) {
    r.clock(rand() * 2000);
    r.world(n);
  }
  for (const r of w) {
    const s = r.enter('MPI_Init', t + rand() * 5000, site('init'), { argc: 0, argv: 0 });
    r.exit('MPI_Init', s, t + 180_000 + rand() * 20_000);
  }
  t = 220_000;
  const every = o.allreduceEvery ?? 10;
  for (let it = 0; it < o.iterations; it++) {
    // Each rank posts its four operations at slightly different times; a receive completes only once its
    // neighbour's send has been posted, so arrows always point forward in time.
    const posted = w.map(() => t + rand() * 4000);
    for (const r of w) {
      const left = (r.rank + n - 1) % n;
      const right = (r.rank + 1) % n;
      let at = posted[r.rank] ?? t;
      const reqs: number[] = [];
      const post = (name: string, where: string, peer: number): void => {
        const req = r.request();
        const s = r.enter(name, at, site(where), r.p2p(peer, 0));
        at += 600 + rand() * 400;
        r.exit(name, s, at, { request: req });
        at += 100;
        reqs.push(req);
      };
      post('MPI_Irecv', 'irecvLeft', left);
      post('MPI_Irecv', 'irecvRight', right);
      post('MPI_Isend', 'isendLeft', left);
      post('MPI_Isend', 'isendRight', right);
      const s = r.enter('MPI_Waitall', at, site('waitall'), {
        count: 4,
        array_of_requests: reqs,
        array_of_statuses: 0,
      });
      const arrive = (peer: number): number =>
        Math.max(at, (posted[peer] ?? t) + 3000) + 1500 + rand() * 3000;
      const fromLeft = arrive(left);
      const fromRight = arrive(right);
      const arrivals: [number, number, number][] = [
        [fromLeft, reqs[0] ?? 0, left],
        [fromRight, reqs[1] ?? 0, right],
      ];
      arrivals.sort((a, b) => a[0] - b[0]);
      for (const [when, req, peer] of arrivals) r.complete('MPI_Waitall', s, when, req, peer, bytes);
      const done = Math.max(fromLeft, fromRight) + 300;
      r.exit('MPI_Waitall', s, done);
    }
    t += 14_000 + rand() * 2000;
    // Compute phase: the gap between iterations on every lane.
    t += 20_000 + rand() * 10_000;
    if (every > 0 && (it + 1) % every === 0) {
      const enters = w.map(() => t + rand() * 15_000);
      const leave = Math.max(...enters) + 4000;
      for (const r of w) {
        const s = r.enter('MPI_Allreduce', enters[r.rank] ?? t, site('allreduce'), {
          sendbuf: 0x7e0000,
          recvbuf: 0x7e1000,
          count: 1,
          datatype: 0x4c00080b,
          op: 0x58000003,
          comm: WORLD + r.rank,
        });
        r.exit('MPI_Allreduce', s, leave + rand() * 1500);
      }
      t = leave + 20_000;
    }
  }
  const findings: Finding[] = [];
  const ring = o.deadlock === true && n >= 3 ? 3 : 0;
  for (const r of w) {
    if (r.rank < ring) {
      const from = (r.rank + 1) % ring;
      r.enter('MPI_Recv', t + rand() * 5000, site('ringRecv'), { ...r.p2p(from, 0), status: 0 });
    } else {
      const s = r.enter('MPI_Finalize', t + rand() * 5000, site('finalize'), {});
      r.exit('MPI_Finalize', s, t + 60_000 + rand() * 5000);
      r.end(t + 70_000);
    }
  }
  if (ring > 0) {
    findings.push({
      kind: 'deadlock',
      severity: 'error',
      message: `Deadlock: ranks 0, 1 and 2 each wait in MPI_Recv for the next one, and none of them sends first. Make one rank send before it receives, or use MPI_Sendrecv.`,
      locations: Array.from({ length: ring }, (_, r) => ({
        rank: r,
        file: SOURCE_FILE,
        line: SITES.ringRecv?.[1] ?? 0,
        function: 'exchange',
        call: 'MPI_Recv',
        detail: `MPI_Recv from rank ${(r + 1) % ring}, tag ${TAG}`,
      })),
    });
  }
  const lines = new Map<number, number>(Object.values(SITES).map(([a, l]) => [a, l]));
  return { events, findings, lines };
}
