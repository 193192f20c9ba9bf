// The slurm tier: a real single-node Slurm from Debian (munge, slurmctld, slurmd), started by slurm.sh in
// a folder of its own, and corpus programs run by `mpiscope run` under srun: with `--launcher srun` (srun
// makes its own allocation), inside an allocation (salloc), where mpiscope must find srun by itself, and in
// a batch job (sbatch).
// Debian's Open MPI 4.1 starts under srun only with --mpi=pmix, MPICH 4.0 only with --mpi=pmi2 (with
// none, MPICH's ranks each come up as a singleton of size 1): the harness test pins that down.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseCorpusHeader, findingKey } from '../lib/corpus-header';
import { compileMpi, installedFlavors, repoRoot } from '../lib/mpiscope-cli';
import { cliPath, context, findingKeys, readReport, runCommand } from '../cluster/cluster-lib';

const slurmScript = join(repoRoot(), 'test', 'slurm', 'slurm.sh');
const whereAmI = join(repoRoot(), 'test', 'cluster', 'programs', 'where-am-i.c');
const corpus = (name: string): string => join(repoRoot(), 'test', 'programs', name);
/** The srun MPI plugin each MPI's Debian build starts under. */
const plugin: Record<string, string> = { openmpi: 'pmix', mpich: 'pmi2' };

function skipReason(): string | undefined {
  const r = spawnSync('bash', [slurmScript, 'check'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? undefined : (r.stdout + r.stderr).trim() || `slurm.sh check exited ${r.status}`;
}
const skip = skipReason();
if (skip !== undefined) console.log(`slurm tier skipped: ${skip}`);

const work = mkdtempSync(join(tmpdir(), 'mpiscope-slurm-'));
const state = join(work, 'slurm');
let slurmEnv: NodeJS.ProcessEnv = {};

before(() => {
  if (skip !== undefined) return;
  const r = spawnSync('bash', [slurmScript, 'up', state, String(process.pid)], {
    encoding: 'utf8',
    timeout: 90_000,
  });
  if (r.status !== 0) {
    const log = existsSync(join(state, 'up.log'))
      ? readFileSync(join(state, 'up.log'), 'utf8')
      : '(no up.log)';
    throw new Error(
      `Slurm did not start (slurm.sh up: ${r.status ?? r.signal}${r.error ? `, ${r.error.message}` : ''}): ${r.stderr}${r.stdout}\n--- up.log\n${log}`,
    );
  }
  const conf = /SLURM_CONF=(\S+)/.exec(r.stdout)?.[1];
  assert.ok(conf !== undefined, `slurm.sh up printed no SLURM_CONF: ${r.stdout}`);
  slurmEnv = { SLURM_CONF: conf };
  const list = spawnSync('srun', ['--mpi=list'], { encoding: 'utf8', env: { ...process.env, ...slurmEnv } });
  console.log(`srun --mpi=list: ${(list.stdout + list.stderr).replace(/\s+/g, ' ').trim()}`);
});
after(() => {
  if (skip === undefined) spawnSync('bash', [slurmScript, 'down', state], { timeout: 60_000 });
  rmSync(work, { recursive: true, force: true });
});

for (const flavor of installedFlavors()) {
  describe(`${flavor} under srun`, { skip }, () => {
    const exe = (source: string): string => {
      const out = join(work, `${flavor}-${source.replace(/^.*\//, '').replace(/\.c$/, '')}`);
      compileMpi(flavor, source, out);
      return out;
    };

    test(`the harness: plain srun --mpi=${plugin[flavor]} starts one job of 3 ranks`, async () => {
      const app = exe(whereAmI);
      const ran = await runCommand(['srun', `--mpi=${plugin[flavor]}`, '-n', '3', app, 'SLURM_JOB_ID'], {
        env: slurmEnv,
        timeoutMs: 60_000,
      });
      assert.equal(ran.code, 0, `srun failed${context(ran)}`);
      const lines = ran.stdout
        .split('\n')
        .filter((l) => l.startsWith('rank '))
        .map((l) => l.replace(/ on \S+/, '').replace(/SLURM_JOB_ID=\d+/, 'SLURM_JOB_ID=N'))
        .sort();
      assert.deepEqual(
        lines,
        [0, 1, 2].map((r) => `rank ${r} of 3 sum 3 SLURM_JOB_ID=N`),
        `one MPI_COMM_WORLD of 3 ranks, in a Slurm job${context(ran)}`,
      );
    });

    for (const name of ['deadlock-ring-recv-first.c', 'type-mismatch-int-float.c', 'ok-sendrecv-ring.c']) {
      test(`mpiscope run --launcher srun: ${name}`, async () => {
        const source = corpus(name);
        const header = parseCorpusHeader(readFileSync(source, 'utf8'), name);
        const app = exe(source);
        const json = join(work, `${flavor}-${name}.json`);
        const ran = await runCommand(
          [
            process.execPath,
            cliPath,
            'run',
            '--launcher',
            'srun',
            '--json',
            json,
            '-np',
            String(header.ranks),
            '--',
            app,
          ],
          { env: slurmEnv, cwd: work, timeoutMs: 90_000 },
        );
        assert.notEqual(ran.code, null, `mpiscope did not finish${context(ran)}`);
        const report = readReport(json);
        assert.deepEqual(
          findingKeys(report, source),
          header.expect.map((e) => findingKey(e.kind, e.lines)).sort(),
          `findings${context(ran)}`,
        );
        assert.equal(report.ranks, header.ranks);
        const errors = report.findings.some((f) => f.severity === 'error');
        assert.equal(ran.code, header.exit ?? (errors ? 1 : 0), `exit status${context(ran)}`);
      });
    }

    test('inside an allocation (salloc), mpiscope run finds srun by itself', async () => {
      const source = corpus('deadlock-recv-recv.c');
      const header = parseCorpusHeader(readFileSync(source, 'utf8'), source);
      const app = exe(source);
      const json = join(work, `${flavor}-salloc.json`);
      // mpirun and mpiexec would also work inside an allocation (they start their daemons with srun), so
      // here they fail loudly: the job can only run if mpiscope chose srun.
      const stubs = join(work, 'no-mpirun');
      mkdirSync(stubs, { recursive: true });
      for (const name of [
        'mpirun',
        'mpiexec',
        'orterun',
        'mpirun.openmpi',
        'mpirun.mpich',
        'mpiexec.mpich',
        'mpiexec.hydra',
      ]) {
        writeFileSync(
          join(stubs, name),
          `#!/bin/sh\necho "$0 was called inside the allocation: mpiscope should have chosen srun" >&2\nexit 97\n`,
          { mode: 0o755 },
        );
      }
      const ran = await runCommand(
        [
          'salloc',
          '-n',
          String(header.ranks),
          process.execPath,
          cliPath,
          'run',
          '--json',
          json,
          '-np',
          String(header.ranks),
          '--',
          app,
        ],
        { env: { ...slurmEnv, PATH: `${stubs}:${process.env.PATH ?? ''}` }, cwd: work, timeoutMs: 90_000 },
      );
      assert.notEqual(ran.code, null, `mpiscope did not finish${context(ran)}`);
      assert.doesNotMatch(ran.stderr, /should have chosen srun/, `mpiscope used mpirun${context(ran)}`);
      assert.deepEqual(
        findingKeys(readReport(json), source),
        header.expect.map((e) => findingKey(e.kind, e.lines)).sort(),
        `findings${context(ran)}`,
      );
      assert.equal(ran.code, 1, `exit status${context(ran)}`);
    });

    test('in a batch job (sbatch --wait), mpiscope run reports and its exit status is the job’s', async () => {
      const source = corpus('type-mismatch-int-float.c');
      const header = parseCorpusHeader(readFileSync(source, 'utf8'), source);
      const app = exe(source);
      const json = join(work, `${flavor}-sbatch.json`);
      const output = join(work, `${flavor}-sbatch.out`);
      const script = join(work, `${flavor}-job.sh`);
      writeFileSync(
        script,
        [
          '#!/bin/sh',
          `#SBATCH --ntasks=${header.ranks}`,
          `#SBATCH --output=${output}`,
          `exec "${process.execPath}" "${cliPath}" run --json "${json}" -np ${header.ranks} -- "${app}"`,
          '',
        ].join('\n'),
      );
      const ran = await runCommand(['sbatch', '--wait', script], {
        env: slurmEnv,
        cwd: work,
        timeoutMs: 90_000,
      });
      const out = existsSync(output) ? readFileSync(output, 'utf8') : '(no job output)';
      const all = `${context(ran)}\n--- job output\n${out}`;
      assert.notEqual(ran.code, null, `sbatch --wait did not finish${all}`);
      assert.deepEqual(
        findingKeys(readReport(json), source),
        header.expect.map((e) => findingKey(e.kind, e.lines)).sort(),
        `findings${all}`,
      );
      assert.match(out, /type-mismatch/, `the report is in the job's output${all}`);
      assert.equal(ran.code, 1, `sbatch --wait exits with the job's status, mpiscope's 1${all}`);
    });
  });
}
