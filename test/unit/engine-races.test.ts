// Message races of wildcard receives when other ranks do not hear of them for long (causal-order/races.ts): an
// earlier undecided receive stands for later ones only when every rival of theirs would be its rival too. Each
// test below is a program whose race a wrong summary misses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { check } from './engine-check';
import { ANY, Job, type Rank } from './engine-dsl';

function finalizeAll(job: Job): void {
  for (const r of job.ranks) r.finalize();
}

function skipped(job: Job): string[] {
  const engine = createEngine({ ranks: job.size });
  for (const e of job.interleave(0)) engine.push(e);
  engine.takeFindings();
  engine.finish();
  return engine.skippedChecks().flatMap((s) => s.checks);
}

test('a race after 5,000 wildcard receives no other rank heard of is found, and nothing is skipped', () => {
  // Rank 0 takes ranks 1 and 2's interchangeable messages from MPI_ANY_SOURCE and never sends: every receive
  // stays undecided to the end. The race is at the 5,001st, of another tag: before, receives beyond the first
  // 4,096 undecided were not checked.
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  for (let i = 0; i < 5000; i++) r0.recv(ANY, { tag: 1, site: 0x30, got: [1 + (i % 2), 1] });
  r0.recv(ANY, { tag: 7, site: 0x31, count: 4, got: [1, 7] });
  r0.recv(2, { tag: 7, site: 0x32, count: 4 });
  for (const r of [r1, r2]) for (let i = 0; i < 2500; i++) r.send(0, { tag: 1, site: 0x40 + r.rank });
  r1.send(0, { tag: 7, site: 0x43 });
  r2.send(0, { tag: 7, site: 0x44, count: 2 });
  finalizeAll(job);
  const [f] = check(job, [
    {
      kind: 'message-race',
      ranks: [0, 1, 2],
      message: ["Rank 0's MPI_Recv from any rank took the message of rank 1, but rank 2's MPI_Send"],
    },
  ]);
  assert.deepEqual(skipped(job), []);
  assert.equal(f?.race?.wildcard, 5001);
});

test('three senders that never hear of 6,000 wildcard receives of interchangeable messages: no race, all checked', () => {
  const job = new Job(4);
  const [r0, ...senders] = job.ranks as [Rank, Rank, Rank, Rank];
  for (let i = 0; i < 6000; i++) r0.recv(ANY, { tag: 1, site: 0x30, got: [1 + (i % 3), 1] });
  for (const r of senders) for (let i = 0; i < 2000; i++) r.send(0, { tag: 1, site: 0x40 + r.rank });
  finalizeAll(job);
  check(job, []);
  assert.deepEqual(skipped(job), []);
});

test('a sender that heard of the first wildcard receive (a send after it) but not of the second races with the second', () => {
  // Alike receives: rank 2's message, sent after it heard of the first, could have been taken by the second.
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  r0.recv(ANY, { site: 0x30, got: [1, 0] });
  r0.send(2, { tag: 9, site: 0x31 });
  r0.recv(ANY, { site: 0x30, got: [1, 0] });
  r0.recv(2, { site: 0x32, count: 2 });
  r1.send(0, { site: 0x41 }).send(0, { site: 0x41 });
  r2.recv(0, { tag: 9 }).send(0, { site: 0x42, count: 2 });
  finalizeAll(job);
  const [f] = check(job, [{ kind: 'message-race', ranks: [0, 1, 2] }]);
  // The second wildcard receive (they count from 1), not the first.
  assert.equal(f?.race?.wildcard, 2);
});

test('a sender that heard of the first wildcard receive through a barrier but not of the second races with the second', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  r0.recv(ANY, { site: 0x30, got: [1, 0] }).barrier();
  r0.recv(ANY, { site: 0x30, got: [1, 0] });
  r0.recv(2, { site: 0x32, count: 2 });
  r1.send(0, { site: 0x41 }).barrier().send(0, { site: 0x41 });
  r2.barrier().send(0, { site: 0x42, count: 2 });
  finalizeAll(job);
  const [f] = check(job, [{ kind: 'message-race', ranks: [0, 1, 2] }]);
  assert.equal(f?.race?.wildcard, 2);
});

test('a sender that heard of the first wildcard receive through MPI_Ibarrier but not of the second races with the second', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks as [Rank, Rank, Rank];
  const ibarrier = (r: Rank, h: number) => {
    r.call('MPI_Ibarrier', { comm: r.handle('world'), request: 0 }, {}, [], { request: h });
    r.wait(h);
  };
  r0.recv(ANY, { site: 0x30, got: [1, 0] });
  ibarrier(r0, 0x81);
  r0.recv(ANY, { site: 0x30, got: [1, 0] });
  r0.recv(2, { site: 0x32, count: 2 });
  r1.send(0, { site: 0x41 });
  ibarrier(r1, 0x82);
  r1.send(0, { site: 0x41 });
  ibarrier(r2, 0x83);
  r2.send(0, { site: 0x42, count: 2 });
  finalizeAll(job);
  const [f] = check(job, [{ kind: 'message-race', ranks: [0, 1, 2] }]);
  assert.equal(f?.race?.wildcard, 2);
});

test('wildcard receives of another tag, communicator or call site do not stand for each other', () => {
  // Each time the first receive takes rank 1's message, and so does the second; rank 2's message is a rival of
  // the second only: of the first's tag, communicator or site it is not.
  const tag = new Job(3);
  {
    const [r0, r1, r2] = tag.ranks as [Rank, Rank, Rank];
    r0.recv(ANY, { tag: 1, site: 0x30, got: [1, 1] });
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [1, 1] });
    r0.recv(2, { tag: 2, site: 0x32 });
    r1.send(0, { tag: 1 }).send(0, { tag: 1 });
    r2.send(0, { tag: 2 });
  }
  const comm = new Job(3);
  {
    for (const r of comm.ranks) r.commCreate('MPI_Comm_dup', 'world', 'dup', [0, 1, 2]);
    const [r0, r1, r2] = comm.ranks as [Rank, Rank, Rank];
    r0.recv(ANY, { site: 0x30, got: [1, 0] });
    r0.recv(ANY, { comm: 'dup', site: 0x30, got: [1, 0] });
    r0.recv(2, { comm: 'dup', site: 0x32, count: 2 });
    r1.send(0).send(0, { comm: 'dup' });
    r2.send(0, { comm: 'dup', count: 2 });
    for (const r of comm.ranks) r.commFree('dup');
  }
  const site = new Job(3);
  {
    const [r0, r1, r2] = site.ranks as [Rank, Rank, Rank];
    r0.recv(ANY, { site: 0x30, got: [1, 0] });
    r0.recv(ANY, { site: 0x31, got: [1, 0] });
    // Rank 2's message, taken at the first's call site, is the first's message again: no race there.
    r0.recv(ANY, { site: 0x30, got: [2, 0] });
    r1.send(0).send(0);
    r2.send(0);
  }
  for (const job of [tag, comm, site]) {
    finalizeAll(job);
    const [f] = check(job, [{ kind: 'message-race', ranks: [0, 1, 2] }]);
    assert.equal(f?.race?.wildcard, 2);
  }
});

test("wildcard receives that took other senders' messages, or other tags, do not stand for each other", () => {
  // The second receive took rank 2's message: rank 1's later message of another tag is its rival, not the
  // first's (that took rank 1's).
  const sender = new Job(3);
  {
    const [r0, r1, r2] = sender.ranks as [Rank, Rank, Rank];
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [1, 1] });
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [2, 1] });
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [1, 2] });
    r1.send(0, { tag: 1 }).send(0, { tag: 2 });
    r2.send(0, { tag: 1 });
  }
  // The second took rank 1's message of tag 2: rank 2's of tag 1 is interchangeable with the first's message,
  // not with the second's.
  const took = new Job(3);
  {
    const [r0, r1, r2] = took.ranks as [Rank, Rank, Rank];
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [1, 1] });
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [1, 2] });
    r0.recv(ANY, { tag: ANY, site: 0x30, got: [2, 1] });
    r1.send(0, { tag: 1 }).send(0, { tag: 2 });
    r2.send(0, { tag: 1 });
  }
  finalizeAll(sender);
  finalizeAll(took);
  const [a] = check(sender, [{ kind: 'message-race', ranks: [0, 2, 1] }]);
  assert.equal(a?.race?.wildcard, 2);
  const [b] = check(took, [{ kind: 'message-race', ranks: [0, 1, 2] }]);
  assert.equal(b?.race?.wildcard, 2);
});
