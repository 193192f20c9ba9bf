import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding } from '../session/session-api';
import { sarifReport } from './sarif';
import { jsonReport } from './json-report';
import { humanReport } from './human-report';

const deadlock: Finding = {
  kind: 'deadlock',
  severity: 'error',
  message: 'Ranks 0 and 1 each wait for the other.',
  locations: [
    {
      rank: 0,
      file: '/w/app/ring.c',
      line: 14,
      function: 'main',
      call: 'MPI_Recv',
      detail: 'MPI_Recv from rank 1, tag 0',
    },
    {
      rank: 1,
      file: '/elsewhere/lib.c',
      line: 21,
      function: 'helper',
      call: 'MPI_Recv',
      detail: 'MPI_Recv from rank 0, tag 0',
    },
    { rank: 2, file: '', line: 0, function: '', call: 'MPI_Barrier', detail: '' },
  ],
};
interface SarifLocation {
  physicalLocation?: {
    artifactLocation: { uri: string; uriBaseId?: string };
    region?: { startLine: number };
  };
  message: { text: string };
}
interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { rules: { id: string; helpUri: string }[] } };
    results: {
      ruleId: string;
      level: string;
      locations: SarifLocation[];
      relatedLocations: SarifLocation[];
    }[];
  }[];
}
interface JsonReport {
  ranks: number;
  exitCode: number;
  findings: { locations: object[] }[];
}
const ESC = String.fromCharCode(27);

const input = {
  start: { program: '/w/app/ring', ranks: 3, mpi: 'openmpi', command: [], pid: 1 },
  result: { findings: [deadlock], ranks: 3, exitCode: null, outcome: 'deadlock' as const },
};

test('SARIF: one result per finding, first location primary, the others related and naming their rank', () => {
  const log = JSON.parse(
    sarifReport(input, { cwd: '/w/app', docsBase: 'https://x/docs/findings', version: '1.2.3' }),
  ) as SarifLog;
  assert.equal(log.version, '2.1.0');
  const run = log.runs[0];
  assert.ok(run !== undefined);
  assert.deepEqual(
    run.tool.driver.rules.map((r) => [r.id, r.helpUri]),
    [['deadlock', 'https://x/docs/findings/deadlock.md']],
  );
  const [result] = run.results;
  assert.ok(result !== undefined);
  assert.equal(result.ruleId, 'deadlock');
  assert.equal(result.level, 'error');
  assert.deepEqual(result.locations[0]?.physicalLocation, {
    artifactLocation: { uri: 'ring.c', uriBaseId: '%SRCROOT%' },
    region: { startLine: 14 },
  });
  assert.equal(result.relatedLocations.length, 2);
  assert.equal(result.relatedLocations[0]?.physicalLocation?.artifactLocation.uri, 'file:///elsewhere/lib.c');
  assert.match(result.relatedLocations[0]?.message.text ?? '', /^rank 1: /);
  assert.match(result.relatedLocations[1]?.message.text ?? '', /^rank 2: MPI_Barrier/);
});

test("JSON report: the shape of DESIGN.md, exitCode is mpiscope's exit status", () => {
  const r = JSON.parse(jsonReport(input)) as JsonReport;
  assert.equal(r.ranks, 3);
  assert.equal(r.exitCode, 1);
  assert.deepEqual(Object.keys(r.findings[0] ?? {}), ['kind', 'severity', 'message', 'locations']);
  assert.deepEqual(r.findings[0]?.locations[0], {
    rank: 0,
    file: '/w/app/ring.c',
    line: 14,
    function: 'main',
    call: 'MPI_Recv',
    detail: 'MPI_Recv from rank 1, tag 0',
  });
});

test('human report: header, one line per location with paths relative to cwd, summary, no colour off a TTY', () => {
  const text = humanReport(input, { cwd: '/w/app', color: false });
  const lines = text.trimEnd().split('\n');
  assert.equal(lines[0], 'mpiscope: ring, 3 ranks, Open MPI');
  assert.ok(lines.includes('  rank 0  ring.c:14  main  MPI_Recv from rank 1, tag 0'));
  assert.ok(lines.includes('  rank 1  /elsewhere/lib.c:21  helper  MPI_Recv from rank 0, tag 0'));
  assert.match(lines.at(-1) ?? '', /^1 finding \(1 error, 0 warnings\)/);
  assert.ok(!text.includes(ESC), 'no escape sequences');
  assert.ok(humanReport(input, { cwd: '/w/app', color: true }).includes(`${ESC}[`), 'colours on a TTY');
});
