// The cluster tier: jobs across hosts, with network namespaces of this machine as the hosts (hosts.sh) and
// a launcher agent that enters a namespace where a real cluster would ssh (agent.sh). The launcher and
// mpiscope run on node0 (the "login node"); the ranks on node1..node3, each its own network and hostname,
// sharing the file system. Every host reaches node0 at 198.18.0.1; only node1 and node2 have a route to
// 198.18.1.1, so node3 is the host that cannot reach an analyzer listening there.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseCorpusHeader } from '../lib/corpus-header';
import { compileMpi, installedFlavors, repoRoot } from '../lib/mpiscope-cli';
import {
  Hosts,
  type Ran,
  cliPath,
  clusterDir,
  context,
  findingKeys,
  hostsSkipReason,
  readReport,
  reportLatency,
  runCommand,
  startFlood,
} from './cluster-lib';

const skip = hostsSkipReason();
if (skip !== undefined) console.log(`cluster tier skipped: ${skip}`);

const work = mkdtempSync(join(tmpdir(), 'mpiscope-cluster-'));
const hosts = new Hosts('net');
const remote = ['node1', 'node2', 'node3'];
const ring = join(clusterDir, 'programs', 'ring-deadlock-timed.c');
const whereAmI = join(clusterDir, 'programs', 'where-am-i.c');
const corpus = (name: string): string => join(repoRoot(), 'test', 'programs', name);

before(() => {
  if (skip === undefined) hosts.up(4);
});
after(() => {
  if (skip === undefined) hosts.down();
  rmSync(work, { recursive: true, force: true });
});

/** The launcher each MPI is known by: Open MPI's mpirun, MPICH's mpiexec (hydra). */
function launcherOf(flavor: string): string {
  return flavor === 'openmpi' ? 'mpirun' : 'mpiexec';
}

/** Which host each rank said it runs on ("rank K runs on HOST" lines). */
function rankHosts(stdout: string): Map<number, string> {
  return new Map(
    [...stdout.matchAll(/^rank (\d+) runs on (\S+)$/gm)].map((m) => [Number(m[1]), m[2] as string]),
  );
}

for (const flavor of installedFlavors()) {
  describe(`${flavor} across hosts`, { skip }, () => {
    const exe = (source: string): string => {
      const out = join(work, `${flavor}-${source.replace(/^.*\//, '').replace(/\.c$/, '')}`);
      compileMpi(flavor, source, out);
      return out;
    };
    /** `mpiscope run` on node0 with this flavor's launcher (`--launcher`); options before `-np`. */
    const mpiscope = (
      options: string[],
      np: number,
      program: string,
      extra: { liveDeadlock?: boolean } = {},
    ) =>
      runCommand(
        hosts.on('node0', [
          process.execPath,
          cliPath,
          'run',
          '--launcher',
          launcherOf(flavor),
          ...options,
          '-np',
          String(np),
          '--',
          program,
        ]),
        { env: hosts.launcherEnv(), cwd: work, timeoutMs: 90_000, ...extra },
      );

    test('the harness: the plain launcher starts one rank per host through the agent, with only what it forwards', async () => {
      const app = exe(whereAmI);
      // FOO goes through the launcher's own option; BAR is only in the launcher's environment, which the
      // agent (like sshd) does not carry to the other hosts.
      const launch =
        flavor === 'openmpi'
          ? ['mpirun.openmpi', '--allow-run-as-root', '--host', remote.join(','), '-np', '3', '-x', 'FOO=yes']
          : ['mpiexec.mpich', '-hosts', remote.join(','), '-np', '3', '-genvnone', '-genv', 'FOO', 'yes'];
      const ran = await runCommand(hosts.on('node0', [...launch, app, 'FOO', 'BAR']), {
        env: { ...hosts.launcherEnv(), BAR: 'leaked' },
        timeoutMs: 60_000,
      });
      assert.equal(ran.code, 0, `the launcher failed${context(ran)}`);
      // Hydra forwards each proxy's output in the chunks it reads, and one rank's line was once written
      // before another's newline ('rank 1 … BAR=-rank 0 … BAR=-'): what is checked here is where the ranks
      // ran and what they saw, so each 'rank N of' starts a line of its own.
      const lines = ran.stdout
        .split('\n')
        .flatMap((l) => l.split(/(?=rank \d+ of \d+ on )/))
        .filter((l) => l.startsWith('rank '))
        .sort();
      assert.deepEqual(
        lines,
        [0, 1, 2].map((r) => `rank ${r} of 3 on ${remote[r]} sum 3 FOO=yes BAR=-`),
        `each rank on its own host, talking to the others, seeing FOO and not BAR${context(ran)}`,
      );
    });

    /** The deadlock ring across node1..node3, reported live; returns the run for more checks. */
    async function ringAcrossHosts(listen: string[]): Promise<Ran> {
      const app = exe(ring);
      const header = parseCorpusHeader(readFileSync(ring, 'utf8'), ring);
      const json = join(work, `${flavor}-ring-${Date.now()}.json`);
      const ran = await mpiscope(
        ['--keep-alive', '--json', json, '--host', remote.join(','), ...listen],
        header.ranks,
        app,
        { liveDeadlock: true },
      );
      assert.notEqual(ran.code, null, `mpiscope did not finish${context(ran)}`);
      assert.ok(ran.reportedAt !== undefined, `no live deadlock report${context(ran)}`);
      assert.deepEqual(
        [...rankHosts(ran.stdout).entries()].sort(),
        remote.map((h, r) => [r, h]),
        `the ranks ran on node1..node3${context(ran)}`,
      );
      const report = readReport(json);
      assert.deepEqual(findingKeys(report, ring), ['deadlock lines 40,42'], `findings${context(ran)}`);
      // Every rank's own call site, resolved although the rank ran on another host.
      const deadlock = report.findings.find((f) => f.kind === 'deadlock');
      assert.deepEqual(
        deadlock?.locations.map((l) => [l.rank, l.file, l.line]).sort(),
        [
          [0, ring, 40],
          [1, ring, 42],
          [2, ring, 40],
        ],
        `each rank at its line${context(ran)}`,
      );
      return ran;
    }

    test('a deadlock ring spanning three hosts is reported with every rank’s line', async () => {
      const ran = await ringAcrossHosts([]);
      const ms = reportLatency(ran, 3);
      console.log(`${flavor}: deadlock across 3 hosts reported ${ms ?? '?'} ms after the last rank blocked`);
    });

    test('call sites resolve when the hosts run a binary the analyzer’s host does not have at that path', async () => {
      // The path the job runs, bin/app, holds another program on node0 (where mpiscope runs) than on the
      // hosts, which see remote/ mounted over bin/ (a node-local build, or a file system the login node
      // mounts differently): only the ranks' own hosts can say which file and line their addresses are.
      const dir = join(work, `${flavor}-paths`);
      mkdirSync(join(dir, 'bin'), { recursive: true });
      mkdirSync(join(dir, 'remote'), { recursive: true });
      compileMpi(flavor, whereAmI, join(dir, 'bin', 'app'));
      compileMpi(flavor, ring, join(dir, 'remote', 'app'));
      const json = join(dir, 'report.json');
      // The hosts from a host file this time, one slot each, in the launcher's own syntax (Open MPI
      // counts a bare name as one slot per core).
      const hostfile = join(dir, 'hosts');
      writeFileSync(
        hostfile,
        remote.map((h) => (flavor === 'openmpi' ? `${h} slots=1\n` : `${h}:1\n`)).join(''),
      );
      const ran = await runCommand(
        hosts.on('node0', [
          process.execPath,
          cliPath,
          'run',
          '--launcher',
          launcherOf(flavor),
          '--json',
          json,
          '--hostfile',
          hostfile,
          '-np',
          '3',
          '--',
          join(dir, 'bin', 'app'),
        ]),
        {
          env: { ...hosts.launcherEnv(), MPS_CLUSTER_BIND: `${join(dir, 'remote')}:${join(dir, 'bin')}` },
          cwd: dir,
          timeoutMs: 90_000,
        },
      );
      assert.notEqual(ran.code, null, `mpiscope did not finish${context(ran)}`);
      assert.deepEqual(
        [...rankHosts(ran.stdout).entries()].sort(),
        remote.map((h, r) => [r, h]),
        `the hosts of the host file ran the ring, not node0's program${context(ran)}`,
      );
      assert.deepEqual(
        findingKeys(readReport(json), ring),
        ['deadlock lines 40,42'],
        `findings${context(ran)}`,
      );
    });

    test('a correct program across hosts gives no finding (analyzer on a routed address, --listen)', async () => {
      const source = corpus('ok-sendrecv-ring.c');
      const app = exe(source);
      const json = join(work, `${flavor}-ok.json`);
      const ran = await mpiscope(['--json', json, '--host', 'node1,node2', '--listen', '198.18.1.1'], 3, app);
      assert.equal(ran.code, 0, `exit status${context(ran)}`);
      const report = readReport(json);
      assert.deepEqual(findingKeys(report, source), [], `findings${context(ran)}`);
      assert.equal(report.ranks, 3);
    });

    test('a mismatch between ranks on two hosts is found at both lines', async () => {
      const source = corpus('type-mismatch-int-float.c');
      const header = parseCorpusHeader(readFileSync(source, 'utf8'), source);
      const app = exe(source);
      const json = join(work, `${flavor}-mismatch.json`);
      const ran = await mpiscope(['--json', json, '--host', 'node1,node2'], header.ranks, app);
      assert.equal(ran.code, 1, `exit status${context(ran)}`);
      assert.deepEqual(
        findingKeys(readReport(json), source),
        header.expect.map((e) => `${e.kind} lines ${e.lines.join(',')}`),
        `findings${context(ran)}`,
      );
    });

    // One run, two tests: what is required and works, and what the report must also get right.
    let unreachableRun: Promise<{ ran: Ran; json: string; source: string }> | undefined;
    const unreachable = () =>
      (unreachableRun ??= (async () => {
        const source = corpus('ok-ping-pong.c');
        const app = exe(source);
        const json = join(work, `${flavor}-unreachable.json`);
        // Rank 0 on node1 reaches 198.18.1.1; rank 1 on node3 has no route to it. The port is free for
        // sure: node0's network namespace is this run's own.
        const ran = await mpiscope(
          ['--json', json, '--host', 'node1,node3', '--listen', '198.18.1.1:7777'],
          2,
          app,
        );
        return { ran, json, source };
      })());

    test('a host with no route to the analyzer gets a line naming it, and the job still completes', async () => {
      const { ran } = await unreachable();
      assert.notEqual(ran.code, null, `mpiscope hung${context(ran)}`);
      assert.match(
        ran.stdout + ran.stderr,
        /the job completed/,
        `the job itself must not break${context(ran)}`,
      );
      const said = ran.stderr.split('\n').filter((l) => /\brank 1\b/.test(l) && /node3/.test(l));
      assert.ok(said.length > 0, `no line names rank 1 on node3${context(ran)}`);
      assert.ok(
        said.some((l) => l.includes('198.18.1.1:7777')),
        `the line names the address the rank was given${context(ran)}`,
      );
      console.log(`${flavor}: unreachable host: ${said[0]?.trim()} (exit ${ran.code})`);
    });

    test('with a host that cannot reach the analyzer, the report does not claim it connected nor judge its messages', async () => {
      const { ran, json, source } = await unreachable();
      assert.notEqual(ran.code, null, `mpiscope hung${context(ran)}`);
      const contradiction = ran.stderr
        .split('\n')
        .find((l) => /\brank 1\b[^.;]*(?<!never )\bconnected\b/.test(l));
      assert.equal(contradiction, undefined, `a line says rank 1 connected${context(ran)}`);
      // A correct program stays without findings: what rank 0 sent to the unobserved rank 1 was received
      // there; mpiscope just could not see it.
      assert.deepEqual(
        findingKeys(readReport(json), source),
        [],
        `findings about an unobserved rank${context(ran)}`,
      );
    });

    test('--listen on an address the hosts cannot reach (loopback) says so instead of hanging', async () => {
      const source = corpus('ok-ping-pong.c');
      const app = exe(source);
      const ran = await mpiscope(['--host', 'node1,node2', '--listen', '127.0.0.1'], 2, app);
      assert.equal(ran.code, 2, `mpiscope could not observe any rank: exit 2${context(ran)}`);
      const line = ran.stderr
        .split('\n')
        .find((l) => /node1|node2|127\.0\.0\.1/.test(l) && /mpiscope/.test(l));
      assert.ok(line !== undefined, `no line says what went wrong${context(ran)}`);
      console.log(`${flavor}: loopback listen with remote hosts: ${line.trim()}`);
    });

    // --tls on the network the hosts share: wss to a certificate made for the session, pinned by the ranks.
    test('over TLS (--tls) on the hosts’ network: a job across hosts is observed whole', async () => {
      const source = corpus('ok-sendrecv-ring.c');
      const app = exe(source);
      const json = join(work, `${flavor}-tls.json`);
      const ran = await mpiscope(
        ['--tls', '--json', json, '--host', 'node1,node2', '--listen', '198.18.0.1'],
        3,
        app,
      );
      assert.equal(ran.code, 0, `exit status${context(ran)}`);
      assert.doesNotMatch(ran.stderr, /cannot reach the analyzer/, `every rank connected${context(ran)}`);
      const report = readReport(json);
      assert.deepEqual(findingKeys(report, source), [], `findings${context(ran)}`);
      const endings = (JSON.parse(readFileSync(json, 'utf8')) as { rankEndings: { how: string }[] })
        .rankEndings;
      assert.deepEqual(
        endings.map((e) => e.how),
        ['finalized', 'finalized', 'finalized'],
        `every rank's stream came over wss${context(ran)}`,
      );
    });

    test('over TLS, ranks given another fingerprint refuse the analyzer with one line each, and the job runs', async () => {
      const source = corpus('ok-sendrecv-ring.c');
      const app = exe(source);
      // The launcher hands the ranks a pin that is not this session's certificate (an impostor at that address
      // looks the same to them).
      const launcher = join(work, `${flavor}-wrong-pin.sh`);
      writeFileSync(
        launcher,
        `#!/bin/sh\nMPISCOPE_TLS_FINGERPRINT=${'ab'.repeat(32)} exec ${flavor === 'openmpi' ? 'mpirun.openmpi' : 'mpiexec.mpich'} "$@"\n`,
        { mode: 0o755 },
      );
      const ran = await mpiscope(
        ['--tls', '--mpirun', launcher, '--host', 'node1,node2', '--listen', '198.18.0.1'],
        3,
        app,
      );
      assert.equal(ran.code, 2, `mpiscope could not observe the job: exit 2${context(ran)}`);
      const refused = ran.stderr
        .split('\n')
        .filter(
          (l) => /cannot reach the analyzer at wss:/.test(l) && /is not the one this session pinned/.test(l),
        );
      assert.ok(refused.length >= 2, `the ranks on node1 and node2 each say so${context(ran)}`);
      assert.ok(
        refused.some((l) => /node1/.test(l)) && refused.some((l) => /node2/.test(l)),
        `the lines name the hosts${context(ran)}`,
      );
      assert.match(
        ran.stderr,
        /\(the job exited with 0\)/,
        `the job itself ran and completed${context(ran)}`,
      );
      console.log(`${flavor}: wrong pin over the network: ${refused[0]?.trim()}`);
    });
  });
}

describe('a slow link', { skip }, () => {
  const slow = new Hosts('slow');
  before(() => {
    if (skip === undefined) slow.up(4);
  });
  after(() => {
    if (skip === undefined) slow.down();
  });
  for (const flavor of installedFlavors()) {
    test(`${flavor}: the deadlock ring is still found when one host's link is slow and busy`, async () => {
      const applied = slow.slow('node2');
      const stopFlood = startFlood(slow, 'node2');
      const app = join(work, `${flavor}-slow-ring`);
      compileMpi(flavor, ring, app);
      const json = join(work, `${flavor}-slow.json`);
      const ran = await runCommand(
        slow.on('node0', [
          process.execPath,
          cliPath,
          'run',
          '--launcher',
          launcherOf(flavor),
          '--keep-alive',
          '--json',
          json,
          '--host',
          remote.join(','),
          '-np',
          '3',
          '--',
          app,
        ]),
        { env: slow.launcherEnv(), cwd: work, timeoutMs: 120_000, liveDeadlock: true },
      );
      stopFlood();
      assert.notEqual(ran.code, null, `mpiscope did not finish${context(ran)}`);
      assert.deepEqual(
        findingKeys(readReport(json), ring),
        ['deadlock lines 40,42'],
        `findings${context(ran)}`,
      );
      console.log(
        `${flavor}: slow link (${applied}), kept full by a bulk stream: deadlock reported ${reportLatency(ran, 3) ?? '?'} ms after the last rank blocked`,
      );
    });
  }
});
