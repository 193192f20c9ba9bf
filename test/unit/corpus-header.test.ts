/** The corpus header parser (test/lib/corpus-header.ts): C comments and Fortran `!` headers with bindings. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCorpusHeader } from '../lib/corpus-header';

test('a C header has no bindings', () => {
  const h = parseCorpusHeader('/* mpiscope-test\n * ranks: 3\n * expect: deadlock lines 14,21\n */\n', 'x.c');
  assert.deepEqual(h.bindings, []);
  assert.equal(h.ranks, 3);
  assert.deepEqual(h.expect, [{ kind: 'deadlock', lines: [14, 21] }]);
});

test('a Fortran header: "!" lines, bindings default to use mpi and use mpi_f08', () => {
  const src =
    '! mpiscope-test\n! ranks: 2\n! expect: type-mismatch lines 20,18\n!\n! Why: text.\nprogram p\n';
  const h = parseCorpusHeader(src, 'p.F90');
  assert.deepEqual(h.bindings, ['mpi', 'mpi_f08']);
  assert.deepEqual(h.expect, [{ kind: 'type-mismatch', lines: [18, 20] }]);
  const all = parseCorpusHeader(
    '! mpiscope-test\n! ranks: 2\n! expect: none\n! bindings: mpifh mpi\n',
    'q.F90',
  );
  assert.deepEqual(all.bindings, ['mpifh', 'mpi']);
});

test('bad bindings and a missing Fortran header are errors', () => {
  assert.throws(
    () => parseCorpusHeader('! mpiscope-test\n! ranks: 2\n! expect: none\n! bindings: mpi f77\n', 'a.F90'),
    /bindings: mpi f77/,
  );
  assert.throws(() => parseCorpusHeader('program p\nend program\n', 'b.f90'), /mpiscope-test/);
  assert.throws(
    () => parseCorpusHeader('/* mpiscope-test\n * ranks: 2\n * expect: none\n * bindings: mpi\n */', 'c.c'),
    /for Fortran programs/,
  );
});

test('an expectation may name the severity the finding must have', () => {
  const h = parseCorpusHeader(
    '/* mpiscope-test\n * ranks: 2\n * expect: invalid-argument note lines 12\n * expect: deadlock lines 9\n */\n',
    'n.c',
  );
  assert.deepEqual(h.expect, [
    { kind: 'invalid-argument', lines: [12], severity: 'note' },
    { kind: 'deadlock', lines: [9] },
  ]);
  assert.throws(
    () => parseCorpusHeader('/* mpiscope-test\n * ranks: 1\n * expect: deadlock fatal lines 3\n */', 'f.c'),
    /cannot read/,
  );
});

test('an expectation may name the ranks the finding must list', () => {
  const h = parseCorpusHeader(
    '/* mpiscope-test\n * ranks: 4\n * expect: invalid-argument lines 23 ranks 3,0, 2,1\n */\n',
    'x.c',
  );
  assert.deepEqual(h.expect, [{ kind: 'invalid-argument', lines: [23], ranks: [0, 1, 2, 3] }]);
});
