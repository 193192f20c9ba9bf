// The network and collective tools on this machine (issue 9): net-test's six modes and its file, the view
// page, coll-bench's clock offsets under an injected skew, map from a real trace, and every tool's bad
// input as one line with exit status 2. The emulated-cluster versions are in test/cluster/perf.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { NET_TEST_MODES, readNetTestText } from '../../server/src/perf/net-test-file';
import { compileMpi, installedFlavors, repoRoot, runCli } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-perf-'));
after(() => rmSync(work, { recursive: true, force: true }));
const pairExchange = join(repoRoot(), 'test', 'cluster', 'programs', 'pair-exchange.c');

async function expectUsageError(args: string[], mentions: RegExp): Promise<void> {
  const r = await runCli(args, { cwd: work, timeoutMs: 60_000 });
  assert.equal(r.code, 2, `exit status (stderr: ${r.stderr})`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0] ?? '', /^mpiscope: /);
  assert.match(lines[0] ?? '', mentions);
}

describe('bad input: one line, exit 2', () => {
  writeFileSync(join(work, 'small.hosts'), 'a slots=1\nb slots=2\n');
  writeFileSync(join(work, 'noslots.hosts'), 'a\nb slots=2\n');
  test('net-test: a pairwise mode with an odd number of ranks', () =>
    expectUsageError(
      ['net-test', '-np', '3', '--mode', 'send_recv_and_recv_send'],
      /needs an even number of ranks/,
    ));
  test('net-test: an empty message range', () =>
    expectUsageError(['net-test', '-np', '2', '--begin', '100', '--end', '10'], /message range is empty/));
  test('net-test: a host file that does not fit the job', () =>
    expectUsageError(
      ['net-test', '-np', '4', '--hostfile', 'small.hosts'],
      /3 slots on 2 hosts but the job needs 4/,
    ));
  test('net-test: noise ranks that cannot pair up', () =>
    expectUsageError(
      ['net-test', '-np', '6', '--mode', 'noise', '--noise-procs', '3'],
      /even number at most 4/,
    ));
  test('net-test: an unknown mode', () =>
    expectUsageError(['net-test', '-np', '2', '--mode', 'ring'], /unknown --mode ring/));
  test('coll-bench: no sizes', () => expectUsageError(['coll-bench', '-np', '2', '--sizes', ','], /--sizes/));
  test('coll-bench: an unknown collective', () =>
    expectUsageError(['coll-bench', '-np', '2', '--collectives', 'Allfoo'], /unknown collective Allfoo/));
  test('map: a host file that does not fit', () =>
    expectUsageError(
      ['map', '--algorithm', 'ring', '-np', '8', '--hostfile', 'small.hosts'],
      /3 slots on 2 hosts but the job has 8 ranks/,
    ));
  test('map: a host without slots', () =>
    expectUsageError(
      ['map', '--algorithm', 'ring', '-np', '2', '--hostfile', 'noslots.hosts'],
      /host a has no slot count/,
    ));
  test('map: recursive doubling on a rank count that is not a power of two', () =>
    expectUsageError(
      ['map', '--algorithm', 'recursive-doubling', '-np', '6', '--host', 'a:3,b:3'],
      /power-of-two/,
    ));
  test('view: a file that is not a net-test result', () =>
    expectUsageError(['view', 'small.hosts'], /small\.hosts is not a net-test result: not JSON/));
});

for (const flavor of installedFlavors()) {
  describe(`${flavor}`, () => {
    for (const mode of NET_TEST_MODES) {
      test(`net-test ${mode}: every ordered pair measured, per length, in one valid file`, async () => {
        const out = join(work, `${flavor}-${mode}.nettest.json`);
        const csv = join(work, `${flavor}-${mode}.csv`);
        const r = await runCli(
          [
            'net-test',
            '--mpi',
            flavor,
            '-np',
            '4',
            '--mode',
            mode,
            '--begin',
            '0',
            '--end',
            '64',
            '--step',
            '64',
            '--reps',
            '3',
            '--output',
            out,
            '--csv',
            csv,
          ],
          { cwd: work, timeoutMs: 120_000 },
        );
        assert.equal(r.code, 0, r.stderr);
        const file = readNetTestText(readFileSync(out, 'utf8'));
        assert.equal(file.mode, mode);
        assert.equal(file.mpi.flavor, flavor);
        assert.equal(file.hosts.length, 4);
        assert.deepEqual(
          file.results.map((x) => x.length),
          [0, 64],
        );
        for (const res of file.results)
          for (let i = 0; i < 4; i++)
            for (let j = 0; j < 4; j++) {
              const v = res.median[i]?.[j];
              if (i === j) assert.equal(v, null);
              else {
                assert.ok(
                  typeof v === 'number' && v > 0 && v < 5,
                  `median ${i}→${j} at ${res.length} B is ${v}`,
                );
                assert.ok((res.min[i]?.[j] ?? Infinity) <= v, 'min ≤ median');
              }
            }
        // One CSV row per length, statistic and ordered pair, plus the header.
        assert.equal(readFileSync(csv, 'utf8').trim().split('\n').length, 1 + 2 * 4 * 12);
      });
    }

    test('coll-bench finds an injected clock skew within its own error bound', async () => {
      const out = join(work, `${flavor}-coll.json`);
      const skew = 0.125;
      const r = await runCli(
        [
          'coll-bench',
          '--mpi',
          flavor,
          '-np',
          '3',
          '--sizes',
          '8,1024',
          '--collectives',
          'Bcast,Allreduce,Alltoallv',
          '--max-launches',
          '20',
          '--output',
          out,
        ],
        { cwd: work, timeoutMs: 180_000, env: { MPISCOPE_CB_CLOCK_SKEW: String(skew) } },
      );
      assert.equal(r.code, 0, r.stderr);
      const file = JSON.parse(readFileSync(out, 'utf8')) as {
        clock: { ranks: { rank: number; offset: number; error: number }[] };
        results: {
          collective: string;
          bytes: number;
          launches: number;
          discardedLate: number;
          mean: number | null;
          standardError: number | null;
          ci95: number[] | null;
          barrierLoopMean: number;
        }[];
      };
      for (const c of file.clock.ranks.slice(1))
        assert.ok(
          Math.abs(c.offset - c.rank * skew) <= c.error + 1e-7,
          `rank ${c.rank}: offset ${c.offset} s, injected ${c.rank * skew} s, bound ±${c.error} s`,
        );
      assert.deepEqual(
        file.results.map((x) => `${x.collective}/${x.bytes}`),
        ['Bcast/8', 'Bcast/1024', 'Allreduce/8', 'Allreduce/1024', 'Alltoallv/8', 'Alltoallv/1024'],
      );
      for (const x of file.results) {
        // Launches with a late rank are discarded; on a loaded machine that can be most of them.
        assert.ok(x.launches <= 20, `${x.collective}: ${x.launches} launches`);
        assert.ok(x.barrierLoopMean > 0);
        if (x.mean === null) assert.ok(x.launches < 2 && x.discardedLate > 0, `${x.collective}: no mean`);
        else assert.ok((x.ci95?.[0] ?? NaN) <= x.mean && x.mean <= (x.ci95?.[1] ?? NaN) && x.mean > 0);
      }
      // The printed line; the values are checked in the file above (on a loaded machine the bound can be ms).
      assert.match(r.stdout, /rank 2 \(\S+\): \+\d+\.\d µs ± \d/);
    });

    test('map reads a traced run and puts the heavy partners on one host', async () => {
      const exe = join(work, `${flavor}-pair-exchange`);
      compileMpi(flavor, pairExchange, exe);
      const trace = join(work, `${flavor}-pair.trace`);
      const run = await runCli(['run', '--trace', trace, '-np', '4', exe, '65536', '4'], {
        cwd: work,
        timeoutMs: 120_000,
      });
      assert.equal(run.code, 0, run.stderr);
      const rankfile = join(work, `${flavor}.rankfile`);
      const machinefile = join(work, `${flavor}.machinefile`);
      const r = await runCli(
        [
          'map',
          '--trace',
          trace,
          '--host',
          'hostA:2,hostB:2',
          '--rankfile',
          rankfile,
          '--machinefile',
          machinefile,
        ],
        { cwd: work, timeoutMs: 60_000 },
      );
      assert.equal(r.code, 0, r.stderr);
      // Block placement: {0,1} {2,3}, so both heavy pairs (0-2, 1-3: 4 × 64 KiB each way) cross hosts.
      assert.match(r.stdout, /inter-host bytes, block placement: +1\.0\d MiB/);
      assert.match(r.stdout, /inter-host bytes, METIS placement: +1\.00 KiB/);
      const hostOf = new Map(
        [...readFileSync(rankfile, 'utf8').matchAll(/^rank (\d+)=(\S+) slot=\d+$/gm)].map((m) => [
          Number(m[1]),
          m[2],
        ]),
      );
      assert.equal(hostOf.size, 4);
      assert.equal(hostOf.get(0), hostOf.get(2));
      assert.equal(hostOf.get(1), hostOf.get(3));
      assert.notEqual(hostOf.get(0), hostOf.get(1));
      const lines = readFileSync(machinefile, 'utf8').trim().split('\n');
      assert.deepEqual(
        lines,
        [0, 1, 2, 3].map((k) => `${hostOf.get(k)}:1`),
      );
    });
  });
}

for (const flavor of installedFlavors()) {
  describe(`${flavor} topology-aware MPI_Allgather (lib-topo-allgather.so)`, () => {
    let lib = '';
    let exe = '';
    test('mpiscope map --library builds it and says how to preload it', async () => {
      const r = await runCli(['map', '--library', '--mpi', flavor], { cwd: work, timeoutMs: 120_000 });
      assert.equal(r.code, 0, r.stderr);
      lib = r.stdout.split('\n')[0] ?? '';
      assert.match(lib, /lib-topo-allgather\.so$/);
      assert.match(r.stdout, /MPISCOPE_TOPO_ALLGATHER=recursive-doubling or bruck/);
      exe = join(work, `${flavor}-allgather-check`);
      compileMpi(flavor, join(repoRoot(), 'test', 'native', 'topo-allgather-check.c'), exe);
    });
    /** Cross-host bytes summed over ranks, with the job's two pretend hosts (ranks 0..N/2-1 and the rest). */
    const run = (algo: string, order: string, np: number): number => {
      const env = {
        MPISCOPE_TOPO_ALLGATHER: algo,
        MPISCOPE_TOPO_ORDER: order,
        MPISCOPE_TOPO_FAKE_HOSTS: '2',
        MPISCOPE_TOPO_VERBOSE: '1',
      };
      // The library is preloaded into the ranks only (named on the launcher's command line), never into
      // the launcher; the other variables reach the ranks through the launcher's environment.
      const launch =
        flavor === 'openmpi'
          ? [
              'mpirun.openmpi',
              '--oversubscribe',
              ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : []),
              '-x',
              `LD_PRELOAD=${lib}`,
              ...Object.keys(env).flatMap((k) => ['-x', k]),
            ]
          : ['mpiexec.mpich', '-genv', 'LD_PRELOAD', lib];
      const r = spawnSync(launch[0] as string, [...launch.slice(1), '-np', String(np), exe], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, ...env },
      });
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /allgather ok/);
      const sent = [...r.stderr.matchAll(/rank \d+ sent (\d+) bytes to other hosts/g)].map((m) =>
        Number(m[1]),
      );
      assert.equal(sent.length, np, r.stderr);
      return sent.reduce((a, b) => a + b, 0);
    };
    for (const algo of ['recursive-doubling', 'bruck'])
      for (const np of [5, 8])
        test(`${algo} on ${np} ranks: right results, and no more bytes across hosts than without topology`, () => {
          const aware = run(algo, 'topology', np);
          const plain = run(algo, 'identity', np);
          if (np === 8)
            assert.ok(
              aware * 4 <= plain,
              `${algo}: ${aware} B across hosts with topology, ${plain} B without`,
            );
          else assert.ok(aware <= plain, `${algo}: ${aware} B with topology, ${plain} B without`);
        });
  });
}
