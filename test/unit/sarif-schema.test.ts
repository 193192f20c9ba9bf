/**
 * `mpiscope run --sarif FILE` must be valid SARIF 2.1.0 against the published JSON schema, so that GitHub code
 * scanning and other SARIF viewers accept it. The schema and its validator come from node_modules (nothing is
 * vendored): the schema from @microsoft/jest-sarif (the 2.1.0 schema, JSON Schema draft-04) or from
 * @microsoft/sarif-multitool-linux (the same schema with the errata, draft 2020-12), validated with ajv.
 * They are devDependencies: a missing schema or validator fails the tests, it does not skip them.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { Finding } from '../../server/src/session/session-api';
import { sarifReport } from '../../server/src/report/sarif';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
interface AjvInstance {
  compile(schema: object): Validate;
}
type AjvClass = new (options: object) => AjvInstance;

// Resolved at run time (not bundled): these are optional until the lead installs them.
const load = createRequire(__filename);

/** [package, schema file inside it]; the first one installed is used. */
const SCHEMAS: readonly (readonly [string, string])[] = [
  ['@microsoft/jest-sarif', 'lib/schemas/sarif-2.1.0-rtm.5.json'],
  ['@microsoft/sarif-multitool-linux', 'sarif-2.1.0.json'],
];

function packageDir(name: string): string | undefined {
  try {
    return dirname(load.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

function findSchema(): { path: string; schema: { $schema?: string } } | undefined {
  for (const [pkg, file] of SCHEMAS) {
    const dir = packageDir(pkg);
    const path = dir === undefined ? undefined : join(dir, file);
    if (path !== undefined && existsSync(path))
      return { path, schema: JSON.parse(readFileSync(path, 'utf8')) as { $schema?: string } };
  }
  return undefined;
}

function defaultExport<T>(mod: unknown): T {
  const m = mod as { default?: T };
  return m.default ?? (mod as T);
}

/** A validator for the schema's own dialect, with formats (uri, date-time) checked. */
function makeValidator(): Validate | string {
  const found = findSchema();
  if (found === undefined)
    return `no SARIF schema in node_modules: install ${SCHEMAS.map(([p]) => p).join(' or ')} (devDependency)`;
  const dialect = found.schema.$schema ?? '';
  const cls = dialect.includes('draft-04')
    ? 'ajv-draft-04'
    : dialect.includes('2020-12')
      ? 'ajv/dist/2020'
      : 'ajv';
  let Ajv: AjvClass;
  let addFormats: (ajv: AjvInstance) => void;
  try {
    Ajv = defaultExport<AjvClass>(load(cls));
    addFormats = defaultExport<(ajv: AjvInstance) => void>(load('ajv-formats'));
  } catch {
    return `no validator for ${found.path}: install ${cls === 'ajv/dist/2020' ? 'ajv' : cls} and ajv-formats (devDependencies)`;
  }
  // The 2.1.0 schema's language pattern is not a valid Unicode-mode regular expression (fixed in the errata):
  // compile patterns without the u flag, as draft-04 validators always did.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(found.schema);
}

const validator = makeValidator();
// The schema packages are devDependencies of the project: without them the checks below must fail.
const skip = false;
test('the SARIF 2.1.0 schema and its validator are installed', () => {
  assert.equal(typeof validator, 'function', typeof validator === 'string' ? validator : '');
});

function assertValid(log: unknown): void {
  if (typeof validator === 'string') assert.fail(validator);
  const ok = validator(log);
  assert.ok(ok, `not valid SARIF 2.1.0:\n${JSON.stringify(validator.errors, null, 2)}`);
}

const loc = (rank: number, file: string, line: number, fn = 'main') => ({
  rank,
  file,
  line,
  function: fn,
  call: 'MPI_Recv',
  detail: `MPI_Recv from rank ${(rank + 1) % 3}, tag 0`,
});

/** Every shape of finding a report can hold: several ranks, files inside and outside cwd, unknown sites. */
const findings: Finding[] = [
  {
    kind: 'deadlock',
    severity: 'error',
    message: 'Ranks 0, 1 and 2 each wait for the next.',
    locations: [loc(0, '/w/app/ring.c', 14), loc(1, '/w/app/sub dir/ring #2.c', 21), loc(2, '', 0, '')],
  },
  {
    kind: 'potential-deadlock',
    severity: 'warning',
    message: 'Relies on buffering.',
    locations: [loc(0, '/elsewhere/lib.c', 3, 'helper')],
  },
  { kind: 'resource-leak', severity: 'note', message: 'A leak.', locations: [] },
  {
    kind: 'call-order',
    severity: 'error',
    message: 'Unknown line.',
    locations: [loc(1, '/w/app/ring.c', 0)],
  },
];

function report(fs: Finding[]): unknown {
  const input = {
    start: { program: '/w/app/ring', ranks: 3, mpi: 'openmpi', command: [], pid: 1 },
    result: { findings: fs, ranks: 3, exitCode: 1, outcome: 'deadlock' as const },
  };
  return JSON.parse(
    sarifReport(input, { cwd: '/w/app', docsBase: 'file:///opt/mpiscope/docs/findings', version: '0.1.0' }),
  );
}

interface Result {
  locations: { message: { text: string } }[];
  relatedLocations: { id: number; message: { text: string } }[];
}

test('SARIF of every finding shape is valid SARIF 2.1.0', { skip }, () => {
  assertValid(report(findings));
  assertValid(report([]));
});

test('SARIF: one primary location, every other rank a relatedLocation naming its rank', { skip }, () => {
  const log = report(findings) as { runs: { results: Result[] }[] };
  const deadlock = log.runs[0]?.results[0];
  assert.ok(deadlock !== undefined);
  assert.equal(deadlock.locations.length, 1);
  assert.match(deadlock.locations[0]?.message.text ?? '', /^rank 0: /);
  assert.deepEqual(
    deadlock.relatedLocations.map((l) => [l.id, l.message.text.slice(0, 7)]),
    [
      [1, 'rank 1:'],
      [2, 'rank 2:'],
    ],
  );
});

test('the validator rejects what SARIF forbids (so the tests above can fail)', { skip }, () => {
  if (typeof validator === 'string') return;
  const log = report(findings) as { runs: { results: { level: string }[] }[] };
  const first = log.runs[0]?.results[0];
  assert.ok(first !== undefined);
  first.level = 'fatal';
  assert.equal(validator(log), false, 'a result level outside none/note/warning/error must be rejected');
  assert.equal(validator({ version: '2.0.0', runs: [] }), false, 'version must be 2.1.0');
});
