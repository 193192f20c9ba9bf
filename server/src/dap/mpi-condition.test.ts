import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionNamed } from '../protocol/spec';
import { ConditionError, parseCondition, parseHitCondition } from './mpi-condition';

const recv = functionNamed('MPI_Recv');
const call = (rank: number, source: number, tag: number) => ({
  rank,
  args: { buf: 1, count: 4, datatype: 7, source, tag, comm: 1, status: 0 },
});

test('conditions read arguments by role or name, and the calling rank', () => {
  const c = parseCondition('source == 3 && tag == 7', recv);
  assert.equal(c.matches(call(0, 3, 7)), true);
  assert.equal(c.matches(call(0, 3, 8)), false);
  const ranks = parseCondition('rank in 0-3, 8 && !(count < 4)', recv);
  assert.equal(ranks.matches(call(2, 0, 0)), true);
  assert.equal(ranks.matches(call(8, 0, 0)), true);
  assert.equal(ranks.matches(call(5, 0, 0)), false);
  assert.equal(
    parseCondition('source == ANY_SOURCE || tag == MPI_ANY_TAG', recv).matches(call(0, -1, 5)),
    true,
  );
  assert.equal(parseCondition('(tag + 1) * 2 % 5 == 1 - -0', recv).matches(call(0, 0, 7)), true);
  assert.equal(
    parseCondition('tag >= 7 && tag <= 7 && tag != 6 && tag > 6', recv).matches(call(0, 0, 7)),
    true,
  );
});

test('a value the call does not carry, or a division by zero, is no match rather than an error', () => {
  assert.equal(parseCondition('tag / 0 == 1', recv).matches(call(0, 0, 7)), false);
  assert.equal(parseCondition('tag == 7', recv).matches({ rank: 0, args: {} }), false);
});

test('a bad condition is one line naming what is wrong', () => {
  const bad = (text: string, re: RegExp) =>
    assert.throws(
      () => parseCondition(text, recv),
      (e: unknown) => e instanceof ConditionError && re.test(e.message),
    );
  bad('', /empty/);
  bad('dest == 1', /MPI_Recv has no argument "dest": use rank or one of sbuf|rbuf/);
  bad('tag == ', /ends too early/);
  bad('tag = 7', /cannot read "= 7"/);
  bad('tag == 7)', /unexpected "\)"/);
  bad('rank in 3-1', /range 3-1 is empty/);
  bad('rank in tag', /a rank number expected/);
  bad('(tag == 7', /"\)" expected at the end/);
  bad('tag == 7; rm -rf /', /cannot read ";/);
});

test('hit counts: from the N-th on, after N, exactly N, every N-th', () => {
  const hits = (text: string) => [1, 2, 3, 4, 5, 6].filter(parseHitCondition(text));
  assert.deepEqual(hits('3'), [3, 4, 5, 6]);
  assert.deepEqual(hits('>= 3'), [3, 4, 5, 6]);
  assert.deepEqual(hits('>3'), [4, 5, 6]);
  assert.deepEqual(hits('== 3'), [3]);
  assert.deepEqual(hits('% 2'), [2, 4, 6]);
  assert.throws(() => parseHitCondition('% 0'), /divides by zero/);
  assert.throws(() => parseHitCondition('three'), /use N \(from the N-th hit on\)/);
});
