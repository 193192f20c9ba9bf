// What the cluster and slurm tiers share: the emulated hosts (hosts.sh), commands run on a host with a
// deadline, the live deadlock line and its latency, and the JSON report.
import { spawn, spawnSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { findingKey } from '../lib/corpus-header';
import { repoRoot, type JsonReport } from '../lib/mpiscope-cli';

export { readReport, type JsonReport } from '../lib/mpiscope-cli';

export const clusterDir = join(repoRoot(), 'test', 'cluster');
const hostsScript = join(clusterDir, 'hosts.sh');
export const agentScript = join(clusterDir, 'agent.sh');
export const cliPath = join(repoRoot(), 'dist', 'cli.js');

/** Why the hosts cannot be emulated here, or undefined when they can (root, and namespaces work). */
export function hostsSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: network namespaces (ip netns) need root';
  const r = spawnSync('bash', [hostsScript, 'check'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? undefined : (r.stdout + r.stderr).trim() || `hosts.sh check exited ${r.status}`;
}

/**
 * One run's hosts node0..node{n-1}. The run's name carries this process's pid, so that `sweep` (called
 * first) removes the hosts of earlier runs whose test process died without tearing down.
 */
export class Hosts {
  readonly run: string;
  constructor(tag: string) {
    this.run = `mps${process.pid}x${tag}`;
  }
  up(n: number): void {
    script(['sweep']);
    script(['up', this.run, String(n)]);
  }
  down(): void {
    script(['down', this.run]);
  }
  /** Slow HOST's link both ways; returns what was applied (netem, or tbf when the kernel has no netem). */
  slow(host: string): string {
    return script(['slow', this.run, host]).trim();
  }
  /**
   * The environment that makes Open MPI's mpirun and MPICH's mpiexec start their daemons on other hosts
   * through the agent instead of ssh, and keeps Open MPI's traffic on the emulated network.
   */
  launcherEnv(): NodeJS.ProcessEnv {
    return {
      MPS_CLUSTER_RUN: this.run,
      OMPI_MCA_plm_rsh_agent: agentScript,
      OMPI_MCA_btl: 'tcp,self,vader',
      OMPI_MCA_btl_tcp_if_include: '198.18.0.0/15',
      OMPI_MCA_oob_tcp_if_include: '198.18.0.0/15',
      HYDRA_LAUNCHER: 'ssh',
      HYDRA_LAUNCHER_EXEC: agentScript,
    };
  }
  /** The command line that runs argv on host. */
  on(host: string, argv: readonly string[]): string[] {
    return ['bash', hostsScript, 'exec', this.run, host, ...argv];
  }
}

function script(args: string[]): string {
  const r = spawnSync('bash', [hostsScript, ...args], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`hosts.sh ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/**
 * Keep the link from host `from` to 198.18.0.1 (node0) full with a bulk TCP stream, as another job's
 * traffic would: on a rate-limited link every packet of the job then waits behind a full queue. Returns
 * the function that stops it. The two ends are processes inside the run's namespaces, so hosts.sh down
 * also ends them.
 */
export function startFlood(hosts: Hosts, from: string): () => void {
  const port = 9000;
  const sinkArgv = hosts.on('node0', [
    process.execPath,
    '-e',
    `require('net').createServer((s) => { s.resume(); s.on('error', () => {}); }).listen(${port}, '198.18.0.1')`,
  ]);
  const sink = spawn(sinkArgv[0] as string, sinkArgv.slice(1), { stdio: 'ignore' });
  // The source retries until the sink listens, then writes as fast as the link takes it.
  const sourceScript = `
    const net = require('net'); const chunk = Buffer.alloc(65536);
    (function go() {
      const c = net.connect(${port}, '198.18.0.1');
      c.on('connect', () => { const pump = () => { while (c.write(chunk)); }; c.on('drain', pump); pump(); });
      c.on('error', () => setTimeout(go, 100));
    })();`;
  const argv = hosts.on(from, [process.execPath, '-e', sourceScript]);
  const source = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore' });
  return () => {
    source.kill('SIGKILL');
    sink.kill('SIGKILL');
  };
}

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** When the deadlock's live line arrived (ms since the epoch), if it did. */
  readonly reportedAt?: number;
}

/**
 * Run argv with a deadline (SIGTERM, then SIGKILL 5 s later; code is then null). With `liveDeadlock`,
 * the first live deadlock line of `mpiscope run --keep-alive` is timed on arrival and answered with
 * SIGINT, which ends the job and makes mpiscope print and write its report.
 */
export function runCommand(
  argv: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; liveDeadlock?: boolean } = {},
): Promise<Ran> {
  return new Promise((done) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let reportedAt: number | undefined;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (
        options.liveDeadlock === true &&
        reportedAt === undefined &&
        /left running for inspection/.test(stderr)
      ) {
        reportedAt = Date.now();
        child.kill('SIGINT');
      }
    });
    const limit = options.timeoutMs ?? 60_000;
    const term = setTimeout(() => child.kill('SIGTERM'), limit);
    const kill = setTimeout(() => child.kill('SIGKILL'), limit + 5000);
    child.on('close', (code, signal) => {
      clearTimeout(term);
      clearTimeout(kill);
      done({
        code: signal === null ? code : null,
        stdout,
        stderr,
        ...(reportedAt !== undefined ? { reportedAt } : {}),
      });
    });
  });
}

/** Milliseconds from the last "blocking at MS" stamp of the ranks to the live report; undefined without both. */
export function reportLatency(ran: Ran, ranks: number): number | undefined {
  const stamps = [...ran.stderr.matchAll(/blocking at (\d+)/g)].map((m) => Number(m[1]));
  if (ran.reportedAt === undefined || stamps.length < ranks) return undefined;
  return ran.reportedAt - Math.max(...stamps);
}

/** The report's findings as the corpus headers write them: kind and the sorted lines in `source`. */
export function findingKeys(report: JsonReport, source: string): string[] {
  return report.findings
    .map((f) =>
      findingKey(
        f.kind,
        f.locations.filter((l) => basename(l.file) === basename(source)).map((l) => l.line),
      ),
    )
    .sort();
}

/** Output and error of a run, for assertion messages. */
export function context(ran: Ran): string {
  return `\n--- stdout\n${ran.stdout.slice(-3000)}\n--- stderr\n${ran.stderr.slice(-3000)}`;
}
