// The shard layer's pieces without threads: who owns what (the router), the stream's batches, the merge of
// findings, and — the property the whole layer rests on — that K engines each owning their pairs and
// communicators, beside the coordinator's global engine, find exactly what one engine finds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { Engine } from '../../server/src/engine/engine-api';
import type { EngineFinding } from '../../server/src/engine/model/types';
import { FindingMerge, findingKey, inContentOrder } from '../../server/src/shards/finding-merge';
import {
  GLOBAL_ONLY,
  homeOf,
  shardOfComm,
  shardOfPair,
  shardOwnership,
} from '../../server/src/shards/ownership-map';
import { BatchWriter, readBatch, type Batch } from '../../server/src/shards/stream-batch';
import { RecordColumns } from '../../server/src/protocol/columns';
import { appendEvent } from '../../server/src/protocol/append-event';
import { functions, KIND } from '../../server/src/protocol/spec';
import { Router } from '../../server/src/shards/router';
import { RouteModel } from '../../server/src/shards/route-model';
import { analyzersProblem } from '../../server/src/shards/analyzers';
import { parseArgs } from '../../server/src/cli/args';
import { encodeEvent, frameOf } from '../../server/src/protocol/testing/encode';
import { ShardedEngine } from '../../server/src/shards/sharded-engine';
import type { PoolTuning } from '../../server/src/shards/shard-pool';
import { FLOAT, INT, Job, ANY } from './engine-dsl';

test('every ordered pair and every communicator has exactly one owner', () => {
  for (const k of [1, 2, 3, 4, 7]) {
    const owners = Array.from({ length: k }, (_, i) => shardOwnership(i, k));
    for (let s = 0; s < 40; s++)
      for (let d = 0; d < 40; d++) {
        const n = owners.filter((o) => o.pair(s, d)).length;
        assert.equal(n, 1, `pair ${s}→${d} at K=${k} has ${n} owners`);
        assert.equal(shardOfPair(s, d, k) < k, true);
      }
    for (let c = 0; c < 200; c++) assert.equal(owners.filter((o) => o.comm(`world:0,1/${c}:0,1`)).length, 1);
    assert.equal(GLOBAL_ONLY.pair(0, 1) || GLOBAL_ONLY.comm('world:0,1'), false);
  }
});

test('rings, their reverse and random pairs spread over the shards', () => {
  const k = 4;
  const n = 1024;
  const load = (pairs: [number, number][]) => {
    const per = new Array<number>(k).fill(0);
    for (const [s, d] of pairs) per[shardOfPair(s, d, k)] = (per[shardOfPair(s, d, k)] ?? 0) + 1;
    return per;
  };
  const ring = Array.from({ length: n }, (_, i): [number, number] => [i, (i + 1) % n]);
  const back = Array.from({ length: n }, (_, i): [number, number] => [(i + 1) % n, i]);
  const stride = Array.from({ length: n }, (_, i): [number, number] => [i, (i + 32) % n]);
  for (const [name, pairs] of [
    ['ring', ring],
    ['reverse ring', back],
    ['stride 32', stride],
  ] as const) {
    const per = load([...pairs]);
    // A fair share is n/k = 256: no shard may get less than half or more than one and a half of it.
    for (const p of per) assert.ok(p > n / k / 2 && p < (n / k) * 1.5, `${name}: ${per.join(', ')}`);
  }
  const comms = new Array<number>(k).fill(0);
  // Keys as the registry makes them: the n-th split of the world, whose keys differ in a few characters only.
  for (let c = 0; c < 400; c++) {
    const at = shardOfComm(`world:0,1,2,3/${c}:0,2`, k);
    comms[at] = (comms[at] ?? 0) + 1;
  }
  for (const c of comms) assert.ok(c > 50 && c < 150, `communicators: ${comms.join(', ')}`);
});

test('a batch gives back its rows (words and text) and item marks in order, across full batches', () => {
  const w = new BatchWriter(256);
  const cols = new RecordColumns(4);
  const sent: string[] = [];
  const batches: Batch[] = [];
  const keep = (b: Batch | undefined) => b && batches.push(b);
  const show = (c: RecordColumns, r: number) => {
    const words = Array.from(c.words.subarray(c.wordStart[r], (c.wordStart[r] ?? 0) + (c.wordCount[r] ?? 0)));
    return `r${c.kind[r]}/${c.flags[r]}/${c.func[r]}/${c.rank[r]}/${c.seq[r]}/${c.time[r]}/${c.site[r]}/${words.join(',')}/${c.text.get(r) ?? ''}`;
  };
  for (let i = 0; i < 40; i++) {
    if (i % 6 === 0) {
      keep(w.mark(i));
      sent.push(`m${i}`);
    }
    cols.clear();
    const words = Array.from({ length: i % 9 }, (_, j) => i * 1000 + j + 0.5);
    const row = cols.add(i % 7, i % 3, i * 5, i % 5, i * 11, i * 1e9 + 0.25, i * 3, words, 0, words.length);
    if (i % 4 === 0) cols.text.set(row, `/lib/é${'x'.repeat(i)}.so`);
    keep(w.row(cols, row));
    sent.push(show(cols, row));
    // Posted at once now and then, as at the end of a turn of the event loop: the buffer goes on.
    if (i % 11 === 5) keep(w.take());
  }
  keep(w.take());
  assert.equal(w.take(), undefined, 'an empty writer closes no batch');
  assert.ok(batches.length > 5, 'small batches were closed when full');
  assert.ok(
    batches.some((b, i) => i > 0 && b.buffer === batches[i - 1]?.buffer && b.start > 0),
    'a batch taken before the buffer is full leaves the rest of the buffer to the next',
  );
  const got: string[] = [];
  const into = new RecordColumns(2);
  for (const b of batches)
    readBatch(
      b.buffer,
      b.start,
      b.end,
      into,
      (c) => {
        for (let r = 0; r < c.length; r++) got.push(show(c, r));
      },
      (item) => got.push(`m${item}`),
    );
  assert.deepEqual(got, sent);
  assert.equal(
    batches.reduce((a, b) => a + b.rows, 0),
    40,
  );
});

const finding = (kind: EngineFinding['kind'], message: string, rank = 0): EngineFinding => ({
  kind,
  severity: 'error',
  message,
  locations: [{ rank, site: 0, call: 'MPI_Send', detail: '' }],
});

test('the merge releases a position only once every source passed it, in (position, content) order', () => {
  const m = new FindingMerge(3);
  m.add(2, 4, [finding('type-mismatch', 'b')]);
  m.add(0, 4, [finding('leak' as EngineFinding['kind'], 'a')]);
  m.add(1, 1, [finding('count-mismatch', 'c')]);
  m.progress(0, 10);
  m.progress(2, 10);
  assert.deepEqual(m.release(), [], 'source 1 has passed nothing yet');
  m.progress(1, 2);
  assert.deepEqual(
    m.release().map((f) => f.message),
    ['c'],
  );
  m.progress(1, 5);
  const out = m.release();
  // Position 4 from two sources: content order, whatever the source.
  assert.deepEqual(
    out.map((f) => f.message),
    [finding('leak' as EngineFinding['kind'], 'a'), finding('type-mismatch', 'b')]
      .sort((x, y) => (findingKey(x) < findingKey(y) ? -1 : 1))
      .map((f) => f.message),
  );
  m.add(1, 7, [finding('deadlock', 'z')]);
  assert.deepEqual(m.release(), []);
  assert.deepEqual(
    m.releaseAll().map((f) => f.message),
    ['z'],
  );
  assert.deepEqual(
    inContentOrder([finding('deadlock', 'y'), finding('count-mismatch', 'x')]).map((f) => f.kind),
    ['count-mismatch', 'deadlock'],
  );
});

test('a bad number of analyzers is one clear line, on the command line and in a launch configuration', () => {
  for (const bad of ['0', '-1', 'x', '65', '2.5'])
    assert.throws(
      () => parseArgs(['run', '--analyzers', bad, '-np', '2', 'a.out']),
      (e: Error) =>
        e.message.startsWith(`--analyzers must be a whole number`) && e.message.includes(`(got ${bad})`),
    );
  assert.equal(parseArgs(['run', '--analyzers', '4', '-np', '2', 'a.out']).command, 'run');
  const run = parseArgs(['run', '--analyzers=3', '-np', '2', 'a.out']);
  assert.equal(run.command === 'run' ? run.analyzers : 0, 3);
  const rep = parseArgs(['report', 't.bin', '--analyzers', '2']);
  assert.equal(rep.command === 'report' ? rep.analyzers : 0, 2);
  const auto = parseArgs(['run', '--analyzers', 'auto', '-np', '2', 'a.out']);
  assert.ok(auto.command === 'run' && (auto.analyzers ?? 0) >= 1, 'auto is one per core');
  assert.equal(analyzersProblem(1), undefined);
  assert.match(analyzersProblem('4') ?? '', /whole number/);
});

/** What the coordinator's engine and K owning engines find together, merged as the shard layer merges. */
function shardedFindings(job: Job, seed: number, k: number): string[] {
  const engines: Engine[] = [
    createEngine({ ranks: job.size, owns: GLOBAL_ONLY }),
    ...Array.from({ length: k }, (_, i) => createEngine({ ranks: job.size, owns: shardOwnership(i, k) })),
  ];
  return runAll(engines, job, seed);
}

function runAll(engines: Engine[], job: Job, seed: number): string[] {
  const merge = new FindingMerge(engines.length);
  let item = 0;
  for (const e of job.interleave(seed)) {
    engines.forEach((en, i) => {
      en.push(e);
      merge.add(i, item, en.takeFindings());
      merge.progress(i, item + 1);
    });
    item++;
  }
  const live = merge.release();
  const [global, ...shards] = engines as [Engine, ...Engine[]];
  const deadlock = global.findDeadlock();
  const over =
    deadlock !== undefined ||
    global.rankStates().every((r) => r.state === 'finalized' || r.state === 'ended');
  const end = over ? inContentOrder([...global.finish(), ...shards.flatMap((s) => s.finish())]) : [];
  return [...live, ...(deadlock ? [deadlock] : []), ...end].map(findingKey);
}

/** Jobs with findings of every owned kind (messages, collectives) and of the global ones beside them. */
function jobs(): [string, Job][] {
  const out: [string, Job][] = [];
  {
    const job = new Job(6);
    for (const r of job.ranks) {
      const next = (r.rank + 1) % 6;
      const prev = (r.rank + 5) % 6;
      // A ring whose odd ranks send floats to even ones that receive ints: type mismatches on three pairs.
      const h = r.irecv(prev, { type: INT, site: 0x10 });
      r.send(next, { type: r.rank % 2 === 1 ? FLOAT : INT, site: 0x20 });
      r.wait(h);
      // Truncation on 2 → 3 only.
      if (r.rank === 2) r.send(3, { count: 8, tag: 5, site: 0x30 });
      if (r.rank === 3) r.recv(2, { count: 4, tag: 5, site: 0x40 });
      r.bcast(r.rank === 4 ? 1 : 0, { site: 0x50 });
      r.allreduce({ site: 0x60 });
      r.finalize();
    }
    out.push(['ring with mismatches and a root mismatch', job.relocate()]);
  }
  {
    const job = new Job(4);
    const [r0, r1, r2, r3] = job.ranks as [
      Job['ranks'][0],
      Job['ranks'][0],
      Job['ranks'][0],
      Job['ranks'][0],
    ];
    // A farm: rank 0 receives from any source; ranks 1..3 send, rank 3 with the wrong type.
    for (const src of [1, 2, 3]) r0.recv(ANY, { got: [src, 0], type: INT, site: 0x11 });
    r1.send(0, { site: 0x21 });
    r2.send(0, { site: 0x21 });
    r3.send(0, { type: FLOAT, site: 0x21 });
    // A message never received, for the end-of-run checks.
    r2.send(1, { tag: 9, site: 0x31 });
    // Sends to MPI_PROC_NULL (no owner: the global shard alone, and the wait of its request) and a receive.
    r1.wait(r1.isend(-2, { tag: 4 }));
    r3.waitall([r3.isend(-2, { tag: 4 }), r3.irecv(-2, { tag: 4 })]);
    for (const r of job.ranks) r.finalize();
    out.push(['wildcard farm with an unmatched message', job.relocate()]);
  }
  {
    const job = new Job(6);
    for (let step = 0; step < 3; step++)
      for (const r of job.ranks) {
        const next = (r.rank + 1) % 6;
        const prev = (r.rank + 5) % 6;
        // A halo exchange completed by one Waitall whose requests have two owners (the receive's home, the
        // send's receiver's home); odd ranks send floats on the second step, and a wildcard receive at the third.
        const type = step === 1 && r.rank % 2 === 1 ? FLOAT : INT;
        const src = step === 2 ? ANY : prev;
        r.waitall([r.irecv(src, { got: [prev, 0], site: 0x13 }), r.isend(next, { type, site: 0x23 })]);
        r.sendrecv(5 - r.rank, 5 - r.rank, { site: 0x33 });
      }
    for (const r of job.ranks) r.finalize();
    out.push(['halo exchanges completed by a Waitall', job.relocate()]);
  }
  {
    const job = new Job(3);
    const [r0, r1, r2] = job.ranks as [Job['ranks'][0], Job['ranks'][0], Job['ranks'][0]];
    // A wildcard receive that fails with MPI_ERR_TRUNCATE completes without a status: the engine pairs it
    // with the oldest send to rank 0 on any channel — rank 2's int, since rank 1 first sends two messages to
    // rank 2, and rank 0 first sends four to rank 2 (its receive completes after every send to it is seen).
    // Rank 0's receive from rank 1 then meets rank 1's float: a type mismatch, which the owner of 1 → 0 must
    // find too (it sees that oldest send only if it owns every channel into rank 0).
    for (let i = 0; i < 4; i++) r0.send(2, { tag: 8 });
    r1.send(2, { tag: 7 });
    r1.send(2, { tag: 7 });
    r1.send(0, { type: FLOAT, site: 0x12 });
    r2.send(0, { type: INT, count: 8, site: 0x32 });
    r2.send(0, { type: INT, count: 8, site: 0x32 });
    r2.recv(1, { tag: 7 });
    r2.recv(1, { tag: 7 });
    for (let i = 0; i < 4; i++) r2.recv(0, { tag: 8 });
    r0.recv(ANY, { count: 4, error: 15, site: 0x42 });
    r0.recv(1, { type: INT, site: 0x52 });
    r0.recv(2, { type: INT, count: 8, site: 0x62 });
    for (const r of job.ranks) r.finalize();
    out.push(['a wildcard receive completed without a status', job]);
  }
  {
    const job = new Job(3);
    const [r0, r1, r2] = job.ranks as [Job['ranks'][0], Job['ranks'][0], Job['ranks'][0]];
    // A deadlock beside a type mismatch made before it.
    r0.send(1, { type: FLOAT });
    r1.recv(0, { type: INT });
    r1.recv(2, { hang: true });
    r2.recv(1, { hang: true });
    r0.barrier({ hang: true });
    out.push(['deadlock after a mismatch', job]);
  }
  return out;
}

test('K owning engines beside the global one find exactly what one engine finds, in the same order', () => {
  for (const [name, job] of jobs()) {
    for (const seed of [0, 1, 2, 3]) {
      const lone = runAll([createEngine({ ranks: job.size })], job, seed);
      assert.ok(lone.length > 0, `${name}: the job has findings`);
      for (const k of [1, 2, 4, 5])
        assert.deepEqual(shardedFindings(job, seed, k), lone, `${name}, seed ${seed}, K=${k}`);
    }
  }
});

test('an owning engine reports only the checks of what it owns; the global one only the rest', () => {
  const [, job] = jobs()[0] as [string, Job];
  const kinds = (e: Engine) => {
    const found: EngineFinding[] = [];
    for (const ev of job.interleave(0)) {
      e.push(ev);
      found.push(...e.takeFindings());
    }
    return found;
  };
  const global = kinds(createEngine({ ranks: job.size, owns: GLOBAL_ONLY }));
  assert.deepEqual(
    global.filter((f) => ['type-mismatch', 'count-mismatch', 'collective-mismatch'].includes(f.kind)),
    [],
  );
  const k = 3;
  const perShard = Array.from({ length: k }, (_, i) =>
    kinds(createEngine({ ranks: job.size, owns: shardOwnership(i, k) })),
  );
  for (const [i, found] of perShard.entries())
    for (const f of found) {
      if (f.kind === 'collective-mismatch') continue;
      const [s, r] = f.locations;
      assert.ok(
        s !== undefined && r !== undefined && shardOfPair(s.rank, r.rank, k) === i,
        `${f.kind} in shard ${i}`,
      );
    }
  assert.ok(perShard.flat().some((f) => f.kind === 'type-mismatch'));
  assert.ok(perShard.flat().some((f) => f.kind === 'collective-mismatch'));
});

/** Each rank's events as frames of `per` records, interleaved round robin, as the session receives them. */
function framesOf(job: Job, per: number): { rank: number; data: Uint8Array }[] {
  const lists = job.ranks.map((r) => {
    const out: Uint8Array[] = [];
    let batch: Uint8Array[] = [];
    let n = 0;
    for (const e of r.events) {
      const rec = encodeEvent(e);
      batch.push(rec);
      n += rec.length / 64;
      if (n >= per) {
        out.push(frameOf(batch));
        batch = [];
        n = 0;
      }
    }
    if (batch.length > 0) out.push(frameOf(batch));
    return out;
  });
  const order: { rank: number; data: Uint8Array }[] = [];
  for (let i = 0; lists.some((l) => l.length > i); i++)
    lists.forEach((l, rank) => {
      const data = l[i];
      if (data !== undefined) order.push({ rank, data });
    });
  return order;
}

test('shard threads, fed raw frames, give the findings of the lone engine, in its order (live, deadlock, end of run)', async () => {
  for (const [name, job] of jobs()) {
    const frames = framesOf(job, 3);
    const run = async (k: number, tuning?: PoolTuning) => {
      const engine = new ShardedEngine(job.size, k, tuning);
      assert.equal(engine.shardThreads, k > 1 ? k : 0, 'K = 1 starts no thread');
      const out: EngineFinding[] = [];
      try {
        for (const f of frames) {
          engine.pushRecords(f.rank, f.data);
          out.push(...engine.takeFindings());
        }
        engine.settle();
        out.push(...engine.takeFindings());
        const deadlock = engine.findDeadlock();
        if (deadlock !== undefined) out.push(deadlock, ...engine.takeFindings());
        else out.push(...engine.finish());
        return out.map(findingKey);
      } finally {
        await engine.dispose();
      }
    };
    const one = await run(1);
    assert.ok(one.length > 0, `${name}: findings`);
    assert.deepEqual(await run(3), one, `${name}: K=3`);
    // Batches of a frame or two, shards allowed one item of lag: the coordinator waits for them at almost
    // every frame.
    assert.deepEqual(
      await run(2, { batchBytes: 256, maxLagItems: 1 }),
      one,
      `${name}: K=2, waiting on the shards`,
    );
  }
});

test('a shard that fails is named in the skipped checks, and the coordinator neither hangs nor throws', async () => {
  const [, job] = jobs()[0] as [string, Job];
  const engine = new ShardedEngine(job.size, 2);
  try {
    // A batch no coordinator writes (an unknown item kind): the shard's reader throws on it, as it would on
    // a bug of ours.
    engine['pool']?.postUnchecked(1, new Uint8Array(16).fill(9));
    for (const f of framesOf(job, 4)) engine.pushRecords(f.rank, f.data);
    engine.settle();
    engine.takeFindings();
    engine.finish();
    const skipped = engine.skippedChecks().find((s) => s.reason.includes('analyzer shard stopped'));
    assert.ok(skipped, 'the failure is named');
    assert.ok(skipped.checks.includes('type-mismatch'));
    assert.match(skipped.reason, /--analyzers 1/);
  } finally {
    await engine.dispose();
  }
});

test('the router sends a call only to the shards that own what it touches; definitions to every shard', () => {
  const k = 4;
  const n = 8;
  const job = new Job(n);
  for (const r of job.ranks) {
    const right = (r.rank + 1) % n;
    const left = (r.rank + n - 1) % n;
    r.send(right, { tag: 1 });
    r.recv(left, { tag: 1 });
    r.allreduce();
    r.waitall([r.irecv(left, { tag: 11 }), r.isend(right, { tag: 11 })]);
    if (r.rank === 0) r.recv(ANY, { got: [1, 5], tag: 5 });
    if (r.rank === 1) r.send(0, { tag: 5 });
    // The boundary of a stencil: a send to MPI_PROC_NULL, and a receive from it.
    if (r.rank === 2) r.send(-2, { tag: 6 }).recv(-2, { tag: 6 });
    r.finalize();
  }
  const coordinator = createEngine({ ranks: n, owns: GLOBAL_ONLY });
  const router = new Router(k, coordinator);
  const cols = new RecordColumns(8);
  const seen: { fn: string; rank: number; kind: number; route: readonly number[] }[] = [];
  for (const e of job.interleave(0)) {
    cols.clear();
    appendEvent(cols, e);
    const route = router.route(cols, 0);
    seen.push({
      fn: functions[cols.func[0] as number]?.name ?? '',
      rank: e.rank,
      kind: cols.kind[0] as number,
      route,
    });
    coordinator.pushColumns(cols, 0, 1);
  }
  const calls = (fn: string) => seen.filter((s) => s.fn === fn && s.kind === KIND.ENTER);
  const every = [0, 1, 2, 3];
  const nullSend = calls('MPI_Send').filter((x) => x.rank === 2)[1];
  assert.deepEqual(nullSend?.route, [], 'a send to MPI_PROC_NULL goes to no owner');
  assert.deepEqual(
    calls('MPI_Recv').filter((x) => x.rank === 2)[1]?.route,
    [homeOf(2, k)],
    "a receive from MPI_PROC_NULL goes to its rank's home",
  );
  for (const s of calls('MPI_Send').filter((x) => x !== nullSend))
    if (
      s.rank === 1 &&
      calls('MPI_Send')
        .filter((x) => x.rank === 1)
        .indexOf(s) === 1
    )
      assert.deepEqual(
        s.route,
        [shardOfPair(1, 0, k)],
        'the second send of rank 1 goes to the owner of 1 → 0',
      );
    else assert.deepEqual(s.route, [shardOfPair(s.rank, (s.rank + 1) % n, k)], `MPI_Send of rank ${s.rank}`);
  const recvs = calls('MPI_Recv');
  for (const s of recvs.filter((x) => recvs.filter((y) => y.rank === x.rank).indexOf(x) === 0))
    assert.deepEqual(s.route, [shardOfPair((s.rank + n - 1) % n, s.rank, k)], `MPI_Recv of rank ${s.rank}`);
  assert.deepEqual(
    recvs.filter((x) => x.rank === 0)[1]?.route,
    [homeOf(0, k)],
    'a wildcard receive goes to the home shard of its rank, the owner of every pair into it',
  );
  const world = coordinator.commKey(0, job.ranks[0]?.handle('world') ?? 0);
  assert.ok(world !== undefined, 'the coordinator knows MPI_COMM_WORLD');
  for (const s of calls('MPI_Allreduce')) assert.deepEqual(s.route, [shardOfComm(world, k)]);
  for (const s of [...calls('MPI_Init'), ...calls('MPI_Finalize')]) assert.deepEqual(s.route, every);
  // Every EXIT and COMPLETE goes where its call's ENTER went.
  for (const s of seen.filter(
    (x) => x.kind !== KIND.ENTER && ['MPI_Send', 'MPI_Recv', 'MPI_Allreduce'].includes(x.fn),
  )) {
    const enters = seen.filter((x) => x.kind === KIND.ENTER && x.rank === s.rank && x.fn === s.fn);
    assert.ok(
      enters.some((x) => x.route === s.route),
      `${s.fn} of rank ${s.rank}: EXIT/COMPLETE route`,
    );
  }
  // A Waitall of a receive and a send goes to both owners; each of its COMPLETE rows to its request's owner.
  const waitalls = calls('MPI_Waitall');
  assert.ok(waitalls.some((x) => x.route.length === 2));
  for (const w of waitalls) {
    const owners = [homeOf(w.rank, k), shardOfPair(w.rank, (w.rank + 1) % n, k)].sort();
    assert.deepEqual(w.route, [...new Set(owners)], `MPI_Waitall of rank ${w.rank}`);
    const done = seen.filter((x) => x.fn === 'MPI_Waitall' && x.rank === w.rank && x.kind === KIND.COMPLETE);
    assert.equal(done.length, 2);
    assert.deepEqual(done.map((x) => x.route).sort(), owners.map((o) => [o]).sort(), `its COMPLETE rows`);
  }
  // No row of these calls went to more shards than its owners.
  const moved = seen.filter((x) => ['MPI_Send', 'MPI_Allreduce'].includes(x.fn));
  assert.ok(
    moved.length > 0 &&
      moved.every(
        (x) => x.route.length === 1 || (x.rank === 2 && x.fn === 'MPI_Send' && x.route.length === 0),
      ),
  );
});

test('shard threads are sent their share of the calls, not every record; the global shard every call', async () => {
  const n = 16;
  const job = new Job(n);
  for (let step = 0; step < 20; step++)
    for (const r of job.ranks) {
      r.send((r.rank + 1) % n, { tag: step });
      r.recv((r.rank + n - 1) % n, { tag: step });
    }
  for (const r of job.ranks) r.finalize();
  const frames = framesOf(job, 16);
  const engine = new ShardedEngine(n, 4);
  try {
    for (const f of frames) engine.pushRecords(f.rank, f.data);
    engine.finish();
    const routing = engine.routing();
    assert.ok(routing !== undefined);
    const total = frames.reduce((a, f) => a + f.data.byteLength / 64, 0);
    const perShard = routing.perShard;
    assert.equal(perShard.length, 4);
    // A ring of 16 pairs over four shards: each shard but the global one is sent some of the messages' calls
    // and the definitions, far fewer than every record; the global shard (0) is sent every call, and the
    // coordinator keeps none.
    const [global, ...owners] = perShard as [number, ...number[]];
    for (const p of owners)
      assert.ok(p > 0 && p < total / 2, `shard rows ${perShard.join(', ')} of ${total}`);
    assert.ok(
      owners.every((p) => p < global),
      `shard rows ${perShard.join(', ')}`,
    );
    const counts = routing.counts;
    assert.equal(global, counts.none + counts.one + counts.some + counts.every, 'every row reaches shard 0');
    assert.ok(routing.counts.one > routing.counts.every, JSON.stringify(routing.counts));
  } finally {
    await engine.dispose();
  }
});

test("the coordinator's routing model names communicators as the engine does, and never makes one up", () => {
  const n = 6;
  const job = new Job(n);
  const evens = [0, 2, 4];
  const odds = [1, 3, 5];
  const halfdup = new Map<number, number>();
  for (const r of job.ranks) {
    r.commCreate('MPI_Comm_split', 'world', 'half', r.rank % 2 === 0 ? evens : odds);
    r.commCreate('MPI_Comm_dup', 'half', 'halfdup', r.rank % 2 === 0 ? evens : odds);
    // A communicator made by a call the shim does not see (no COMM record), and one derived from it.
    r.comms.set('cart', { handle: 777, members: job.ranks.map((x) => x.rank) });
    r.commCreate(
      'MPI_Comm_dup',
      'cart',
      'cartdup',
      job.ranks.map((x) => x.rank),
    );
    r.barrier({ comm: 'cartdup' });
    halfdup.set(r.rank, r.handle('halfdup'));
    r.commFree('halfdup');
    r.finalize();
  }
  const engine = createEngine({ ranks: n });
  const model = new RouteModel(n);
  const cols = new RecordColumns(8);
  for (const e of job.interleave(1)) {
    cols.clear();
    appendEvent(cols, e);
    model.take(cols, 0);
    engine.pushColumns(cols, 0, 1);
  }
  for (const r of job.ranks) {
    for (const name of ['world', 'half']) {
      const h = r.handle(name);
      const key = engine.commKey(r.rank, h);
      assert.ok(key !== undefined, `rank ${r.rank}: the engine knows ${name}`);
      assert.equal(model.commKey(r.rank, h), key, `rank ${r.rank}: ${name}`);
      for (let peer = 0; peer < (name === 'world' ? n : 3); peer++)
        assert.equal(
          model.peerWorld(r.rank, h, peer),
          engine.peerWorld(r.rank, h, peer),
          `${name} peer ${peer}`,
        );
    }
    // The engine keys cartdup from the parent it made up; the model does not know it (its calls go to every
    // shard), nor the freed halfdup.
    assert.ok(engine.commKey(r.rank, r.handle('cartdup')) !== undefined);
    assert.equal(model.commKey(r.rank, r.handle('cartdup')), undefined, `rank ${r.rank}: cartdup`);
    assert.equal(model.commKey(r.rank, 777), undefined, `rank ${r.rank}: cart`);
    assert.equal(
      model.commKey(r.rank, halfdup.get(r.rank) ?? -1),
      undefined,
      `rank ${r.rank}: halfdup was freed`,
    );
  }
});

test("the coordinator's routing model keeps the communicators still live, not every one the job made", () => {
  const n = 4;
  const job = new Job(n);
  const world = job.ranks.map((x) => x.rank);
  const solves = 300;
  for (let i = 0; i < solves; i++)
    for (const r of job.ranks) {
      r.commCreate('MPI_Comm_dup', 'world', 'solve', world);
      r.barrier({ comm: 'solve' });
      r.commFree('solve');
    }
  // One still live at the end: kept.
  for (const r of job.ranks) r.commCreate('MPI_Comm_dup', 'world', 'last', world);
  const model = new RouteModel(n);
  const cols = new RecordColumns(8);
  const kept: number[] = [];
  let rows = 0;
  for (const e of job.interleave(1)) {
    cols.clear();
    appendEvent(cols, e);
    model.take(cols, 0);
    if (++rows % 250 === 0) kept.push(model.communicatorsKept());
  }
  const end = model.communicatorsKept();
  assert.ok(kept.length > 10, `${rows} rows`);
  // At the end: world, each rank's self and the live one. Over the run: those and the solves some member has not
  // freed yet (the interleaving lets a rank run ahead of the others), far fewer than the job made.
  assert.equal(end, 1 + n + 1, `kept at the end`);
  assert.ok(Math.max(...kept) < solves / 5, `kept over the run: ${kept.join(' ')}`);
  for (const r of job.ranks) assert.ok(model.commKey(r.rank, r.handle('last')) !== undefined, 'the live one');
});
