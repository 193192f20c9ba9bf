// signatureMismatch: the same answers as an element-by-element comparison, for the shortcuts it takes
// (one basic type on both sides, one committed type on both sides) and for walks over mixed run lists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  basicTypeNames,
  signatureFacts,
  signatureMismatch,
  type DtypeInfo,
} from '../../server/src/engine/model/datatypes';

const id = (name: string): number => {
  const i = basicTypeNames.indexOf(name);
  assert.ok(i >= 0, name);
  return i;
};

function type(...runs: [string, number][]): DtypeInfo {
  const signature = runs.map(([n, k]) => [id(n), k] as const);
  return {
    size: 0,
    extent: 0,
    trueLb: 0,
    trueExtent: 0,
    signature,
    layout: undefined,
    handle: 0,
    name: undefined,
    sig: signatureFacts(signature),
  };
}

/** The reference: expand both signatures element by element (small counts only). */
function naive(a: DtypeInfo, count: number, b: DtypeInfo, rcount: number) {
  const flat = (t: DtypeInfo, n: number) => {
    const out: number[] = [];
    for (let r = 0; r < n; r++) for (const [ty, k] of t.signature) for (let i = 0; i < k; i++) out.push(ty);
    return out;
  };
  const x = flat(a, count);
  const y = flat(b, rcount);
  const canon = (i: number) => signatureFacts([[i, 1]]).uniform;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const tx = x[i] as number;
    const ty = y[i] as number;
    if (canon(tx) !== canon(ty))
      return { at: i, sent: basicTypeNames[tx] ?? '?', received: basicTypeNames[ty] ?? '?' };
  }
  return undefined;
}

test('one basic type on both sides is decided without walking, whatever the counts', () => {
  const int = type(['MPI_INT', 1]);
  const float = type(['MPI_FLOAT', 1]);
  assert.equal(signatureMismatch(int, 1 << 30, int, 1 << 30), undefined);
  assert.deepEqual(signatureMismatch(int, 1 << 30, float, 1 << 30), {
    at: 0,
    sent: 'MPI_INT',
    received: 'MPI_FLOAT',
  });
  // LP64 aliases are the same type.
  assert.equal(signatureMismatch(type(['MPI_INT32_T', 1]), 8192, int, 8192), undefined);
  // A contiguous type of ints is ints.
  assert.equal(signatureMismatch(type(['MPI_INT', 4]), 1 << 28, int, 1 << 30), undefined);
});

test('MPI_BYTE and MPI_PACKED match anything', () => {
  const mixed = type(['MPI_INT', 1], ['MPI_DOUBLE', 1]);
  assert.equal(signatureMismatch(type(['MPI_BYTE', 1]), 12, mixed, 1), undefined);
  assert.equal(signatureMismatch(mixed, 1, type(['MPI_PACKED', 1]), 12), undefined);
});

test('one committed type on both sides matches over the shorter message', () => {
  const s = type(['MPI_INT', 1], ['MPI_DOUBLE', 3], ['MPI_CHAR', 2]);
  const t = type(['MPI_INT', 1], ['MPI_DOUBLE', 3], ['MPI_CHAR', 2]);
  assert.equal(signatureMismatch(s, 1 << 30, t, 1 << 29), undefined);
});

test('mixed signatures: the first differing element, as an element-by-element walk finds it', () => {
  const cases: [DtypeInfo, number, DtypeInfo, number][] = [
    [type(['MPI_INT', 1], ['MPI_DOUBLE', 1]), 3, type(['MPI_INT', 1]), 6],
    [type(['MPI_INT', 2]), 5, type(['MPI_INT', 3], ['MPI_FLOAT', 1]), 3],
    [
      type(['MPI_INT', 1], ['MPI_DOUBLE', 1]),
      4,
      type(['MPI_INT', 1], ['MPI_DOUBLE', 1], ['MPI_INT', 1], ['MPI_DOUBLE', 1]),
      2,
    ],
    [
      type(['MPI_INT', 1], ['MPI_DOUBLE', 1]),
      4,
      type(['MPI_INT', 1], ['MPI_DOUBLE', 1], ['MPI_INT', 1], ['MPI_FLOAT', 1]),
      2,
    ],
    [type(['MPI_DOUBLE', 2], ['MPI_INT', 1]), 3, type(['MPI_DOUBLE', 1]), 9],
    [
      type(['MPI_INT32_T', 1], ['MPI_INT', 2], ['MPI_FLOAT', 1]),
      2,
      type(['MPI_INT', 3], ['MPI_FLOAT', 1], ['MPI_INT', 1]),
      2,
    ],
    [type(['MPI_SHORT', 1], ['MPI_CHAR', 1]), 1, type(['MPI_SHORT', 1]), 1],
  ];
  for (const [a, n, b, m] of cases) {
    assert.deepEqual(signatureMismatch(a, n, b, m), naive(a, n, b, m));
    assert.deepEqual(signatureMismatch(b, m, a, n), naive(b, m, a, n));
  }
  // A basic type against a derived one of a different type, at a large count: found at once.
  assert.deepEqual(
    signatureMismatch(type(['MPI_INT', 1]), 1 << 30, type(['MPI_INT', 7], ['MPI_FLOAT', 1]), 1 << 27),
    {
      at: 7,
      sent: 'MPI_INT',
      received: 'MPI_FLOAT',
    },
  );
});
