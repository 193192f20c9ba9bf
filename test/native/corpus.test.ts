// Every program of test/programs, under every installed MPI: compiled with -g -O0 (a Fortran program once per
// binding its header names), run under `mpiscope run --json`, and its findings compared with the header
// (kind + set of lines, and exit status).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureMemcheckRuntime, ensureShim } from '../../server/src/session/shim-locator';
import type { MpiFlavor } from '../../server/src/session/mpi-flavor';
import { findingKey, isFortranSource, parseCorpusHeader } from '../lib/corpus-header';
import {
  compileMpiAsync,
  compileMpiFortranAsync,
  installedFlavors,
  readReport,
  repoRoot,
  runCli,
} from '../lib/mpiscope-cli';

const programsDir = join(repoRoot(), 'test', 'programs');
const programs = readdirSync(programsDir)
  .filter((f) => f.endsWith('.c') || isFortranSource(f))
  .sort();
const only = process.env.MPISCOPE_CORPUS_FILTER; // e.g. "deadlock-" to run a subset while developing
// MPISCOPE_CORPUS_MEMCHECK=1: every correct program (ok-*) is built with mpiscope cc/fc and run in the memcheck
// mode too, and must stay silent there (the mode's false-positive rate; slow, so not in every run).
const memcheckAll = process.env.MPISCOPE_CORPUS_MEMCHECK === '1';
const work = mkdtempSync(join(tmpdir(), 'mpiscope-corpus-'));
after(() => rmSync(work, { recursive: true, force: true }));
// The shim of each MPI is built once before the programs run (it wraps the whole API: about half a minute of
// compiling), so that no program's 90-second limit includes the build, nor two programs build it at once.
// The memcheck build of each shim and the memcheck runtime start there too but are not waited for: they compile
// while the first programs run, and a memcheck program waits for them before its compile and its limit start
// (built by its first program, they took 40 s of that program's 90 in a clean-clone run).
let memcheckBuilds: Promise<unknown> = Promise.resolve();
before(async () => {
  const flavors = installedFlavors() as MpiFlavor[];
  await Promise.all(flavors.map((flavor) => ensureShim(flavor)));
  memcheckBuilds = Promise.all([
    ...flavors.map((flavor) => ensureShim(flavor, process.env, 'memcheck')),
    ensureMemcheckRuntime(),
  ]);
  // Waited for (and its failure reported) by the memcheck programs; none may be selected.
  memcheckBuilds.catch(() => undefined);
});

test('the corpus is not empty', () => {
  assert.ok(programs.length > 0, `no *.c in ${programsDir}`);
  assert.ok(programs.some(isFortranSource), `no Fortran program in ${programsDir}`);
  assert.ok(installedFlavors().length > 0, 'neither Open MPI nor MPICH (mpicc.X and mpirun.X) is installed');
});

// Jobs at a time. A job spends most of its time waiting, not computing (the launcher's start-up, the hang
// watch's quiet period, the launcher's grace when a deadlocked job is ended, node's start for each report):
// in a clean-clone run with two at a time the corpus used about a third of the two cores. Override with
// MPISCOPE_CORPUS_JOBS=N.
const jobs = corpusJobs();
// Open MPI's ranks spin in their waits unless mpirun knows the node is oversubscribed, which it judges from its
// own job alone (-np 2 on two cores is not); with several jobs at once, spinning ranks take the cores from the
// other jobs and from the analyzers. Told to yield, they still make the same calls in the same order; only an
// idle wait gives the core away. (The user's own setting wins.)
const jobEnv: NodeJS.ProcessEnv =
  process.env.OMPI_MCA_mpi_yield_when_idle === undefined ? { OMPI_MCA_mpi_yield_when_idle: '1' } : {};
//
// The analysis runs with one engine (--analyzers 1) or split into four shard threads (--analyzers 4), and
// its findings must not depend on it. Each run goes live at one K, alternately (every other program of each
// MPI at K=4), so the live session with and without threads meets half the corpus each, at the cost of one
// run; then its trace is reported again at K=1 and at K=4, and the two reports must be the same byte for
// byte: the same stream through one engine and through four shards, on every program, which no second live
// run could show (a second run of a racy program may legitimately differ).
test('corpus', { concurrency: jobs }, async (t) => {
  const runs: Promise<void>[] = [];
  let index = 0;
  for (const flavor of installedFlavors()) {
    for (const file of programs) {
      if (only !== undefined && !file.includes(only)) continue;
      const source = join(programsDir, file);
      const header = parseCorpusHeader(readFileSync(source, 'utf8'), file);
      if (!header.mpi.includes(flavor)) continue;
      // A correct program in the memcheck mode must stay silent as in the default one.
      const memcheck = header.memcheck || (memcheckAll && file.startsWith('ok-'));
      if (memcheckAll && !memcheck) continue;
      // A C program runs once; a Fortran program once per binding.
      for (const binding of header.bindings.length > 0 ? header.bindings : [undefined]) {
        const analyzers = index++ % 2 === 0 ? 1 : 4;
        const label = `${binding === undefined ? file : `${file} [${binding}]`}${memcheck ? ' (memcheck)' : ''} (K=${analyzers})`;
        runs.push(
          t.test(`${flavor} ${label}`, async (st) => {
            const dir = join(
              work,
              flavor,
              file.replace(/\.\w+$/, '') +
                (binding === undefined ? '' : `-${binding}`) +
                (memcheck ? '-mc' : ''),
            );
            mkdirSync(dir, { recursive: true });
            // Where each program's time goes, printed with its result (the tier's time is the sum of these).
            const took: string[] = [];
            let since = Date.now();
            const lap = (what: string): void => {
              took.push(`${what} ${Date.now() - since} ms`);
              since = Date.now();
            };
            const exe = join(dir, 'app');
            if (memcheck) {
              await memcheckBuilds;
              lap('waiting for the memcheck builds');
            }
            if (binding === undefined) await compileMpiAsync(flavor, source, exe, memcheck);
            else await compileMpiFortranAsync(flavor, source, binding, exe, memcheck);
            lap('compile');
            const json = join(dir, 'report.json');
            const trace = join(dir, 'trace.bin');
            const expected = header.expect.map((e) => findingKey(e.kind, e.lines)).sort();
            const runOnce = async () => {
              const cli = await runCli(
                [
                  'run',
                  '--analyzers',
                  String(analyzers),
                  '--trace',
                  trace,
                  '--json',
                  json,
                  '--mpirun',
                  `mpirun.${flavor}`,
                  '-np',
                  String(header.ranks),
                  ...(memcheck ? ['--memcheck'] : []),
                  '--',
                  exe,
                  ...header.args,
                ],
                {
                  cwd: dir,
                  timeoutMs: 90_000,
                  env: jobEnv,
                },
              );
              const context = `\n--- stdout\n${cli.stdout}\n--- stderr\n${cli.stderr.slice(-3000)}`;
              assert.notEqual(cli.code, null, `mpiscope did not finish within 90 s${context}`);
              assert.notEqual(cli.code, 2, `mpiscope could not do its job${context}`);
              const report = readReport(json);
              const actual = report.findings
                .map((f) =>
                  findingKey(
                    f.kind,
                    f.locations.filter((l) => basename(l.file) === file).map((l) => l.line),
                  ),
                )
                .sort();
              return { cli, context, report, actual };
            };
            let { cli, context, report, actual } = await runOnce();
            // A program whose findings differ runs once more, and the first result is printed; a program wrong
            // twice fails. The one flake seen in clean-clone runs (call-order-rma-no-epoch.c on Open MPI: the
            // no-epoch Put's held-back ENTER was not in the ring when the shim flushed before MPI aborted) is
            // fixed in msc_checks.c; a diagnostic here is a new flake to chase, not a pass to ignore.
            if (JSON.stringify(actual) !== JSON.stringify(expected)) {
              st.diagnostic(`${flavor} ${label}: first run gave [${actual.join('; ')}], ran again`);
              ({ cli, context, report, actual } = await runOnce());
            }
            lap('run');
            assert.deepEqual(actual, expected, `findings differ${context}`);
            // The report's finding that an expected one names (its kind and its lines in this program).
            const findingOf = (key: string) =>
              report.findings.find(
                (g) =>
                  findingKey(
                    g.kind,
                    g.locations.filter((l) => basename(l.file) === file).map((l) => l.line),
                  ) === key,
              );
            // A header that names a severity (`expect: invalid-argument note lines 12`) is held to it.
            for (const e of header.expect) {
              if (e.severity === undefined) continue;
              const key = findingKey(e.kind, e.lines);
              assert.equal(findingOf(key)?.severity, e.severity, `severity of ${key}${context}`);
            }
            // A header that names ranks (`expect: invalid-argument lines 23 ranks 0,1,2,3`) is held to them: every
            // rank that made the call is listed, whenever its stream came.
            for (const e of header.expect) {
              if (e.ranks === undefined) continue;
              const key = findingKey(e.kind, e.lines);
              const ranks = [...new Set(findingOf(key)?.locations.map((l) => l.rank))].sort((a, b) => a - b);
              assert.deepEqual(ranks, e.ranks, `ranks of ${key}${context}`);
            }
            // A finding on a Fortran program names the MPI function as on its C twin (MPI_Recv, not mpi_recv_).
            for (const f of report.findings)
              for (const l of f.locations)
                if (l.function !== undefined)
                  assert.doesNotMatch(l.function, /^p?mpi_\w+_$/, `location names ${l.function}`);
            const errors = report.findings.some((f) => f.severity === 'error');
            // A job that fails on its own exits 3 (MPICH's UCX aborts at MPI_Finalize with a window never freed).
            const failed = report.outcome === 'failed';
            assert.equal(cli.code, header.exit ?? (errors ? 1 : failed ? 3 : 0), `exit status${context}`);
            assert.equal(report.exitCode, cli.code, 'the JSON exitCode is the exit status');
            assert.equal(report.ranks, header.ranks);
            const again = async (k: number) => {
              const out = join(dir, `report-k${k}.json`);
              const r = await runCli(['report', trace, '--analyzers', String(k), '--json', out], {
                cwd: dir,
                timeoutMs: 60_000,
              });
              assert.notEqual(r.code, 2, `mpiscope report --analyzers ${k} failed\n${r.stderr}`);
              return { code: r.code, stdout: r.stdout, json: readFileSync(out, 'utf8') };
            };
            const one = await again(1);
            lap('report K=1');
            const four = await again(4);
            lap('report K=4');
            st.diagnostic(took.join(', '));
            assert.equal(
              four.json,
              one.json,
              'the JSON report of the same trace differs between K=1 and K=4',
            );
            assert.equal(
              four.stdout,
              one.stdout,
              'the printed report of the same trace differs between K=1 and K=4',
            );
            assert.equal(four.code, one.code);
          }),
        );
      }
    }
  }
  await Promise.all(runs);
});

function corpusJobs(): number {
  const v = process.env.MPISCOPE_CORPUS_JOBS;
  if (v === undefined || v === '') return 4;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`MPISCOPE_CORPUS_JOBS must be a positive integer (got ${v})`);
  return n;
}
