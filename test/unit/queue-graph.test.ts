/**
 * The debugger's message queues: the engine's read of pending sends, receives and unexpected messages with the
 * waits-for graph and its cycles (from a synthetic stream), and the page the extension draws from them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine } from '../../server/src/engine/engine';
import { ANY, Job } from './engine-dsl';
import { queueGraphHtml } from '../../server/src/dap/queue-graph-html';
import type { MessageQueuesResponse } from '../../server/src/dap/message-queues-request';

function queuesOf(job: Job) {
  const engine = createEngine({ ranks: job.size });
  for (const e of job.interleave(1)) engine.push(e);
  return engine.messageQueues();
}

test('a receive ring is a cycle; a message nobody receives yet is unexpected at its destination', () => {
  const job = new Job(4);
  const [r0, r1, r2, r3] = job.ranks;
  // 0 waits for 1, 1 for 2, 2 for 0: a cycle. Rank 3 sent to 0 (done: buffered) and waits for anyone.
  r0?.recv(1, { tag: 1, hang: true });
  r1?.recv(2, { tag: 1, hang: true });
  r2?.recv(0, { tag: 1, hang: true });
  r3?.send(0, { tag: 9 }).recv(ANY, { hang: true });
  const q = queuesOf(job);
  assert.deepEqual(q.cycles, [[0, 1, 2]]);
  const kinds = q.entries.map((e) => `${e.kind} @${e.rank} peer ${e.peer} tag ${e.tag}`).sort();
  assert.deepEqual(kinds, [
    'receive @0 peer 1 tag 1',
    'receive @1 peer 2 tag 1',
    'receive @2 peer 0 tag 1',
    'receive @3 peer -1 tag 0',
    'unexpected @0 peer 3 tag 9',
  ]);
  const cyc = q.edges.filter((e) => e.inCycle).map((e) => `${e.from}>${e.to}`);
  assert.deepEqual(cyc.sort(), ['0>1', '1>2', '2>0']);
  // The wildcard receive waits for every other rank, outside the cycle.
  assert.deepEqual(
    q.edges.filter((e) => e.from === 3).map((e) => [e.to, e.inCycle]),
    [
      [0, false],
      [1, false],
      [2, false],
    ],
  );
});

test('a blocked send is pending at its sender; matched messages leave the queues', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks;
  r0?.send(1, { tag: 3 }).recv(1, { tag: 4, hang: true });
  r1?.recv(0, { tag: 3 });
  r1?.ssend(0, { tag: 5, hang: true });
  const q = queuesOf(job);
  assert.deepEqual(
    q.entries.map((e) => [e.kind, e.rank, e.peer, e.tag]),
    [
      ['receive', 0, 1, 4],
      ['send', 1, 0, 5],
    ],
  );
  assert.deepEqual(q.cycles, [[0, 1]], 'each waits for the other: tags 4 and 5 never meet');
});

test('the page draws the cycle, escapes what the program named, and runs no script', () => {
  const q: MessageQueuesResponse = {
    paused: true,
    ranks: 3,
    entries: [
      {
        kind: 'receive',
        rank: 0,
        peer: 1,
        tag: 1,
        comm: 'MPI_COMM_WORLD',
        count: 1,
        call: 'MPI_Recv',
        site: 1,
        caller: 0,
        detail: 'MPI_Recv from rank 1, tag 1 on <world>',
        file: '/src/a<b>.c',
        line: 12,
        function: 'main',
      },
    ],
    edges: [
      { from: 0, to: 1, kind: 'receive', inCycle: true },
      { from: 1, to: 0, kind: 'receive', inCycle: true },
      { from: 2, to: 0, kind: 'send', inCycle: false },
    ],
    cycles: [[0, 1]],
  };
  const html = queueGraphHtml(q, 'N0NCE');
  assert.match(html, /Cycle: ranks 0 → 1 wait for each other/);
  assert.equal((html.match(/<line class="edge receive cycle"/g) ?? []).length, 2);
  assert.equal((html.match(/<line class="edge send"/g) ?? []).length, 1);
  assert.match(html, /on &lt;world&gt;/);
  assert.match(html, /a&lt;b&gt;\.c:12/);
  assert.doesNotMatch(html, /<script/);
  assert.match(html, /content="default-src 'none'; style-src 'nonce-N0NCE';"/);
  assert.match(html, /href="command:mpiscope\.openQueueSite\?/);
});
