// PT-Scotch's distributed sparse-matrix ordering `dgord` (C; Debian's ptscotch, Open MPI): nested dissection of
// a graph spread over the ranks, with its own threads calling MPI (MPI_THREAD_MULTIPLE) — so mpiscope names
// potential-deadlock as not run (calls of several threads have no single order to replay) and checks the rest.
// Collectives (Allreduce, Alltoallv, Allgather, Gatherv) and point-to-point exchanges of the separators. The
// graph is a 120 x 120 grid, written by the test in Scotch's source graph format.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkApp, requireInstalled } from './app-run';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-apps-ptscotch-'));
after(() => rmSync(work, { recursive: true, force: true }));
before(() => requireInstalled(['dgord', 'mpirun.openmpi']));

/** An n x n grid graph in Scotch's .grf format: version, vertex and arc counts, flags, then each vertex's degree and neighbours. */
function grid(n: number): string {
  const rows: string[] = [];
  let arcs = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const nb: number[] = [];
      for (const [a, b] of [
        [i - 1, j],
        [i + 1, j],
        [i, j - 1],
        [i, j + 1],
      ] as const)
        if (a >= 0 && a < n && b >= 0 && b < n) nb.push(a * n + b);
      arcs += nb.length;
      rows.push([nb.length, ...nb].join('\t'));
    }
  return `0\n${n * n}\t${arcs}\n0\t000\n${rows.join('\n')}\n`;
}

/**
 * What an ordering must be: its vertex count, and whether its lines are a permutation (every vertex once,
 * every position once). Not the ordering itself: dgord's threads make it differ from run to run, bare too.
 */
function orderingFacts(ord: string): string[] {
  const [head = '', ...lines] = ord.split('\n').filter((l) => l !== '');
  const n = Number(head);
  const vertices = new Set<number>();
  const positions = new Set<number>();
  for (const l of lines) {
    const [v, p] = l.split(/\s+/).map(Number);
    if (v !== undefined && p !== undefined && v >= 0 && v < n && p >= 0 && p < n) {
      vertices.add(v);
      positions.add(p);
    }
  }
  const permutation = lines.length === n && vertices.size === n && positions.size === n;
  return [`vertices ${n}`, `permutation ${permutation ? 'yes' : 'no'}`];
}

test('PT-Scotch dgord (Open MPI, C with threads calling MPI)', async (t) => {
  await checkApp(
    t,
    {
      name: 'ptscotch grid',
      flavor: 'openmpi',
      program: 'dgord',
      args: ['grid.grf', 'grid.ord'],
      prepare: (dir) => writeFileSync(join(dir, 'grid.grf'), grid(120)),
      results: (_stdout, dir) => orderingFacts(readFileSync(join(dir, 'grid.ord'), 'utf8')),
      minCallsPerRank: 100,
      skipped: ['potential-deadlock'],
    },
    work,
  );
});
