/** --fail-on: which findings make the exit status 1 (report-model.ts), and the launch configuration's failOn. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Severity } from '../../server/src/engine/model/types';
import { exitStatusOf, failsOn } from '../../server/src/report/report-model';
import { planLaunch } from '../../server/src/dap/launch-args';
import type { Finding } from '../../server/src/session/session-api';

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
  assert.equal(exitStatusOf(notes, 'completed'), 0);
  assert.equal(exitStatusOf(notes, 'completed', 'note'), 1);
  assert.equal(exitStatusOf(warnings, 'completed', 'error'), 0);
  assert.equal(exitStatusOf(warnings, 'completed', 'warning'), 1);
  assert.equal(exitStatusOf(warnings, 'failed', 'error'), 3);
  assert.equal(exitStatusOf([finding('error')], 'failed'), 1);
});

test('the launch configuration takes failOn (default error) and refuses other values in one line', () => {
  assert.equal(planLaunch({ program: '/bin/app' }).failOn, 'error');
  assert.equal(planLaunch({ program: '/bin/app', failOn: 'note' }).failOn, 'note');
  assert.throws(
    () => planLaunch({ program: '/bin/app', failOn: 'fatal' }),
    /"failOn" must be "error", "warning" or "note"/,
  );
});
