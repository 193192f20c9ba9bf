/** The shim's own checks become findings of the right kind, with the numbers the shim measured. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionNamed } from '../../server/src/protocol/spec';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

test('bsend-buffer-too-small is an invalid-argument at the Bsend, with the bytes needed and attached', () => {
  for (const [have, says] of [
    [192, 'but only 192 bytes are attached'],
    [0, 'but no buffer is attached'],
  ] as const) {
    const job = new Job(2);
    const [r0, r1] = job.ranks as [Rank, Rank];
    const fn = functionNamed('MPI_Bsend');
    const seq = r0.call(
      'MPI_Bsend',
      { buf: 0x9000, count: 100, datatype: INT, dest: 1, tag: 0, comm: r0.handle('world') },
      { hang: true, site: 0xb5 },
    );
    r0.events.push(
      {
        type: 'shim-finding',
        rank: 0,
        seq,
        time: 1e6,
        fn,
        site: 0xb5,
        check: 'bsend-buffer-too-small',
        message: 'the buffered send needs more space',
        param: -1,
        values: [528, have, 400],
      },
      // MPICH fails the call: it sends nothing, so nothing is unmatched.
      { type: 'exit', rank: 0, seq, time: 1e6 + 1, fn, returnCode: 15, outputs: { flag: 0 } },
    );
    r0.finalize();
    r1.finalize();
    check(job, [
      {
        kind: 'invalid-argument',
        ranks: [0],
        message: ["Rank 0's MPI_Bsend needs 528 bytes of buffer space", says],
        details: [
          have > 0 ? 'MPI_Bsend needs 528 bytes, 192 attached' : 'MPI_Bsend needs 528 bytes, none attached',
        ],
      },
    ]);
  }
});

test('send-buffer-modified, found by the shim in the Wait, points at the Isend that was given the buffer', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const h = r0.isend(1);
  const isend = r0.events.at(-2); // the Isend's ENTER, then its EXIT
  const isendSite = isend?.type === 'enter' ? isend.site : -1;
  const seq = r0.call('MPI_Wait', { request: h, status: 0 }, { hang: true, site: 0x3a17 });
  const fn = functionNamed('MPI_Wait');
  r0.events.push(
    {
      type: 'complete',
      rank: 0,
      seq,
      time: 1e6,
      fn,
      request: h,
      source: -1,
      tag: -1,
      bytes: 0,
      error: 0,
      cancelled: false,
    },
    {
      type: 'shim-finding',
      rank: 0,
      seq,
      time: 1e6 + 1,
      fn,
      site: 0x3a17,
      check: 'send-buffer-modified',
      message: 'the buffer of a pending nonblocking send was modified',
      param: -1,
      values: [h, 0x50000, 16],
    },
    { type: 'exit', rank: 0, seq, time: 1e6 + 2, fn, returnCode: 0, outputs: { flag: 0 } },
  );
  r0.finalize();
  r1.recv(0).finalize();
  const [f] = check(job, [
    {
      kind: 'send-buffer-modified',
      ranks: [0],
      message: ['buffer of a pending MPI_Isend'],
      details: ["MPI_Isend's buffer modified before its MPI_Wait completed it"],
    },
  ]);
  assert.equal(f?.locations[0]?.site, isendSite);
});

/** Both ranks call `name` with `args`, and the shim finds `checkId` in each call. */
function bothRanksFind(name: string, args: Record<string, number>, checkId: string, values: number[]): Job {
  const job = new Job(2);
  const fn = functionNamed(name);
  for (const r of job.ranks) {
    const seq = r.call(name, args, { hang: true, site: 0x40 + r.rank });
    r.events.push(
      {
        type: 'shim-finding',
        rank: r.rank,
        seq,
        time: 1e6,
        fn,
        site: 0x40 + r.rank,
        check: checkId,
        message: 'spec text',
        param: 2,
        values,
      },
      { type: 'exit', rank: r.rank, seq, time: 1e6 + 1, fn, returnCode: 0, outputs: {} },
    );
    r.finalize();
  }
  return job;
}

test('the same argument rule broken by every rank at its k-th call of a function is one finding, every rank in it', () => {
  const job = bothRanksFind(
    'MPI_Group_incl',
    { group: 0x77, n: 2, ranks: 0x5000, newgroup: 0 },
    'duplicate-rank',
    [0, 1],
  );
  const [f] = check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0, 1],
      message: ['MPI_Group_incl is called with an invalid argument', '(ranks = 0)'],
    },
  ]);
  assert.equal(f?.severity, 'error');
});

test('a check the spec declares a note gives a note, worded as legal but suspicious', () => {
  const job = bothRanksFind('MPI_Type_commit', { datatype: 0x99 }, 'commit-committed', [0x99, 0]);
  const [f] = check(job, [
    { kind: 'invalid-argument', ranks: [0, 1], message: ['a legal but suspicious argument'] },
  ]);
  assert.equal(f?.severity, 'note');
});

test('a stack buffer is a candidate for the session to judge, once per description; its call still matches', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const fn = functionNamed('MPI_Send');
  for (let i = 0; i < 2; i++) {
    const seq = r0.call(
      'MPI_Send',
      { buf: 0x7ff0, count: 8, datatype: INT, dest: 1, tag: 0, comm: r0.handle('world') },
      { site: 0x5e },
    );
    // The shim's description comes between the ENTER and the EXIT: 32 bytes reached from CFA - 64.
    r0.events.splice(r0.events.length - 1, 0, {
      type: 'shim-finding',
      rank: 0,
      seq,
      time: 1e6 + i,
      fn,
      site: 0x5e,
      check: 'stack-buffer-frame',
      message: 'a buffer on the stack',
      param: 0,
      values: [-64, 32, 0],
    });
    r1.recv(0, { count: 8 });
  }
  r0.finalize();
  r1.finalize();
  check(job, [{ kind: 'invalid-argument', ranks: [0], message: ["MPI_Send's buf reaches 32 bytes"] }]);
});

test('heap-buffer-too-small is an invalid-argument at the call, with the bytes reached and the bytes the block holds', () => {
  const job = new Job(2);
  const [r0, r1] = job.ranks as [Rank, Rank];
  const fn = functionNamed('MPI_Recv');
  const seq = r1.call(
    'MPI_Recv',
    { buf: 0x5000, count: 10, datatype: INT, source: 0, tag: 0, comm: r1.handle('world'), status: 0 },
    { hang: true, site: 0x77 },
  );
  r1.events.push(
    {
      type: 'shim-finding',
      rank: 1,
      seq,
      time: 1e6,
      fn,
      site: 0x77,
      check: 'heap-buffer-too-small',
      message: 'spec text',
      param: 0,
      values: [40, 24],
    },
    { type: 'exit', rank: 1, seq, time: 1e6 + 1, fn, returnCode: 0, outputs: {} },
  );
  r0.finalize();
  r1.finalize();
  check(job, [
    {
      kind: 'invalid-argument',
      ranks: [1],
      message: [
        "Rank 1's MPI_Recv reads or writes 40 bytes from buf",
        'a heap block (malloc) that ends 24 bytes after it',
      ],
      details: ['MPI_Recv: buf reaches 40 bytes, its heap block ends after 24'],
    },
  ]);
});

test('heap-buffer-too-small in a collective is one finding, each rank with its own numbers', () => {
  const job = bothRanksFind(
    'MPI_Bcast',
    { buffer: 0x6000, count: 64, datatype: INT, root: 0, comm: 0 },
    'heap-buffer-too-small',
    [256, 136],
  );
  // The finding names the buffer (parameter 0), not bothRanksFind's parameter 2.
  for (const r of job.ranks)
    for (const e of r.events) if (e.type === 'shim-finding') Object.assign(e, { param: 0 });
  check(job, [
    {
      kind: 'invalid-argument',
      ranks: [0, 1],
      message: ["MPI_Bcast's buffer reaches past the end of its heap block (malloc) on the ranks below"],
      details: ['MPI_Bcast: buffer reaches 256 bytes, its heap block ends after 136', ''],
    },
  ]);
});
