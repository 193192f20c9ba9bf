/** Events as rows (appendEvent) and as records (the tests' encoder): lists of any length. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendEvent } from './append-event';
import { RecordColumns } from './columns';
import { functionNamed, KIND } from './spec';
import { encodeEvent } from './testing/encode';

test('an MPI_Waitall of 400,000 requests becomes one row with every handle, and records', () => {
  // The handle list was spread into Array.push's arguments, which overflows V8's stack at ~2 x 10^5 values in the
  // encoder (RangeError there before this test).
  const n = 400_000;
  const handles = Array.from({ length: n }, (_, i) => 0x1000 + i);
  const cols = new RecordColumns(8);
  const fn = functionNamed('MPI_Waitall');
  const enter = {
    type: 'enter',
    rank: 0,
    seq: 1,
    time: 1,
    fn,
    site: 0x40,
    args: { count: n, array_of_requests: handles, array_of_statuses: 0 },
  } as const;
  appendEvent(cols, enter);
  assert.ok(encodeEvent(enter).length > n * 8);
  assert.equal(cols.length, 1);
  assert.equal(cols.kind[0], KIND.ENTER);
  const words = cols.slice(0, 0, cols.wordCount[0] as number);
  // The scalars, then the list's length and its values.
  const at = words.indexOf(n, 0);
  assert.ok(at >= 0);
  assert.deepEqual(Array.from(words.slice(-n)), handles);
});
