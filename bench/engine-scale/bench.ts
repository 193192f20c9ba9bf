/**
 * Analyses whose cost grows faster than the events: each pattern whose state could grow is written with the engine
 * tests' DSL (test/unit/engine-dsl.ts, rma-dsl.ts) at N and 10·N operations, pushed into a fresh engine, and run to
 * its end (finish()). Prints the CPU microseconds per operation at N and 10·N and their ratio (1x = linear: the
 * same cost per operation at the end of a long run as at its start), and the heap the engine holds at its fullest
 * (after the last event, before finish(); in the fence patterns also inside the epoch, before its closing fence). A benchmark, not a test: nothing fails on a number; a ratio above
 * ~2x is a finding of this bench.
 *
 *   node bench/engine-scale/run.mjs [N=10000] [PATTERN-SUBSTRING]     (MPISCOPE_BENCH_ROUNDS=3: runs per size, median)
 */
import { loadavg } from 'node:os';
import { createEngine } from '../../server/src/engine/engine';
import type { RankEvent } from '../../server/src/engine/model/types';
import { ANY, INT, Job, type Rank } from '../../test/unit/engine-dsl';
import { Rma, SHARED, SUM, windows } from '../../test/unit/rma-dsl';

const N = Number(process.argv[2] ?? 10_000);
const only = process.argv[3];
/** Runs at each size, the median kept (single runs move by a third on a shared machine). */
const ROUNDS = Number(process.env['MPISCOPE_BENCH_ROUNDS'] ?? 3);

/** One pattern: a job of `n` operations (what "operation" means is said in `what`). */
interface Pattern {
  readonly name: string;
  readonly what: string;
  build(n: number): Job;
}

/** Where in each rank's events the heap is read besides the end (inside an epoch, at its fullest). */
const marks = new WeakMap<Job, number[]>();

/** A window big enough for n ints on every rank (no access is out of its bounds). */
function fenceJob(ranks: number, n: number, body: (w: Rma[], job: Job) => void): Job {
  const job = new Job(ranks);
  const w = windows(job.ranks);
  for (const x of w) x.create(4, { size: 4 * (n + 1) });
  for (const x of w) x.fence();
  body(w, job);
  // The heap is read here too, with the epoch's accesses all made and its closing fence not yet entered.
  marks.set(
    job,
    job.ranks.map((r) => r.events.length),
  );
  for (const x of w) x.fence();
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
  return job;
}

/**
 * Calls that change nothing (MPI_Comm_rank), so that every rank makes as many calls per iteration: the ranks are
 * interleaved one call at a time, and a rank with fewer calls would run ahead of the others, its steps and
 * messages pending for the whole run — the lag of this interleaving, not what the engine keeps.
 */
function pad(r: Rank, calls: number): void {
  for (let i = 0; i < calls; i++)
    r.call('MPI_Comm_rank', { comm: r.handle('world'), rank: 0 }, {}, [], { rank: r.rank });
}

const PUT_SITE = 0x501;
const ACC_SITE = 0x502;
const GET_SITE = 0x503;

const patterns: Pattern[] = [
  {
    name: 'fence-put-distinct',
    what: 'MPI_Put of rank 1 into distinct ints of rank 0, one fence epoch',
    build: (n) =>
      fenceJob(2, n, (w) => {
        for (let i = 0; i < n; i++) w[1]?.put(0, { disp: i, site: PUT_SITE });
      }),
  },
  {
    name: 'fence-put-same',
    what: 'MPI_Put of ranks 1-3 into 100 ints of rank 0, one fence epoch (racing: reported once)',
    build: (n) =>
      fenceJob(4, n, (w) => {
        for (let i = 0; i < n; i++) w[1 + (i % 3)]?.put(0, { disp: i % 100, site: PUT_SITE });
      }),
  },
  {
    name: 'fence-acc-same',
    what: 'MPI_Accumulate (MPI_SUM) of ranks 1-3 into 100 ints of rank 0, one fence epoch',
    build: (n) =>
      fenceJob(4, n, (w) => {
        for (let i = 0; i < n; i++) w[1 + (i % 3)]?.accumulate(0, SUM, { disp: i % 100, site: ACC_SITE });
      }),
  },
  {
    name: 'fence-acc-sites',
    what: 'MPI_Accumulate of rank 1 into 100 ints of rank 0, each call its own call site, one fence epoch',
    build: (n) =>
      fenceJob(2, n, (w) => {
        for (let i = 0; i < n; i++) w[1]?.accumulate(0, SUM, { disp: i % 100 });
      }),
  },
  {
    name: 'fence-get-same',
    what: 'MPI_Get of ranks 1-3 from 100 ints of rank 0, one fence epoch',
    build: (n) =>
      fenceJob(4, n, (w) => {
        for (let i = 0; i < n; i++) w[1 + (i % 3)]?.get(0, { disp: i % 100, site: GET_SITE });
      }),
  },
  {
    name: 'fence-epochs',
    what: 'fence epochs of one MPI_Put each (rank 1 into rank 0)',
    build: (n) => {
      const job = new Job(2);
      const w = windows(job.ranks);
      for (const x of w) x.create();
      for (let i = 0; i < n; i++) {
        for (const x of w) x.fence();
        w[1]?.put(0, { disp: i % 100, site: PUT_SITE });
        pad(job.ranks[0] as Rank, 1);
      }
      for (const x of w) x.fence();
      for (const x of w) x.free();
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'lock-epochs',
    what: 'MPI_Win_lock (shared) + MPI_Put + MPI_Win_unlock of rank 1 on rank 0',
    build: (n) => {
      const job = new Job(2);
      const w = windows(job.ranks);
      for (const x of w) x.create();
      for (let i = 0; i < n; i++)
        w[1]
          ?.lock(SHARED, 0)
          .put(0, { disp: i % 100, site: PUT_SITE })
          .unlock(0);
      // The heap is read here too, before the frees (after them, what the window kept is dropped).
      marks.set(
        job,
        job.ranks.map((r) => r.events.length),
      );
      for (const x of w) x.free();
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'pscw-epochs',
    what: 'post/start/put/complete/wait epochs (rank 1 into rank 0), groups made and freed each time',
    build: (n) => {
      const job = new Job(2);
      const w = windows(job.ranks);
      for (const x of w) x.create();
      for (let i = 0; i < n; i++) {
        w[0]?.postTo([1]);
        w[1]
          ?.startTo([0])
          .put(0, { disp: i % 100, site: PUT_SITE })
          .complete();
        w[0]?.wait();
        // Rank 0 makes 5 calls an epoch, rank 1 6: evened, so that neither runs ahead in the interleaving.
        pad(job.ranks[0] as Rank, 1);
      }
      marks.set(
        job,
        job.ranks.map((r) => r.events.length),
      );
      for (const x of w) x.free();
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'windows',
    what: 'windows created and freed (2 ranks)',
    build: (n) => {
      const job = new Job(2);
      const w = windows(job.ranks);
      for (let i = 0; i < n; i++) {
        for (const x of w) x.create();
        for (const x of w) x.free();
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'requests-pending',
    what: 'MPI_Irecv / MPI_Isend pending at once (one Waitall per 1,000)',
    build: (n) => {
      const job = new Job(2);
      const [r0, r1] = job.ranks as [Rank, Rank];
      for (let base = 0; base < n; base += 1000) {
        const m = Math.min(1000, n - base);
        const rs: number[] = [];
        const ss: number[] = [];
        for (let i = 0; i < m; i++) rs.push(r0.irecv(1, { tag: i, site: 0x601 }));
        for (let i = 0; i < m; i++) ss.push(r1.isend(0, { tag: i, site: 0x602 }));
        r0.waitall(rs);
        r1.waitall(ss);
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'requests-one-waitall',
    what: 'MPI_Isend of one buffer / MPI_Irecv into distinct ints, all pending until one Waitall per rank',
    build: (n) => {
      const job = new Job(2);
      const [r0, r1] = job.ranks as [Rank, Rank];
      const rs: number[] = [];
      const ss: number[] = [];
      // A root's sends of one array to many peers, a gather's receives into slots: all pending at once.
      for (let i = 0; i < n; i++) rs.push(r0.irecv(1, { tag: 1, site: 0x611, buf: 0x1000000 + 4 * i }));
      for (let i = 0; i < n; i++) ss.push(r1.isend(0, { tag: 1, site: 0x612 }));
      r0.waitall(rs);
      r1.waitall(ss);
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'wildcard-recv',
    what: 'MPI_Recv(MPI_ANY_SOURCE) of rank 0 against pending MPI_Isend of ranks 1-3 (message races)',
    build: (n) => {
      const job = new Job(4);
      const [r0] = job.ranks as [Rank];
      const per = Math.ceil(n / 3);
      for (let s = 1; s <= 3; s++) {
        const r = job.ranks[s] as Rank;
        const hs: number[] = [];
        for (let i = 0; i < per; i++) hs.push(r.isend(0, { tag: 1, site: 0x700 + s }));
        r.waitall(hs);
      }
      for (let i = 0; i < 3 * per; i++) r0.recv(ANY, { tag: 1, got: [1 + (i % 3), 1], site: 0x710 });
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'wildcard-send',
    what: 'MPI_Recv(MPI_ANY_SOURCE) of rank 0 against MPI_Send of ranks 1-3, which never hear back (nothing pending)',
    build: (n) => {
      const job = new Job(4);
      const [r0] = job.ranks as [Rank];
      const per = Math.ceil(n / 3);
      for (let s = 1; s <= 3; s++) {
        const r = job.ranks[s] as Rank;
        for (let i = 0; i < per; i++) r.send(0, { tag: 1, site: 0x700 + s });
      }
      for (let i = 0; i < 3 * per; i++) r0.recv(ANY, { tag: 1, got: [1 + (i % 3), 1], site: 0x710 });
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'wildcard-idle-rank',
    what: 'MPI_Recv(MPI_ANY_SOURCE) of rank 0, each answered by an MPI_Send to its sender (rank 1 or 2); rank 3 never hears of them',
    build: (n) => {
      const job = new Job(4);
      const [r0, r1, r2, r3] = job.ranks as [Rank, Rank, Rank, Rank];
      const per = Math.ceil(n / 4);
      for (let i = 0; i < per; i++) {
        for (const w of [r1, r2]) {
          r0.recv(ANY, { tag: 1, got: [w.rank, 1], site: 0x710 }).send(w.rank, { tag: 2, site: 0x711 });
          w.send(0, { tag: 1, site: 0x720 }).recv(0, { tag: 2, site: 0x721 });
          // Rank 0 makes 4 calls an iteration, each worker 2: evened (see pad), and rank 3's local calls teach it
          // nothing. Unpadded, the workers' steps queued behind rank 0's in the interleaving, ~19 bytes an operation.
          pad(w, 2);
        }
        pad(r3, 4);
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'p2p-baseline',
    what: 'MPI_Send / MPI_Recv pairs (the linear reference)',
    build: (n) => {
      const job = new Job(2);
      const [r0, r1] = job.ranks as [Rank, Rank];
      for (let i = 0; i < n; i++) {
        r0.send(1, { site: 0x801 });
        r1.recv(0, { site: 0x802 });
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'comms',
    what: 'MPI_Comm_dup + MPI_Comm_free (2 ranks)',
    build: (n) => {
      const job = new Job(2);
      for (let i = 0; i < n; i++)
        for (const r of job.ranks) r.commCreate('MPI_Comm_dup', 'world', 'dup', [0, 1]).commFree('dup');
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'groups',
    what: 'MPI_Comm_group + MPI_Group_incl + MPI_Group_free x2',
    build: (n) => {
      const job = new Job(2);
      const w = job.ranks.map((r) => new Rma(r));
      for (let i = 0; i < n; i++) for (const x of w) x.r.call('MPI_Group_free', { group: x.group([0, 1]) });
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'datatypes',
    what: 'MPI_Type_contiguous + commit + MPI_Bcast of it + MPI_Type_free (2 ranks)',
    build: (n) => {
      const job = new Job(2);
      const T = 0x8c000007;
      for (let i = 0; i < n; i++)
        for (const r of job.ranks) {
          const seq = r.call('MPI_Type_contiguous', { count: 4, oldtype: INT, newtype: 0 }, {}, [], {
            newtype: T,
          });
          r.events.push({
            type: 'datatype',
            rank: r.rank,
            seq,
            time: 0,
            datatype: T,
            size: 16,
            lb: 0,
            extent: 16,
            trueLb: 0,
            trueExtent: 16,
            committed: true,
            signature: [[6, 4]],
          });
          r.call('MPI_Type_commit', { datatype: T });
          r.call('MPI_Bcast', { buffer: 0x4000, count: 1, datatype: T, root: 0, comm: r.handle('world') });
          r.call('MPI_Type_free', { datatype: T });
        }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'persistent',
    what: 'MPI_Start of a persistent send and receive + MPI_Waitall (requests made once)',
    build: (n) => {
      const job = new Job(2);
      const [r0, r1] = job.ranks as [Rank, Rank];
      const SREQ = 0x7f01;
      const RREQ = 0x7f02;
      r0.call(
        'MPI_Send_init',
        { buf: 0x9200, count: 1, datatype: INT, dest: 1, tag: 5, comm: r0.handle('world'), request: 0 },
        {},
        [],
        { request: SREQ },
      );
      r1.call(
        'MPI_Recv_init',
        { buf: 0x9100, count: 1, datatype: INT, source: 0, tag: 5, comm: r1.handle('world'), request: 0 },
        {},
        [],
        { request: RREQ },
      );
      for (let i = 0; i < n; i++) {
        r0.call('MPI_Start', { request: SREQ }, { site: 0x901 });
        r0.call('MPI_Wait', { request: SREQ, status: 0 }, { site: 0x902 }, [[SREQ, 0, 0]]);
        r1.call('MPI_Start', { request: RREQ }, { site: 0x903 });
        r1.call('MPI_Wait', { request: RREQ, status: 0 }, { site: 0x904 }, [[RREQ, 0, 5]]);
      }
      r0.call('MPI_Request_free', { request: SREQ });
      r1.call('MPI_Request_free', { request: RREQ });
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'nbc-in-flight',
    what: 'MPI_Ibarrier in flight (one Waitall per 1,000, 2 ranks)',
    build: (n) => {
      const job = new Job(2);
      let h = 0x7a000;
      for (let base = 0; base < n; base += 1000) {
        const m = Math.min(1000, n - base);
        for (const r of job.ranks) {
          const hs: number[] = [];
          for (let i = 0; i < m; i++) {
            const req = h + r.rank * 0x100000 + i;
            r.call('MPI_Ibarrier', { comm: r.handle('world'), request: 0 }, { site: 0xa01 }, [], {
              request: req,
            });
            hs.push(req);
          }
          r.call(
            'MPI_Waitall',
            { count: hs.length, array_of_requests: hs, array_of_statuses: 0 },
            { site: 0xa02 },
            hs.map((q) => [q, -2, -1] as [number, number, number]),
          );
        }
        h += 1000;
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
  {
    name: 'bsend',
    what: 'MPI_Buffer_attach + MPI_Bsend + MPI_Buffer_detach of rank 0, MPI_Recv of rank 1',
    build: (n) => {
      const job = new Job(2);
      const [r0, r1] = job.ranks as [Rank, Rank];
      for (let i = 0; i < n; i++) {
        r0.call('MPI_Buffer_attach', { buffer: 0x90000, size: 1024 }, { site: 0xb01 });
        const args = { buf: 0x50000, count: 100, datatype: INT, dest: 1, tag: 0, comm: r0.handle('world') };
        const seq = r0.call('MPI_Bsend', args, { site: 0xb02 });
        // The shim's BSEND record goes right after the call's ENTER (the Bsend's ENTER and EXIT are the last two).
        const at = r0.events.length - 2;
        r0.events.splice(at + 1, 0, {
          type: 'bsend',
          rank: 0,
          seq,
          time: 0,
          fn: (r0.events[at] as RankEvent & { type: 'enter' }).fn,
          bytes: 528,
          packed: 400,
        });
        r0.call('MPI_Buffer_detach', { buffer_addr: 0, size: 0 }, { site: 0xb03 });
        r1.recv(0, { count: 100, site: 0xb04 });
        pad(r1, 2);
      }
      for (const r of job.ranks) r.finalize();
      return job;
    },
  },
];

/**
 * The ranks' events from index `from[r]` to `to[r]` of each rank, round robin one call's records at a time (an
 * index per rank: no Array.shift).
 */
function interleave(job: Job, from: readonly number[], to: readonly number[]): RankEvent[] {
  const queues = job.ranks.map((r) => r.events);
  const at = [...from];
  const out: RankEvent[] = [];
  let left = queues.reduce((s, _, r) => s + (to[r] as number) - (from[r] as number), 0);
  while (left > 0) {
    for (let r = 0; r < queues.length; r++) {
      const q = queues[r] as RankEvent[];
      const end = to[r] as number;
      // One call: from this ENTER up to the next ENTER (its completions and exit), or the rest.
      let i = at[r] as number;
      if (i >= end) continue;
      do {
        out.push(q[i++] as RankEvent);
        left--;
      } while (i < end && (q[i] as RankEvent).type !== 'enter');
      at[r] = i;
    }
  }
  return out;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

interface Run {
  readonly us: number;
  readonly heap: number;
  readonly findings: number;
  readonly skipped: string;
}

/** The engine over the events: its CPU time, the heap at its fullest (at the mark, at the end), its findings. */
function runEngine(
  size: number,
  parts: readonly (readonly RankEvent[])[],
  n: number,
): Run & { held: number } {
  let cpu = 0;
  let held = 0;
  let live = 0;
  const engine = createEngine({ ranks: size });
  for (const part of parts) {
    const t0 = process.cpuUsage();
    for (const e of part) engine.push(e);
    live += engine.takeFindings().length;
    const t = process.cpuUsage(t0);
    cpu += t.user + t.system;
    gc();
    gc();
    held = Math.max(held, process.memoryUsage().heapUsed);
  }
  const t1 = process.cpuUsage();
  const end = engine.finish();
  const finished = process.cpuUsage(t1);
  cpu += finished.user + finished.system;
  const skipped = engine
    .skippedChecks()
    .map((s) => s.checks.join(', '))
    .join('; ');
  return { us: cpu / n, heap: 0, held, findings: live + end.length, skipped };
}

function runOnce(p: Pattern, n: number): Run {
  const job = p.build(n);
  const start = job.ranks.map(() => 0);
  const end = job.ranks.map((r) => r.events.length);
  const mark = marks.get(job);
  const parts =
    mark === undefined
      ? [interleave(job, start, end)]
      : [interleave(job, start, mark), interleave(job, mark, end)];
  const r = runEngine(job.size, parts, n);
  // What the engine held at its fullest: the heap with it, less the heap once it is gone.
  gc();
  gc();
  return { ...r, heap: r.held - process.memoryUsage().heapUsed };
}

/** The run of median CPU time among ROUNDS runs at size n. */
function median(p: Pattern, n: number): Run {
  const runs = Array.from({ length: ROUNDS }, () => runOnce(p, n)).sort((x, y) => x.us - y.us);
  return runs[Math.floor(runs.length / 2)] as Run;
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `engine-scale: N = ${N} and 10N = ${10 * N} operations per pattern; median CPU µs per operation of ${ROUNDS} runs (push + finish), ratio 10N/N (1x = linear); heap the engine holds at its fullest (after the last event; in the fence patterns also before the closing fence); load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  '| pattern | µs/op at N | µs/op at 10N | ratio | heap at N | heap at 10N | findings | checks named as skipped |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const p of patterns) {
  if (only !== undefined && !p.name.includes(only)) continue;
  runOnce(p, N); // warm the JIT on this pattern's paths (and size the heap) at N
  const a = median(p, N);
  const b = median(p, 10 * N);
  const ratio = b.us / a.us;
  console.log(
    `| ${p.name} | ${a.us.toFixed(2)} | ${b.us.toFixed(2)} | ${ratio.toFixed(2)}x${ratio > 2 ? ' **' : ''} | ${mib(a.heap)} | ${mib(b.heap)} | ${a.findings}/${b.findings} | ${b.skipped || '-'} |`,
  );
}
console.log('\npatterns:');
for (const p of patterns)
  if (only === undefined || p.name.includes(only)) console.log(`  ${p.name}: ${p.what}`);
