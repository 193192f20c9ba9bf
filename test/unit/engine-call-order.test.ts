/** call-order: thread-level violations, and ranks the library ends inside a call. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { functionNamed } from '../../server/src/protocol/spec';
import type { RankEvent } from '../../server/src/engine/model/types';
import { check } from './engine-check';
import { Job, type Rank } from './engine-dsl';

const SINGLE = 0;
const FUNNELED = 1;
const SERIALIZED = 2;
const MULTIPLE = 3;

/** Every rank starts with MPI_Init_thread(required = level) instead of MPI_Init. */
function initThread(job: Job, level: number): void {
  const fn = functionNamed('MPI_Init_thread');
  for (const r of job.ranks) {
    const [enter, exit] = r.events as [RankEvent, RankEvent];
    if (enter.type !== 'enter' || exit.type !== 'exit') throw new Error('the job must start with MPI_Init');
    r.events[0] = { ...enter, fn, args: { argc: 0, argv: 0, required: level, provided: 0 } };
    r.events[1] = { ...exit, fn };
  }
}

/** Two threads of `r` in MPI at once: MPI_Comm_size enters and returns while MPI_Comm_rank is in progress. */
function overlap(r: Rank): void {
  const comm = r.handle('world');
  const inner = r.call('MPI_Comm_rank', { comm, rank: 0 }, { hang: true, site: 0xa1 });
  r.call('MPI_Comm_size', { comm, size: 0 }, { site: 0xa2 });
  const fn = functionNamed('MPI_Comm_rank');
  r.events.push({
    type: 'exit',
    rank: r.rank,
    seq: inner,
    time: 1e6,
    fn,
    returnCode: 0,
    outputs: { flag: 0 },
  });
}

/** MPI_Comm_size made on a thread the shim flags as not MPI_Init's (ENTER flags bit1). */
function fromOtherThread(r: Rank): void {
  r.call('MPI_Comm_size', { comm: r.handle('world'), size: 0 });
  const i = r.events.length - 2; // the call's ENTER, then its EXIT
  const enter = r.events[i];
  if (enter?.type === 'enter') r.events[i] = { ...enter, otherThread: true };
}

test('two threads in MPI at once below MPI_THREAD_MULTIPLE: call-order at both calls', () => {
  for (const level of [SINGLE, FUNNELED, SERIALIZED]) {
    const job = new Job(2);
    initThread(job, level);
    const [r0, r1] = job.ranks as [Rank, Rank];
    overlap(r0);
    r0.finalize();
    r1.finalize();
    check(job, [
      {
        kind: 'call-order',
        ranks: [0, 0],
        message: ['while another of its threads is still inside MPI_Comm_rank', 'MPI_THREAD_'],
        details: ['MPI_Comm_rank in progress on another thread', 'MPI_Comm_size while another thread'],
      },
    ]);
  }
});

test('MPI_THREAD_MULTIPLE allows it; only the first violation of a rank is reported', () => {
  const ok = new Job(2);
  initThread(ok, MULTIPLE);
  overlap(ok.ranks[0] as Rank);
  fromOtherThread(ok.ranks[1] as Rank);
  for (const r of ok.ranks) r.finalize();
  check(ok, []);

  const twice = new Job(1);
  overlap(twice.ranks[0] as Rank);
  overlap(twice.ranks[0] as Rank);
  twice.ranks[0]?.finalize();
  check(twice, [{ kind: 'call-order', ranks: [0, 0], message: ['MPI_THREAD_SINGLE'] }]);
});

test('a call from another thread than MPI_Init’s: an error under SINGLE and FUNNELED, fine under SERIALIZED', () => {
  for (const level of [SINGLE, FUNNELED]) {
    const job = new Job(2);
    initThread(job, level);
    fromOtherThread(job.ranks[1] as Rank);
    for (const r of job.ranks) r.finalize();
    check(job, [
      {
        kind: 'call-order',
        ranks: [1],
        message: [
          'from a thread other than the one that called MPI_Init',
          'only the main thread may call MPI',
        ],
      },
    ]);
  }
  const job = new Job(2);
  initThread(job, SERIALIZED);
  fromOtherThread(job.ranks[1] as Rank);
  for (const r of job.ranks) r.finalize();
  check(job, []);
});

test('a rank the library ends inside a call (MPICH aborting on an error) is not also missing MPI_Finalize', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  r0.call('MPI_Comm_size', { comm: r0.handle('world'), size: 0 }, { hang: true });
  r0.end('exit-without-finalize', -1);
  r1.end('exit-without-finalize', -1);
  check(job, [{ kind: 'call-order', ranks: [1], message: ['Rank 1 exited without calling MPI_Finalize'] }]);
});

test('the same thread-level violation at the same call site on every rank is one finding, whatever the lag', () => {
  const job = new Job(3);
  initThread(job, FUNNELED);
  for (const r of job.ranks) fromOtherThread(r);
  // Rank 2 calls from another thread at a different site: its own finding.
  const r2 = job.ranks[2] as Rank;
  const i = r2.events.findIndex((e) => e.type === 'enter' && e.otherThread === true);
  const enter = r2.events[i];
  if (enter?.type === 'enter') r2.events[i] = { ...enter, site: 0xc2 };
  for (const r of job.ranks) r.finalize();
  job.relocate();
  // check() feeds the ranks' streams in nine different interleavings and wants the same findings from each.
  check(job, [
    {
      kind: 'call-order',
      ranks: [0, 1],
      message: [
        'Ranks 0,1 call MPI_Comm_size from a thread other than',
        'they asked for MPI_THREAD_FUNNELED',
      ],
    },
    { kind: 'call-order', ranks: [2], message: ['Rank 2 calls MPI_Comm_size from a thread other than'] },
  ]);

  const both = new Job(2);
  for (const r of both.ranks) overlap(r);
  for (const r of both.ranks) r.finalize();
  both.relocate();
  check(both, [
    {
      kind: 'call-order',
      ranks: [0, 0, 1, 1],
      message: ['Ranks 0,1 call MPI_Comm_size while another of their threads is still inside MPI_Comm_rank'],
    },
  ]);
});

test('a rank whose stream arrives after the others have finished still joins their finding', () => {
  const job = new Job(2);
  initThread(job, FUNNELED);
  for (const r of job.ranks) fromOtherThread(r);
  for (const r of job.ranks) r.finalize();
  job.relocate();
  const engine = createEngine({ ranks: 2 });
  for (const e of (job.ranks[0] as Rank).events) engine.push(e);
  assert.deepEqual(engine.takeFindings(), [], 'held until the end of the run');
  for (const e of (job.ranks[1] as Rank).events) engine.push(e);
  assert.deepEqual(
    engine.finish().map((f) => [f.kind, f.locations.map((l) => l.rank)]),
    [['call-order', [0, 1]]],
  );
});

test('a held thread-level finding is released when a deadlock ends the job', () => {
  const job = new Job(2);
  initThread(job, FUNNELED);
  const [r0, r1] = job.ranks as [Rank, Rank];
  fromOtherThread(r0);
  r0.recv(1, { hang: true });
  r1.recv(0, { hang: true });
  const engine = createEngine({ ranks: 2 });
  for (const e of job.interleave(0)) engine.push(e);
  assert.deepEqual(engine.takeFindings(), [], 'held until the end of the run or a deadlock');
  assert.equal(engine.findDeadlock()?.kind, 'deadlock');
  assert.deepEqual(
    engine.takeFindings().map((f) => [f.kind, f.locations.map((l) => l.rank)]),
    [['call-order', [0]]],
  );
});

/** Reorders the records of r's last calls: `order` lists [call index, record index] pairs over them. */
function interleaveThreads(r: Rank, from: number, cuts: number[], order: [number, number][]): void {
  const calls = cuts.map((cut, i) => r.events.slice(cut, cuts[i + 1] ?? r.events.length));
  const mixed = order.map(([c, k]) => {
    const ev = calls[c]?.[k];
    if (ev === undefined) throw new Error(`no record ${k} of call ${c}`);
    return ev;
  });
  r.events.splice(from, Infinity, ...mixed);
}

test('MPI_THREAD_MULTIPLE: two threads’ records interleave, each EXIT and COMPLETE finds its call by seq', () => {
  const job = new Job(2);
  initThread(job, MULTIPLE);
  const [r0, r1] = job.ranks as [Rank, Rank];
  // Thread B enters MPI_Sendrecv, thread A enters MPI_Irecv, B's receive completes, A returns, B returns.
  const start = r0.events.length;
  r0.sendrecv(1, 1); // ENTER, COMPLETE, EXIT
  const irecvAt = r0.events.length;
  const h = r0.irecv(1, { tag: 5 }); // ENTER, EXIT
  interleaveThreads(
    r0,
    start,
    [start, irecvAt],
    [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
      [0, 2],
    ],
  );
  r0.send(1, { tag: 6 });
  r0.wait(h);
  r0.finalize();
  r1.sendrecv(0, 0);
  r1.send(0, { tag: 5 });
  r1.recv(0, { tag: 6 });
  r1.finalize();
  check(job, []);
});

test('MPI_THREAD_MULTIPLE: no potential deadlock from replaying two threads’ calls as one sequence', () => {
  const job = new Job(2);
  initThread(job, MULTIPLE);
  const [r0, r1] = job.ranks as [Rank, Rank];
  // A second thread sends tag 1 (buffered, it returns at once), then the main thread sends tag 2; rank 1
  // receives tag 2 first. With zero buffering the second thread waits in its send while the main thread goes
  // on: no deadlock, although replaying rank 0's calls as one sequence would stop at the send of tag 1.
  r0.send(1, { tag: 1 });
  const i = r0.events.length - 2; // the send's ENTER, then its EXIT
  const enter = r0.events[i];
  if (enter?.type === 'enter') r0.events[i] = { ...enter, otherThread: true };
  r0.send(1, { tag: 2 });
  r0.finalize();
  r1.recv(0, { tag: 2 });
  r1.recv(0, { tag: 1 });
  r1.finalize();
  check(job, []);
});

test('MPI_THREAD_SERIALIZED: one thread at a time, so the replay still finds the potential deadlock', () => {
  const job = new Job(2);
  initThread(job, SERIALIZED);
  const [r0, r1] = job.ranks as [Rank, Rank];
  r0.send(1, { tag: 1 });
  const i = r0.events.length - 2;
  const enter = r0.events[i];
  if (enter?.type === 'enter') r0.events[i] = { ...enter, otherThread: true };
  r0.send(1, { tag: 2 });
  r0.finalize();
  r1.recv(0, { tag: 2 });
  r1.recv(0, { tag: 1 });
  r1.finalize();
  // Rank 1's receive of tag 2 waits for the send behind rank 0's stuck one: both ranks' lines.
  check(job, [{ kind: 'potential-deadlock', ranks: [0, 1] }]);
});

test('held thread-level findings are released when the job is ended without finish()', () => {
  const job = new Job(2);
  initThread(job, FUNNELED);
  for (const r of job.ranks) fromOtherThread(r);
  job.relocate();
  const engine = createEngine({ ranks: 2 });
  for (const e of job.interleave(0)) engine.push(e);
  assert.deepEqual(engine.takeFindings(), [], 'held while the job runs');
  engine.releaseHeld();
  assert.deepEqual(
    engine.takeFindings().map((f) => [f.kind, f.locations.map((l) => l.rank)]),
    [['call-order', [0, 1]]],
  );
});

test('MPI_THREAD_MULTIPLE: a call in flight while another thread makes hundreds of calls still finds its records', () => {
  const job = new Job(2);
  initThread(job, MULTIPLE);
  const [r0, r1] = job.ranks as [Rank, Rank];
  // Thread A enters MPI_Recv; thread B makes 300 calls (more than the ring of calls by seq holds) before A's
  // receive completes and returns. Its COMPLETE must still find it: else rank 1's message is left unmatched.
  r0.recv(1, { tag: 7 });
  const tail = r0.events.splice(r0.events.length - 2, 2); // the receive's COMPLETE and EXIT
  for (let i = 0; i < 300; i++) r0.call('MPI_Comm_size', { comm: r0.handle('world'), size: 0 });
  r0.events.push(...tail);
  // And a late COMPLETE of a call already returned (a thread's COMPLETE may follow its call's EXIT).
  r0.recv(1, { tag: 8 });
  const [complete, exit] = r0.events.splice(r0.events.length - 2, 2) as [RankEvent, RankEvent];
  r0.events.push(exit);
  for (let i = 0; i < 40; i++) r0.call('MPI_Comm_size', { comm: r0.handle('world'), size: 0 });
  r0.events.push(complete);
  r0.finalize();
  r1.send(0, { tag: 7 });
  r1.send(0, { tag: 8 });
  r1.finalize();
  check(job, []);
});

/**
 * A call made from an attribute's delete function, which MPI runs inside `outer` on the same thread (ENTER flags
 * bit3, nested): `outer` enters, the nested call enters and returns, then `outer` returns.
 */
function nestedIn(r: Rank, outer: string, args: Record<string, number>, then?: () => void): void {
  const seq = r.call(outer, args, { hang: true });
  const comm = r.handle('world');
  r.call('MPI_Comm_size', { comm, size: 0 });
  const i = r.events.length - 2; // the nested call's ENTER, then its EXIT
  const enter = r.events[i];
  if (enter?.type === 'enter') r.events[i] = { ...enter, nested: true };
  then?.();
  r.events.push({
    type: 'exit',
    rank: r.rank,
    seq,
    time: 1e6 + seq,
    fn: functionNamed(outer),
    returnCode: 0,
    outputs: {},
  });
}

test('a call nested in a callback MPI runs inside another call is no second thread: no call-order, the replay still runs', () => {
  const job = new Job(2);
  initThread(job, SINGLE);
  const [r0, r1] = job.ranks as [Rank, Rank];
  nestedIn(r0, 'MPI_Comm_delete_attr', { comm: r0.handle('world'), comm_keyval: 7 });
  // The head-to-head sends only the zero-buffering replay finds, which runs only when no rank had two threads in MPI.
  r0.send(1, { tag: 1 });
  r0.recv(1, { tag: 2 });
  r0.finalize();
  r1.send(0, { tag: 2 });
  r1.recv(0, { tag: 1 });
  r1.finalize();
  check(job, [{ kind: 'potential-deadlock', ranks: [0, 1] }]);
});

test('a call nested in MPI_Finalize (a delete function of an MPI_COMM_SELF attribute) is not a call after it', () => {
  const job = new Job(1);
  const [r0] = job.ranks as [Rank];
  nestedIn(r0, 'MPI_Finalize', {}, () => undefined);
  r0.end('finalized');
  check(job, []);
});
