/**
 * The rank's request rows (model/request-pool.ts): the store against objects kept aside, and the engine's paths
 * giving every row back — a request's row that no holder points at any more must be reused, or the pool grows
 * with the length of the run instead of with what is pending.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineState } from '../../server/src/engine/engine-state';
import {
  RequestPool,
  IN_WRITES,
  NOT_INDEXED,
  type RequestWhat,
} from '../../server/src/engine/model/request-pool';
import type { CallEnter } from '../../server/src/engine/model/types';
import { functionNamed } from '../../server/src/protocol/spec';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';
import { random } from './seeded-random';

const WHATS: readonly RequestWhat[] = ['send', 'recv', 'coll', 'mrecv', 'other'];
const FNS = ['MPI_Isend', 'MPI_Irecv', 'MPI_Send_init', 'MPI_Ibarrier'].map((n) => functionNamed(n));

interface Expected {
  handle: number;
  what: RequestWhat;
  persistent: boolean;
  site: number;
  fnId: number;
  active: boolean;
  misused: boolean;
  statusSeen: boolean;
  stamp: number;
  template: CallEnter | undefined;
}

test('RequestPool keeps every field of every live row through allocation, release, reuse and growth', () => {
  for (const seed of [1, 2, 3]) {
    const rnd = random(seed);
    const pool = new RequestPool();
    const live = new Map<number, Expected>();
    let maxLive = 0;
    for (let step = 0; step < 20_000; step++) {
      // Grow to a few hundred rows, then drain: rows are reused and the columns doubled under live rows.
      const phase = Math.floor(step / 5000) % 2 === 0;
      if (live.size === 0 || rnd() < (phase ? 0.55 : 0.25)) {
        const fn = FNS[Math.floor(rnd() * FNS.length)] as (typeof FNS)[number];
        const created = {
          fn,
          site: Math.floor(rnd() * 2 ** 40),
          keepWords: () => undefined,
        } as unknown as CallEnter;
        const what = WHATS[Math.floor(rnd() * WHATS.length)] as RequestWhat;
        const persistent = rnd() < 0.3;
        const r = pool.alloc(created, what, persistent, undefined, undefined);
        assert.ok(!live.has(r), `row ${r} handed out while live`);
        live.set(r, {
          handle: 0,
          what,
          persistent,
          site: created.site,
          fnId: fn.id,
          active: !persistent,
          misused: false,
          statusSeen: false,
          stamp: 0,
          template: persistent ? created : undefined,
        });
        maxLive = Math.max(maxLive, live.size);
      } else {
        const rows = [...live.keys()];
        const r = rows[Math.floor(rnd() * rows.length)] as number;
        const x = live.get(r) as Expected;
        const pick = rnd();
        if (pick < 0.5) {
          pool.release(r);
          live.delete(r);
        } else if (pick < 0.6) {
          x.handle = 0x7000_0000_0000 + step;
          pool.setHandle(r, x.handle);
        } else if (pick < 0.7) {
          x.active = !x.active;
          pool.setActive(r, x.active);
        } else if (pick < 0.8) {
          x.misused = true;
          pool.setMisused(r);
        } else if (pick < 0.9) {
          x.statusSeen = true;
          pool.setStatusSeen(r);
        } else {
          x.stamp = 2 ** 52 + step;
          pool.setStamp(r, x.stamp);
        }
      }
      if (step % 997 === 0 || step === 19_999)
        for (const [r, x] of live) {
          assert.ok(pool.isLive(r));
          assert.equal(pool.handle(r), x.handle);
          assert.equal(pool.what(r), x.what);
          assert.equal(pool.isSend(r), x.what === 'send');
          assert.equal(pool.persistent(r), x.persistent);
          assert.equal(pool.site(r), x.site);
          assert.equal(pool.fn(r).id, x.fnId);
          assert.equal(pool.active(r), x.active);
          assert.equal(pool.misused(r), x.misused);
          assert.equal(pool.statusSeen(r), x.statusSeen);
          assert.equal(pool.stamp(r), x.stamp);
          assert.equal(pool.template(r), x.template);
        }
    }
    assert.equal(pool.live, live.size);
    // Reused rows: the columns hold at most twice the most rows live at once (doubling), not one per request.
    assert.ok(
      pool.capacity <= Math.max(16, 2 * maxLive),
      `capacity ${pool.capacity} for ${maxLive} live at most`,
    );
  }
});

test('RequestPool refuses a row released twice or released while a pending-buffer index holds it', () => {
  const pool = new RequestPool();
  const created = { fn: FNS[1], site: 1, keepWords: () => undefined } as unknown as CallEnter;
  const r = pool.alloc(created, 'recv', false, undefined, undefined);
  pool.setIndexed(r, IN_WRITES, 0x9000, 0);
  assert.throws(() => pool.release(r), /pending-buffer index/);
  pool.setIndexed(r, NOT_INDEXED, 0, 0);
  pool.release(r);
  assert.throws(() => pool.release(r), /released twice/);
  assert.equal(pool.live, 0);
});

function isendAs(r: Rank, h: number, dest: number, tag: number, o: { error?: number } = {}): void {
  r.call(
    'MPI_Isend',
    { buf: 0x9000, count: 1, datatype: INT, dest, tag, comm: r.handle('world'), request: 0 },
    o,
    [],
    { request: h },
  );
}

function sendInit(r: Rank, h: number, dest: number): void {
  r.call(
    'MPI_Send_init',
    { buf: 0x9200, count: 1, datatype: INT, dest, tag: 5, comm: r.handle('world'), request: 0 },
    {},
    [],
    { request: h },
  );
}

test('the engine gives back the row of every request that leaves: completed, freed, orphaned, failed, made complete', () => {
  const ROUNDS = 200;
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  sendInit(r0, 0x66, 1);
  for (let i = 0; i < ROUNDS; i++) {
    // Nonblocking both ways, completed by a Waitall.
    const s = r0.isend(1, { buf: 0x10000 });
    const q = r0.irecv(1, { buf: 0x20000, tag: 1 });
    r0.waitall([s, q]);
    const s1 = r1.isend(0, { buf: 0x30000, tag: 1 });
    const q1 = r1.irecv(0, { buf: 0x40000 });
    r1.waitall([s1, q1]);
    // A persistent send started and completed each round (the row stays, its operation changes).
    r0.call('MPI_Start', { request: 0x66 });
    r0.call('MPI_Wait', { request: 0x66, status: 0 }, {}, [[0x66, 0, 0]]);
    r1.recv(0, { tag: 5 });
    // An Isend that MPI rejected (an error code): no request, and no message (a tag nothing receives: a receive
    // seen before the failed send's EXIT would take its message).
    isendAs(r0, 0x9999, 1, 9, { error: 13 });
    // An Isend freed while active: an orphan until its completion arrives with a later call.
    const h = 0x50000 + i;
    isendAs(r0, h, 1, 0);
    r0.call('MPI_Request_free', { request: h });
    r1.recv(0);
    r0.call('MPI_Barrier', { comm: r0.handle('world') }, {}, [[h, 0, 0]]);
    r1.call('MPI_Barrier', { comm: r1.handle('world') });
  }
  r0.call('MPI_Request_free', { request: 0x66 });
  r0.finalize();
  r1.finalize();
  const engine = createEngine({ ranks: 2 });
  for (const ev of job.interleave(7)) engine.push(ev);
  engine.finish();
  const st = (engine as unknown as { st: EngineState }).st;
  for (const t of st.tracks) {
    assert.equal(t.reqs.live, 0, `rank ${t.rank}: rows still live after every request left`);
    assert.ok(t.reqs.capacity <= 16, `rank ${t.rank}: ${t.reqs.capacity} rows for ${ROUNDS} rounds`);
  }
  // And the job is correct: the pool changed nothing the checks say.
  check(job, []);
});
