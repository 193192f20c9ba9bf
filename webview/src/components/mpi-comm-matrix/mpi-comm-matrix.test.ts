import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cellAt, heat, matrixGeometry } from './matrix-scale';

describe('communication matrix scale', () => {
  it('is zero for no bytes, full at the maximum, and never invisible for a small non-zero cell', () => {
    assert.equal(heat(0, 100), 0);
    assert.equal(heat(100, 100), 1);
    assert.ok(heat(1, 1e9) >= 0.12);
    assert.ok(heat(1e6, 1e9) > heat(1e3, 1e9));
  });

  it('maps points to (sender, receiver) cells and nothing outside the grid', () => {
    const g = matrixGeometry(8, 300, 300);
    assert.deepEqual(cellAt(g, 8, g.margin + 1, g.margin + 1), [0, 0]);
    assert.deepEqual(cellAt(g, 8, g.margin + g.cell * 3 + 1, g.margin + g.cell * 5 + 1), [5, 3]);
    assert.equal(cellAt(g, 8, 2, 2), undefined);
    assert.equal(cellAt(g, 8, g.margin + g.cell * 8 + 1, g.margin), undefined);
  });
});
