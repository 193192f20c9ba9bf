import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetTestFile } from './net-test-file';
import { buildGrid, colourOf, formatSeconds, level } from './heatmap-model';

function run(hosts: string[], perLength: number[][][]): NetTestFile {
  return {
    format: 'mpiscope-net-test',
    version: 1,
    mode: 'one_to_one',
    started: '',
    mpi: { flavor: 'openmpi', launcher: 'mpirun' },
    parameters: { begin: 0, end: 1, step: 1, repetitions: 1 },
    hosts,
    unit: 'seconds',
    results: perLength.map((m, k) => {
      const withNull = m.map((row, i) => row.map((x, j) => (i === j ? null : x)));
      return { length: k, min: withNull, median: withNull, mean: withNull, stddev: withNull };
    }),
  };
}

const A = run(
  ['h1', 'h2', 'h1'],
  [
    [
      [0, 10, 1],
      [10, 0, 10],
      [1, 10, 0],
    ],
    [
      [0, 40, 2],
      [40, 0, 40],
      [2, 40, 0],
    ],
  ],
);

describe('heatmap model', () => {
  it('orders ranks by host and marks where a host starts', () => {
    const g = buildGrid([A], 0, 'single', 'median', 0, 'global', undefined);
    assert.deepEqual(g.rows, [0, 2, 1]);
    assert.deepEqual(g.rowBreaks, [2]);
    assert.deepEqual(g.values[0], [null, 1, 10]);
  });

  it('normalizes globally over every length of the statistic, locally over the matrix shown', () => {
    assert.deepEqual(
      [buildGrid([A], 0, 'single', 'median', 0, 'global', undefined)].map((g) => [g.lo, g.hi])[0],
      [1, 40],
    );
    const local = buildGrid([A], 0, 'single', 'median', 0, 'local', undefined);
    assert.deepEqual([local.lo, local.hi], [1, 10]);
  });

  it('a zoom keeps its rectangle of the host-ordered grid and normalizes over it alone', () => {
    const g = buildGrid([A], 0, 'single', 'median', 1, 'global', { r0: 0, r1: 1, c0: 0, c1: 1 });
    assert.deepEqual(g.rows, [0, 2]);
    assert.deepEqual(g.values, [
      [null, 2],
      [2, null],
    ]);
    assert.deepEqual([g.lo, g.hi], [2, 2]);
  });

  it('divides the first run by the second cell by cell in ratio mode', () => {
    const B = run(
      ['h1', 'h2', 'h1'],
      [
        [
          [0, 5, 1],
          [5, 0, 5],
          [1, 5, 0],
        ],
      ],
    );
    const g = buildGrid([A, B], 0, 'ratio', 'median', 0, 'local', undefined);
    assert.deepEqual(g.values[0], [null, 1, 2]);
  });

  it('maps levels to colours: grey from black to white, a flat range to the middle', () => {
    assert.equal(colourOf(0, 'grey'), 'rgb(0,0,0)');
    assert.equal(colourOf(1, 'grey'), 'rgb(255,255,255)');
    assert.equal(colourOf(1, 'colour'), 'rgb(253,231,37)');
    assert.equal(level(5, 5, 5), 0.5);
    assert.equal(level(7.5, 5, 10), 0.5);
    // Logarithmic: each decade an equal step, so 2 µs, 20 µs and 25 ms stay apart.
    assert.equal(level(1e-5, 1e-6, 1e-4, 'log'), 0.5);
    assert.ok(level(20e-6, 2e-6, 25e-3, 'log') - level(2e-6, 2e-6, 25e-3, 'log') > 0.2);
    assert.ok(level(20e-6, 2e-6, 25e-3, 'linear') < 0.001);
    assert.equal(formatSeconds(5e-6), '5.00 µs');
  });
});
