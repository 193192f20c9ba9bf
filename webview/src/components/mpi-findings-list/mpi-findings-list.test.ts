import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextIndex, shortLocation, sortFindings } from './findings-nav';

describe('findings list navigation', () => {
  it('moves with arrows, Home/End and pages, and stops at the ends', () => {
    assert.equal(nextIndex(0, 'ArrowDown', 3), 1);
    assert.equal(nextIndex(2, 'ArrowDown', 3), 2);
    assert.equal(nextIndex(0, 'ArrowUp', 3), 0);
    assert.equal(nextIndex(1, 'Home', 3), 0);
    assert.equal(nextIndex(0, 'End', 3), 2);
    assert.equal(nextIndex(0, 'PageDown', 30), 10);
    assert.equal(nextIndex(0, 'a', 3), undefined);
    assert.equal(nextIndex(0, 'ArrowDown', 0), undefined);
  });

  it('lists errors before warnings before info, each in the order found', () => {
    const list = [
      { id: 0, severity: 'warning' },
      { id: 1, severity: 'error' },
      { id: 2, severity: 'note' },
      { id: 3, severity: 'error' },
    ];
    assert.deepEqual(
      sortFindings(list).map((f) => f.id),
      [1, 3, 0, 2],
    );
  });

  it('shortens locations to file:line', () => {
    assert.equal(shortLocation('/home/u/halo.c', 52), 'halo.c:52');
    assert.equal(shortLocation('/home/u/halo.c', 0), 'halo.c');
    assert.equal(shortLocation('', 3), '');
  });
});
