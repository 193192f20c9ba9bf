/** Type matching of Fortran datatypes (datatypes.ts): size-specific twins match, Fortran and C types do not. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicTypeNames, signatureMismatch, type DtypeInfo } from '../../server/src/engine/datatypes';

function basic(name: string, size: number): DtypeInfo {
  const id = basicTypeNames.indexOf(name);
  assert.ok(id >= 0, `${name} is in the spec's basicTypes`);
  return {
    size,
    extent: size,
    trueLb: 0,
    trueExtent: size,
    signature: [[id, 1]],
    layout: undefined,
    handle: 0x1000 + id,
    name,
  };
}

test('a size-specific Fortran type matches its default-kind twin', () => {
  assert.equal(signatureMismatch(basic('MPI_REAL8', 8), 3, basic('MPI_DOUBLE_PRECISION', 8), 3), undefined);
  assert.equal(signatureMismatch(basic('MPI_INTEGER4', 4), 3, basic('MPI_INTEGER', 4), 3), undefined);
  assert.equal(
    signatureMismatch(basic('MPI_COMPLEX16', 16), 1, basic('MPI_DOUBLE_COMPLEX', 16), 1),
    undefined,
  );
});

test('Fortran types of one size but different kinds do not match', () => {
  const d = signatureMismatch(basic('MPI_INTEGER8', 8), 3, basic('MPI_REAL8', 8), 3);
  assert.deepEqual(d, { at: 0, sent: 'MPI_INTEGER8', received: 'MPI_REAL8' });
  assert.notEqual(signatureMismatch(basic('MPI_INTEGER', 4), 1, basic('MPI_REAL', 4), 1), undefined);
});

test('a Fortran type and a C type do not match, even of one size (MPI-3.1 §17.2.10)', () => {
  const d = signatureMismatch(basic('MPI_INTEGER', 4), 2, basic('MPI_INT', 4), 2);
  assert.deepEqual(d, { at: 0, sent: 'MPI_INTEGER', received: 'MPI_INT' });
  assert.notEqual(
    signatureMismatch(basic('MPI_DOUBLE_PRECISION', 8), 1, basic('MPI_DOUBLE', 8), 1),
    undefined,
  );
});
