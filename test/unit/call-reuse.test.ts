/**
 * A rank's call objects are reused by their ring slot (model/rank-track.ts Call, RankTrack.reusable): the call
 * CALL_RING seqs back becomes the next call in its slot when nothing holds it, and never when a holder kept it
 * (a persistent request's template, a buffered send's call, a collective waiting for its other members).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineState } from '../../server/src/engine/engine-state';
import type { Call } from '../../server/src/engine/model/rank-track';
import { functionNamed } from '../../server/src/protocol/spec';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

const RING = 128;

/** The seq of the rank's last call. */
function lastSeq(r: Rank): number {
  for (let i = r.events.length - 1; i >= 0; i--) {
    const e = r.events[i];
    if (e?.type === 'enter') return e.seq;
  }
  return 0;
}

function bsend(r: Rank, dest: number, tag: number): number {
  const args = { buf: 0x50000, count: 1, datatype: INT, dest, tag, comm: r.handle('world') };
  const seq = r.call('MPI_Bsend', args);
  const i = r.events.findIndex((e) => e.type === 'enter' && e.seq === seq);
  const fn = functionNamed('MPI_Bsend');
  r.events.splice(i + 1, 0, { type: 'bsend', rank: r.rank, seq, time: 0, fn, bytes: 132, packed: 4 });
  return seq;
}

test('a call nothing holds is reused by its ring slot; a call a holder kept is not', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  r0.call('MPI_Buffer_attach', { buffer: 0x90000, size: 4096 });
  const buffered = bsend(r0, 1, 7);
  const template = r0.call(
    'MPI_Send_init',
    { buf: 0x9200, count: 1, datatype: INT, dest: 1, tag: 5, comm: r0.handle('world'), request: 0 },
    {},
    [],
    { request: 0x66 },
  );
  // Rank 1 enters the barrier only after rank 0's next 3 × 128 calls are in (the events are pushed rank by rank).
  r0.barrier();
  const barrier = lastSeq(r0);
  const plain: number[] = [];
  for (let i = 0; i < 3 * RING; i++) {
    r0.send(1, { tag: 1 });
    plain.push(lastSeq(r0));
    if (i % RING === 0) {
      r0.call('MPI_Start', { request: 0x66 });
      r0.call('MPI_Wait', { request: 0x66, status: 0 }, {}, [[0x66, 0, 0]]);
    }
  }
  r0.call('MPI_Request_free', { request: 0x66 });
  r1.barrier();
  r1.recv(0, { tag: 7 });
  for (let i = 0; i < 3 * RING; i++) {
    r1.recv(0, { tag: 1 });
    if (i % RING === 0) r1.recv(0, { tag: 5 });
  }
  r0.call('MPI_Buffer_detach', { buffer_addr: 0, size: 0 });
  r0.finalize();
  r1.finalize();

  const engine = createEngine({ ranks: 2 });
  const st = (engine as unknown as { st: EngineState }).st;
  const objects = new Map<number, Call>();
  for (const r of [r0, r1])
    for (const ev of r.events) {
      engine.push(ev);
      if (ev.type === 'enter' && ev.rank === 0) objects.set(ev.seq, st.tracks[0]?.call(ev.seq) as Call);
    }
  assert.deepEqual(engine.finish(), []);

  // The plain Sends: each one's object is the Send 128 seqs later (the ring's slots are taken in seq order).
  let reused = 0;
  for (const s of plain) if (objects.has(s + RING) && objects.get(s) === objects.get(s + RING)) reused++;
  assert.ok(reused > 2 * RING - 8, `only ${reused} of ${plain.length} plain calls' objects were reused`);
  // The kept calls: never another call's object, and still themselves.
  const later = [...objects].filter(([s]) => s > template);
  for (const [name, seq] of [
    ['MPI_Bsend', buffered],
    ['MPI_Send_init', template],
    ['MPI_Barrier', barrier],
  ] as const) {
    const kept = objects.get(seq) as Call;
    assert.equal(kept.seq, seq, `${name}'s call was reused`);
    assert.equal(kept.fn.name, name);
    assert.ok(!later.some(([s, c]) => s !== seq && c === kept), `${name}'s object became a later call`);
  }
  // And the checks see the same job: no finding, whatever order the ranks' records come in.
  check(job, []);
});
