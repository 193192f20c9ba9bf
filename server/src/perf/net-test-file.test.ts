import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostOrder, parseRawOutput, readNetTestText, toCsv, validateNetTestFile } from './net-test-file';

const RAW = `host 0 a
host 1 b
host 2 a
len 0
0 1 1e-6 2e-6 3e-6 4e-7
1 0 5e-6 6e-6 7e-6 8e-7
len 8
0 2 1.5e-6 2.5e-6 3.5e-6 1e-7
end
`;

describe('net-test file', () => {
  it('turns rank 0 output into per-length matrices with null where nothing was measured', () => {
    const p = parseRawOutput(RAW, 3);
    assert.equal(p.complete, true);
    assert.deepEqual(p.hosts, ['a', 'b', 'a']);
    assert.deepEqual(
      p.results.map((r) => r.length),
      [0, 8],
    );
    assert.equal(p.results[0]?.median[0]?.[1], 2e-6);
    assert.equal(p.results[0]?.stddev[1]?.[0], 8e-7);
    assert.equal(p.results[0]?.min[0]?.[0], null);
    assert.equal(p.results[1]?.mean[0]?.[2], 3.5e-6);
  });

  it('says a cut-short output is incomplete', () => {
    assert.equal(parseRawOutput(RAW.replace('end\n', ''), 3).complete, false);
  });

  it('checks the format, version and matrix shapes, naming what is wrong', () => {
    const p = parseRawOutput(RAW, 3);
    const file = {
      format: 'mpiscope-net-test',
      version: 1,
      mode: 'one_to_one',
      hosts: p.hosts,
      results: p.results,
    };
    assert.doesNotThrow(() => validateNetTestFile(file));
    assert.throws(() => readNetTestText('{'), /not JSON/);
    assert.throws(() => validateNetTestFile({ ...file, format: 'x' }), /not a net-test result/);
    assert.throws(() => validateNetTestFile({ ...file, version: 9 }), /version 9/);
    assert.throws(() => validateNetTestFile({ ...file, mode: 'ring' }), /unknown mode/);
    const bad = { ...file, results: [{ ...p.results[0], min: [[null, 1]] }] };
    assert.throws(() => validateNetTestFile(bad), /min matrix of length 0 is not 3×3/);
  });

  it('exports one CSV row per length, statistic and measured pair', () => {
    const p = parseRawOutput(RAW, 3);
    const csv = toCsv({
      format: 'mpiscope-net-test',
      version: 1,
      mode: 'one_to_one',
      started: '',
      mpi: { flavor: 'openmpi', launcher: 'mpirun' },
      parameters: { begin: 0, end: 8, step: 8, repetitions: 1 },
      hosts: p.hosts,
      unit: 'seconds',
      results: p.results,
    }).split('\n');
    assert.equal(csv[0], 'length,statistic,from_rank,to_rank,from_host,to_host,seconds');
    assert.ok(csv.includes('0,median,1,0,b,a,0.000006'));
    assert.equal(csv.filter((l) => l !== '').length, 1 + 4 * 3);
  });

  it('orders ranks by host, hosts in order of their first rank', () => {
    assert.deepEqual(hostOrder(['x', 'y', 'x', 'z', 'y']), [0, 2, 1, 4, 3]);
  });
});
