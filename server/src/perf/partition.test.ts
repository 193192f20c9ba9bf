import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { algorithmGraph, interHostBytes } from './comm-graph';
import { blockPlacement, cyclicPlacement, machinefile, metisPlacement, rankfile } from './partition';

const hasMetis = spawnSync('sh', ['-c', 'command -v gpmetis'], { stdio: 'ignore' }).status === 0;

describe('communication graphs of allgather algorithms', () => {
  it('recursive doubling: step k exchanges 2^k blocks with rank XOR 2^k', () => {
    const g = algorithmGraph('recursive-doubling', 4, 10);
    const at = (i: number, j: number): number => g.bytes[i * 4 + j] ?? NaN;
    assert.equal(at(0, 1), 10);
    assert.equal(at(0, 2), 20);
    assert.equal(at(0, 3), 0);
    // Every rank ends with the other n-1 blocks.
    for (let j = 0; j < 4; j++)
      assert.equal(
        [0, 1, 2, 3].reduce((a, i) => a + at(i, j), 0),
        30,
      );
  });

  it('Bruck and ring deliver n-1 blocks to every rank', () => {
    for (const algo of ['bruck', 'ring'] as const)
      for (const n of [3, 5, 6]) {
        const g = algorithmGraph(algo, n, 1);
        for (let j = 0; j < n; j++) {
          let got = 0;
          for (let i = 0; i < n; i++) got += g.bytes[i * n + j] ?? 0;
          assert.equal(got, n - 1, `${algo} n=${n} rank ${j}`);
        }
      }
  });

  it('counts the bytes that cross hosts under a placement', () => {
    const g = algorithmGraph('ring', 4, 1);
    assert.equal(interHostBytes(g, [0, 0, 1, 1]), 2 * 3);
    assert.equal(interHostBytes(g, [0, 1, 0, 1]), 4 * 3);
  });
});

describe('placements and the files that apply them', () => {
  const hosts = [
    { name: 'a', slots: 3 },
    { name: 'b', slots: 1 },
  ];
  it('block fills each host in turn; cyclic deals one rank per host with room', () => {
    assert.deepEqual(blockPlacement(hosts, 4), [0, 0, 0, 1]);
    assert.deepEqual(cyclicPlacement(hosts, 4), [0, 1, 0, 0]);
  });
  it('writes an Open MPI rankfile and an MPICH machinefile in rank order', () => {
    assert.equal(
      rankfile([1, 0, 0, 0], hosts),
      'rank 0=b slot=0\nrank 1=a slot=0\nrank 2=a slot=1\nrank 3=a slot=2\n',
    );
    assert.equal(machinefile([1, 0, 0, 0], hosts), 'b:1\na:1\na:1\na:1\n');
  });
  it(
    'METIS keeps each host within its slots and cuts fewer bytes than a bad placement',
    { skip: !hasMetis && 'gpmetis is not installed' },
    () => {
      // Recursive doubling on 8 ranks, 4 + 4 slots: the block placement sends the 4-block last step across hosts.
      const g = algorithmGraph('recursive-doubling', 8, 1);
      const two = [
        { name: 'a', slots: 4 },
        { name: 'b', slots: 4 },
      ];
      const p = metisPlacement(g, two);
      assert.equal(p.filter((h) => h === 0).length, 4);
      assert.ok(interHostBytes(g, p) < interHostBytes(g, blockPlacement(two, 8)));
      // Uneven slots: 5 + 3 of 8 ranks.
      const uneven = metisPlacement(algorithmGraph('bruck', 8, 1), [
        { name: 'a', slots: 5 },
        { name: 'b', slots: 3 },
      ]);
      assert.equal(uneven.filter((h) => h === 1).length <= 3, true);
      assert.equal(uneven.filter((h) => h === 0).length <= 5, true);
    },
  );
});
