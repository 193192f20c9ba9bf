/** --fail-on: which findings make the exit status 1 (report-model.ts), and the launch configuration's failOn. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Severity } from '../../server/src/engine/model/types';
import { exitStatusOf, failsOn } from '../../server/src/report/report-model';
import { planLaunch } from '../../server/src/dap/launch-args';
import type { Finding } from '../../server/src/session/session-api';
import type { SkippedCheck } from '../../server/src/engine/model/types';

const finding = (severity: Severity): Finding => ({
  kind: 'invalid-argument',
  severity,
  message: 'm',
  locations: [],
});

test('each severity fails the run at its own level and the ones below it', () => {
  assert.deepEqual(
    (['error', 'warning', 'note'] as const).map((s) => [
      failsOn(s, 'error'),
      failsOn(s, 'warning'),
      failsOn(s, 'note'),
    ]),
    [
      [true, true, true],
      [false, true, true],
      [false, false, true],
    ],
  );
});

test('exit status: 1 only for findings at or above --fail-on; a failed job without them is 3', () => {
  const notes = [finding('note')];
  const warnings = [finding('warning'), finding('note')];
  const run = (findings: Finding[], outcome: 'completed' | 'failed') => ({ findings, outcome });
  assert.equal(exitStatusOf(run(notes, 'completed')), 0);
  assert.equal(exitStatusOf(run(notes, 'completed'), 'note'), 1);
  assert.equal(exitStatusOf(run(warnings, 'completed'), 'error'), 0);
  assert.equal(exitStatusOf(run(warnings, 'completed'), 'warning'), 1);
  assert.equal(exitStatusOf(run(warnings, 'failed'), 'error'), 3);
  assert.equal(exitStatusOf(run([finding('error')], 'failed')), 1);
});

test('exit status: a run only partly observed (a rank unseen, records dropped) is 2, never a clean 0', () => {
  const skipped = (cause: SkippedCheck['cause']): SkippedCheck => ({
    cause,
    checks: ['deadlock'],
    reason: 'r',
  });
  const run = (
    cause: SkippedCheck['cause'],
    findings: Finding[] = [],
    outcome: 'completed' | 'failed' = 'completed',
  ) => ({
    findings,
    outcome,
    skippedChecks: [skipped(cause)],
  });
  assert.equal(exitStatusOf(run('unobserved-ranks')), 2);
  assert.equal(exitStatusOf(run('lost-records')), 2);
  // A bound or threads turn one check off on an observed run: named in the report, the run still judged.
  assert.equal(exitStatusOf(run('bound')), 0);
  assert.equal(exitStatusOf(run('threads')), 0);
  // A finding, or the job's own failure, says more than "not observed".
  assert.equal(exitStatusOf(run('unobserved-ranks', [finding('error')])), 1);
  assert.equal(exitStatusOf(run('unobserved-ranks', [], 'failed')), 3);
});

test('the launch configuration takes failOn (default error) and refuses other values in one line', () => {
  assert.equal(planLaunch({ program: '/bin/app' }).failOn, 'error');
  assert.equal(planLaunch({ program: '/bin/app', failOn: 'note' }).failOn, 'note');
  assert.throws(
    () => planLaunch({ program: '/bin/app', failOn: 'fatal' }),
    /"failOn" must be "error", "warning" or "note"/,
  );
});
