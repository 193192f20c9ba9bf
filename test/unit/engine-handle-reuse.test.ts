// Handles MPI hands out again after a free: a rank's stream may run far ahead of another's, so by the time
// the engine checks a call against its peers, the handles that call named may already mean something else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicTypeNames } from '../../server/src/engine/model/datatypes';
import { createEngine } from '../../server/src/engine/engine';
import type { EngineFinding } from '../../server/src/engine/model/types';
import { check } from './engine-check';
import { Job, type Rank } from './engine-dsl';

const INT_ID = basicTypeNames.indexOf('MPI_INT');
const DOUBLE_ID = basicTypeNames.indexOf('MPI_DOUBLE');
/** The one handle MPI keeps handing out for the type built before each broadcast. */
const T = 0x8c000007;

/** MPI_Type_contiguous(n, base) + commit, announced as the shim does, then MPI_Bcast of one, then free. */
function bcastOwnType(r: Rank, n: number, base: 'int' | 'double'): void {
  const [id, size] = base === 'int' ? [INT_ID, 4] : [DOUBLE_ID, 8];
  const seq = r.call('MPI_Type_contiguous', { count: n, oldtype: 7, newtype: 0 }, {}, [], { newtype: T });
  r.events.push({
    type: 'datatype',
    rank: r.rank,
    seq,
    time: 0,
    datatype: T,
    size: n * size,
    lb: 0,
    extent: n * size,
    trueLb: 0,
    trueExtent: n * size,
    committed: true,
    signature: [[id, n]],
  });
  r.call('MPI_Bcast', { buffer: 0x4000, count: 1, datatype: T, root: 0, comm: r.handle('world') });
  r.call('MPI_Type_free', { datatype: T });
}

/** BLACS's pattern: a type per broadcast, built, used and freed, the same handle coming back every time. */
function blacsLike(sizes: readonly (readonly [number, 'int' | 'double'])[][]): Job {
  const job = new Job(2);
  for (const r of job.ranks) for (const [n, base] of sizes[r.rank] ?? []) bcastOwnType(r, n, base);
  for (const r of job.ranks) r.finalize();
  return job;
}

/** Rank 0's whole stream first, then rank 1's: the order that made the engine read rank 0's later types. */
function rankByRank(job: Job): EngineFinding[] {
  const engine = createEngine({ ranks: job.size });
  for (const r of job.ranks) for (const e of r.events) engine.push(e);
  return [...engine.takeFindings(), ...engine.finish()];
}

const agreeing: [number, 'int' | 'double'][] = [
  [25, 'int'],
  [1, 'double'],
  [13, 'int'],
  [20, 'double'],
];

test('a collective is checked with the types its handles named when each rank entered it', () => {
  const job = blacsLike([agreeing, agreeing]);
  assert.deepEqual(
    rankByRank(job).map((f) => f.message),
    [],
  );
  check(job, []);
});

test('a real disagreement between reused handles is still found, with the sizes of the time', () => {
  const job = blacsLike([
    agreeing,
    agreeing.map(([n, b], i) => [i === 2 ? 14 : n, b] as [number, 'int' | 'double']),
  ]);
  const found = rankByRank(job);
  assert.equal(found.length, 1, found.map((f) => f.message).join('\n'));
  assert.equal(found[0]?.kind, 'count-mismatch');
  assert.match(
    found[0]?.message ?? '',
    /derived type \(52 bytes\).*derived type \(56 bytes\).*collective #3/,
  );
  check(job, [{ kind: 'count-mismatch', ranks: [0, 1], message: ['(52 bytes)', '(56 bytes)'] }]);
});

test('a type made again with the same words under another handle is the new handle’s type', () => {
  // The engine shares what it made of a rank's last DTYPE record with a record that differs only by the handle
  // (model/datatypes.ts onDatatypeRow): the new handle must name that type, and the old one keep it.
  const job = new Job(2);
  const [a, b] = job.ranks as [Rank, Rank];
  for (const handle of [0x8c000001, 0x8c000002])
    a.events.push({
      type: 'datatype',
      rank: 0,
      seq: 0,
      time: 0,
      datatype: handle,
      size: 32,
      lb: 0,
      extent: 32,
      trueLb: 0,
      trueExtent: 32,
      committed: true,
      signature: [[DOUBLE_ID, 4]],
    });
  a.send(1, { type: 0x8c000002, tag: 1 });
  a.send(1, { type: 0x8c000001, tag: 2 });
  b.recv(0, { count: 8, tag: 1 });
  b.recv(0, { count: 8, tag: 2 });
  for (const r of job.ranks) r.finalize();
  const found = rankByRank(job);
  assert.deepEqual(
    found.map((f) => f.kind),
    ['type-mismatch', 'type-mismatch'],
    found.map((f) => f.message).join('\n'),
  );
});
