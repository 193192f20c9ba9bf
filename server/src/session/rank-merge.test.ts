import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RankMerge } from './rank-merge';
import type { Finding, Location } from './session-api';

const at = (rank: number, line = 23): Location => ({
  rank,
  file: '/w/a.c',
  line,
  function: 'main',
  call: 'MPI_Send',
  detail: 'MPI_Send: count is negative',
});
const finding = (
  locations: Location[],
  message = 'MPI_Send is called with an invalid argument.',
): Finding => ({
  kind: 'invalid-argument',
  severity: 'error',
  message,
  locations,
});

test("a later rank's part joins the first finding with its key, in rank order, once per rank", () => {
  const list: Finding[] = [];
  const m = new RankMerge();
  assert.equal(m.add(list, finding([at(2)]), 'k'), undefined);
  assert.equal(m.add(list, finding([at(0, 9)]), undefined), undefined);
  const joined = m.add(list, finding([at(0)]), 'k');
  assert.deepEqual(joined?.added, [at(0)]);
  assert.deepEqual(
    list.map((f) => f.locations.map((l) => l.rank)),
    [[0, 2], [0]],
  );
  assert.deepEqual(m.add(list, finding([at(2)]), 'k')?.added, []);
  assert.equal(list.length, 2);
});

test('another argument or another call site under the same key stays a finding of its own', () => {
  const list: Finding[] = [];
  const m = new RankMerge();
  m.add(list, finding([at(0)]), 'k');
  assert.equal(m.add(list, finding([at(1)], 'MPI_Send is called with another argument.'), 'k'), undefined);
  assert.equal(m.add(list, finding([at(2, 30)]), 'k'), undefined);
  assert.equal(list.length, 3);
});
