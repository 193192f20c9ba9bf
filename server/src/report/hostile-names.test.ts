/**
 * Findings name source files and functions that a binary's debug information chose: a hostile or merely odd
 * binary can put quotes, markup, newlines and terminal escape sequences in them. The terminal report shows
 * them escaped (no escape sequence reaches the terminal, no newline forges a line); the JSON and SARIF reports
 * carry them exactly, as JSON strings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReportInput } from './report-model';
import type { Finding } from '../session/session-api';
import { humanReport, printable } from './human-report';
import { jsonReport } from './json-report';
import { sarifReport } from './sarif';

const NAMES = [
  `/w/app/it's "quoted".c`,
  '/w/app/<script>alert(1)</script>.c',
  '/w/app/new\nline: rank 9  /etc/passwd:1  fake finding.c',
  '/w/app/\x1b[2J\x1b]0;owned\x07\x1b[31mred.c',
  '/w/app/$(rm -rf ~)`id`;|&.c',
];

function findingAt(file: string, fn: string): Finding {
  return {
    kind: 'deadlock',
    severity: 'error',
    message: `rank 0 waits in ${fn}`,
    locations: [{ rank: 0, file, line: 7, function: fn, call: 'MPI_Recv', detail: `MPI_Recv in ${fn}` }],
  };
}

const input: ReportInput = {
  start: { program: '/w/app/\x1b[1mprog', ranks: 2, mpi: 'openmpi', command: [], pid: 1 },
  result: {
    findings: NAMES.map((n, i) =>
      findingAt(n, i % 2 === 0 ? 'main\x1b[0m\r' : 'f<img src=x onerror=alert(1)>'),
    ),
    ranks: 2,
    exitCode: 0,
    outcome: 'completed',
    endings: [
      { rank: 0, how: 'finalized', lastCall: 'MPI_Finalize', file: '', line: 0, function: '' },
      {
        rank: 1,
        how: 'signal',
        code: 11,
        signal: 'SIGSEGV',
        lastCall: 'MPI_Send',
        file: NAMES[3] ?? '',
        line: 3,
        function: 'g\nh',
      },
    ],
  },
};

test('the terminal report escapes control characters from names; nothing reaches the terminal raw', () => {
  for (const color of [false, true]) {
    const text = humanReport(input, { cwd: '/w/app', color });
    // The report's own colours (SGR sequences around whole fields) are the only escapes allowed.
    const ours = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
    const withoutOurColours = color ? text.replace(ours, '') : text;
    assert.ok(!withoutOurColours.includes('\x1b'), 'no escape character from a name');
    assert.ok(!text.includes('\r') && !text.includes('\x07'), 'no carriage return or bell');
    // The forged line does not start a line of its own.
    assert.ok(!text.split('\n').some((l) => l.startsWith('line: rank 9')), text);
    assert.match(text, /new\\x0aline: rank 9/);
    assert.match(text, /\\x1b\[2J\\x1b\]0;owned\\x07/);
    assert.match(text, /died of SIGSEGV .*\\x1b\[31mred\.c:3 \(g\\x0ah\)/);
  }
  assert.equal(printable('a\tb\u009bc\x7f'), 'a\\x09b\\x9bc\\x7f');
});

test('JSON and SARIF carry hostile names exactly, as valid JSON', () => {
  const json = JSON.parse(jsonReport(input)) as {
    findings: { locations: { file: string; function: string }[] }[];
  };
  assert.deepEqual(
    json.findings.map((f) => f.locations[0]?.file),
    NAMES,
  );
  const sarif = sarifReport(input, { cwd: '/w/app', docsBase: 'https://x/docs/findings', version: '1' });
  const parsed = JSON.parse(sarif) as object;
  assert.ok(typeof parsed === 'object');
  assert.ok(!sarif.includes('\x1b'), 'the escape character is escaped inside JSON strings');
  assert.ok(
    !/<script>/.test(sarif) || sarif.includes('<script>alert(1)</script>'),
    'markup is data in a string',
  );
});
