import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locationPhrase } from './finding-diagnostics';

describe('location phrase', () => {
  const check = (call: string, detail: string, expected: string): void =>
    assert.equal(locationPhrase({ call, detail, function: 'main' }), expected, `${call} / ${detail}`);
  it('says what the rank did once, whichever field holds the phrase', () => {
    // The live session: function in call, phrase in detail.
    check(
      'MPI_Recv',
      'MPI_Recv from rank 2, tag 0 on MPI_COMM_WORLD',
      'MPI_Recv from rank 2, tag 0 on MPI_COMM_WORLD',
    );
    // A report: phrase in call, a note in detail.
    check(
      'MPI_Recv from rank 2, tag 0',
      'rank 0 waits for rank 2',
      'MPI_Recv from rank 2, tag 0 (rank 0 waits for rank 2)',
    );
    check('MPI_Recv from rank 2, tag 0', '', 'MPI_Recv from rank 2, tag 0');
    check('', 'MPI_Barrier', 'MPI_Barrier');
    check('', '', 'main');
  });
});
