// The network and collective tools on the emulated cluster (issue 9): hosts are network namespaces
// (hosts.sh), ranks on node1..node3, the launcher and mpiscope on node0. Within a host the MPI uses shared
// memory, between hosts TCP over veth and a bridge, so host blocks are real. Checked: net-test's heatmap
// shows the host blocks; coll-bench finds a known injected clock skew within its own error bound; map on a
// badly placed job predicts a reduction and the rerun with its rankfile (Open MPI) or machinefile (MPICH)
// measures one from its trace. Times are printed, not asserted.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { interHostBytes, traceGraph } from '../../server/src/perf/comm-graph';
import { readNetTestText } from '../../server/src/perf/net-test-file';
import { buildGrid } from '../../server/src/perf/heatmap-model';
import { compileMpi, installedFlavors } from '../lib/mpiscope-cli';
import { Hosts, cliPath, clusterDir, context, hostsSkipReason, runCommand } from './cluster-lib';

const skip = hostsSkipReason();
if (skip !== undefined) console.log(`cluster perf tests skipped: ${skip}`);

const work = mkdtempSync(join(tmpdir(), 'mpiscope-cluster-perf-'));
const hosts = new Hosts('perf');
const pairExchange = join(clusterDir, 'programs', 'pair-exchange.c');

before(() => {
  if (skip === undefined) hosts.up(4);
});
after(() => {
  if (skip === undefined) hosts.down();
  rmSync(work, { recursive: true, force: true });
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

for (const flavor of installedFlavors()) {
  const launcher = flavor === 'openmpi' ? 'mpirun' : 'mpiexec';
  const mpiscope = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runCommand(hosts.on('node0', [process.execPath, cliPath, ...args]), {
      env: { ...hosts.launcherEnv(), ...env },
      cwd: work,
      timeoutMs: 240_000,
    });

  describe(`${flavor} tools across hosts`, { skip }, () => {
    test('net-test: ordered by host, the heatmap shows one block per host', async () => {
      const out = join(work, `${flavor}.nettest.json`);
      const ran = await mpiscope([
        'net-test',
        '--mpi',
        flavor,
        '--launcher',
        launcher,
        '--host',
        'node1:2,node2:2,node3:2',
        '-np',
        '6',
        '--begin',
        '0',
        '--end',
        '4096',
        '--step',
        '4096',
        '--reps',
        '30',
        '--output',
        out,
      ]);
      assert.equal(ran.code, 0, `net-test failed${context(ran)}`);
      const file = readNetTestText(readFileSync(out, 'utf8'));
      assert.deepEqual(
        [...new Set(file.hosts)].sort(),
        ['node1', 'node2', 'node3'],
        `the ranks ran on three hosts${context(ran)}`,
      );
      // What the view draws: the host-ordered grid with its three host blocks.
      const grid = buildGrid([file], 0, 'single', 'min', 0, 'local', undefined);
      assert.deepEqual(grid.rowBreaks, [2, 4]);
      const delays = (same: boolean): number[] =>
        (file.results[0]?.min ?? []).flatMap((row, i) =>
          row.flatMap((v, j) => (v !== null && (file.hosts[i] === file.hosts[j]) === same ? [v] : [])),
        );
      console.log(
        `${flavor} net-test, 0 B, min delay: within a host median ${(median(delays(true)) * 1e6).toFixed(1)} µs, across hosts ${(median(delays(false)) * 1e6).toFixed(1)} µs`,
      );
      // Blocks show when the cells within hosts and those across hosts are painted apart: their median
      // delays differ by at least a factor of two (medians over cells, so that a few cells disturbed by the
      // loaded machine do not decide it). Which side is faster depends on the load: Open MPI's shared memory
      // (3 µs) beats its TCP over veth (20 µs) on a quiet machine, but with more busy-polling ranks than
      // this machine's two cores, its within-host pairs measured 7 ms while the waiting ranks polled in MPI_Barrier (net-test now sleeps in its barriers). MPICH is not checked for
      // blocks: its ranks on different emulated hosts reach each other in 1.2 µs, through shared memory
      // (the namespaces share IPC, and UCX's posix transport reaches peers through /proc/PID/fd); an IPC
      // namespace per host separates them, but MPICH 4.0 over UCX 1.13's TCP then hangs in MPI_Finalize
      // with two ranks on a host (test/cluster/README.md, "MPICH across the emulated hosts").
      const inside = median(delays(true));
      const across = median(delays(false));
      if (flavor === 'openmpi') {
        const [fast, slow] = [inside, across].sort((x, y) => x - y) as [number, number];
        assert.ok(
          slow >= 2 * fast,
          `within-host cells (median ${inside} s) and cross-host ones (${across} s) differ`,
        );
      }
      const view = await mpiscope(['view', out, '--output', join(work, `${flavor}-cluster.html`)]);
      assert.equal(view.code, 0, `view failed${context(view)}`);
    });

    test('coll-bench: an injected clock skew is found within the offsets’ own error bound', async () => {
      const out = join(work, `${flavor}-coll.json`);
      const skew = 0.04;
      const ran = await mpiscope(
        [
          'coll-bench',
          '--mpi',
          flavor,
          '--launcher',
          launcher,
          '--host',
          'node1,node2,node3',
          '-np',
          '3',
          '--sizes',
          '8,4096',
          '--collectives',
          'Bcast,Allreduce,Allgather',
          '--max-launches',
          '30',
          '--output',
          out,
        ],
        { MPISCOPE_CB_CLOCK_SKEW: String(skew) },
      );
      assert.equal(ran.code, 0, `coll-bench failed${context(ran)}`);
      console.log(ran.stdout);
      const file = JSON.parse(readFileSync(out, 'utf8')) as {
        hosts: string[];
        clock: { ranks: { rank: number; offset: number; error: number }[] };
      };
      assert.deepEqual(file.hosts, ['node1', 'node2', 'node3']);
      // The hosts share this machine's monotonic clock, so the injected skew is the whole true offset.
      for (const c of file.clock.ranks.slice(1))
        assert.ok(
          Math.abs(c.offset - c.rank * skew) <= c.error + 1e-7,
          `rank ${c.rank}: offset ${c.offset} s, injected ${c.rank * skew} s, bound ±${c.error} s${context(ran)}`,
        );
    });

    test('map: a badly placed job, its predicted reduction, and the rerun with the new placement', async () => {
      const exe = join(work, `${flavor}-pair-exchange`);
      compileMpi(flavor, pairExchange, exe);
      const run = async (tag: string, placement: string[]) => {
        const trace = join(work, `${flavor}-${tag}.trace`);
        const ran = await mpiscope([
          'run',
          '--launcher',
          launcher,
          '--trace',
          trace,
          ...placement,
          '-np',
          '4',
          '--',
          exe,
          '262144',
          '40',
        ]);
        assert.equal(ran.code, 0, `the ${tag} run failed${context(ran)}`);
        const hostOf = new Map(
          [...ran.stdout.matchAll(/^rank (\d+) on (\S+)$/gm)].map((m) => [Number(m[1]), m[2] as string]),
        );
        assert.equal(hostOf.size, 4, `every rank said where it ran${context(ran)}`);
        const graph = traceGraph(trace);
        const names = [...new Set(hostOf.values())];
        const crossing = interHostBytes(
          graph,
          [0, 1, 2, 3].map((r) => names.indexOf(hostOf.get(r) ?? '')),
        );
        const seconds = Number(/exchange took ([\d.]+) s/.exec(ran.stdout)?.[1]);
        return { trace, crossing, seconds, hostOf };
      };
      // Block placement over two hosts: ranks 0,1 on node1 and 2,3 on node2, so both heavy pairs cross.
      const bad = await run('bad', ['--host', 'node1:2,node2:2']);
      const rankfile = join(work, `${flavor}.rankfile`);
      const machinefile = join(work, `${flavor}.machinefile`);
      const mapped = await mpiscope([
        'map',
        '--trace',
        bad.trace,
        '--host',
        'node1:2,node2:2',
        '--rankfile',
        rankfile,
        '--machinefile',
        machinefile,
      ]);
      assert.equal(mapped.code, 0, `map failed${context(mapped)}`);
      const predicted = /block placement: +(.*?) \(.*\n.*METIS placement: +(.*?) \(/.exec(mapped.stdout);
      assert.ok(predicted !== null, `map printed both predictions${context(mapped)}`);
      assert.match(mapped.stdout, /METIS placement: .*-\d+(\.\d)?%/, 'a reduction is predicted');
      const good = await run(
        'mapped',
        flavor === 'openmpi'
          ? ['--host', 'node1:2,node2:2', '--mpirun', `mpirun --rankfile ${rankfile}`]
          : ['--hostfile', machinefile],
      );
      console.log(
        `${flavor} map: predicted ${predicted[1]} → ${predicted[2]} across hosts; measured from the traces ${bad.crossing} B → ${good.crossing} B; exchange wall time ${bad.seconds} s → ${good.seconds} s`,
      );
      assert.equal(good.hostOf.get(0), good.hostOf.get(2), 'the heavy partners 0 and 2 share a host');
      assert.equal(good.hostOf.get(1), good.hostOf.get(3), 'the heavy partners 1 and 3 share a host');
      assert.ok(good.crossing < bad.crossing / 100, `bytes across hosts ${bad.crossing} → ${good.crossing}`);
    });
  });
}
