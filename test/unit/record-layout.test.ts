/**
 * The C record layout must be the one records.json describes, because the TypeScript decoder reads the
 * JSON and the shim writes the C struct. This test generates msc_records.h from the spec, compiles a probe
 * that prints every field's offset and size as the C compiler lays it out, and compares the two.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Field {
  name: string;
  type: 'u8' | 'u16' | 'u32' | 'u64' | 'i64';
  offset: number;
  count?: number;
}
interface RecordsSpec {
  recordSize: number;
  head: Field[];
  ext: Field[];
  kinds: Record<string, { id: number }>;
}
interface ApiSpec {
  functions: { name: string }[];
  basicTypes: string[];
  ops: string[];
  checks: { id: string }[];
}

const SIZES: Record<Field['type'], number> = { u8: 1, u16: 2, u32: 4, u64: 8, i64: 8 };

/** The repository root: the nearest ancestor with native-shim/spec (tests run from dist/test/unit). */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'native-shim', 'spec', 'records.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('native-shim/spec/records.json not found above ' + __dirname);
    dir = up;
  }
  return dir;
}

const root = repoRoot();
const records = JSON.parse(readFileSync(join(root, 'native-shim/spec/records.json'), 'utf8')) as RecordsSpec;
const api = JSON.parse(readFileSync(join(root, 'native-shim/spec/mpi-api.json'), 'utf8')) as ApiSpec;

/** Generates the header, compiles and runs the probe; returns what the C compiler says, as name → number. */
function probe(): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'msc-layout-'));
  try {
    execFileSync(process.execPath, [join(root, 'native-shim/gen/generate.mjs'), dir]);
    const lines: string[] = [];
    for (const [layout, fields] of [
      ['head', records.head],
      ['ext', records.ext],
    ] as const) {
      const t = `msc_record_${layout}`;
      lines.push(`printf("${layout}.size %zu\\n", sizeof(${t}));`);
      for (const f of fields) {
        lines.push(`printf("${layout}.${f.name}.offset %zu\\n", offsetof(${t}, ${f.name}));`);
        lines.push(`printf("${layout}.${f.name}.size %zu\\n", sizeof(((${t} *)0)->${f.name}));`);
      }
    }
    for (const k of Object.keys(records.kinds)) lines.push(`printf("kind.${k} %d\\n", MSC_KIND_${k});`);
    lines.push('printf("functions %d\\n", MSC_FN_COUNT);', 'printf("basicTypes %d\\n", MSC_BT_COUNT);');
    lines.push('printf("ops %d\\n", MSC_OPID_COUNT);', 'printf("checks %d\\n", MSC_CHECK_COUNT);');
    const last = api.functions.length - 1;
    lines.push(`printf("lastFunction %d\\n", MSC_FN_${api.functions[last]!.name});`);
    const src = `#include <stdio.h>\n#include "msc_records.h"\nint main(void) {\n${lines.join('\n')}\nreturn 0;\n}\n`;
    writeFileSync(join(dir, 'probe.c'), src);
    const exe = join(dir, 'probe');
    execFileSync('cc', ['-std=c11', '-Wall', '-Werror', '-I', dir, '-o', exe, join(dir, 'probe.c')]);
    const out = execFileSync(exe, { encoding: 'utf8' });
    return new Map(
      out
        .trim()
        .split('\n')
        .map((l) => {
          const [k, v] = l.split(' ');
          return [k!, Number(v)] as const;
        }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const c = probe();

test('head and ext records are recordSize bytes in C', () => {
  assert.equal(c.get('head.size'), records.recordSize);
  assert.equal(c.get('ext.size'), records.recordSize);
});

for (const layout of ['head', 'ext'] as const) {
  test(`every ${layout} field has the offset and size records.json gives`, () => {
    for (const f of records[layout]) {
      assert.equal(c.get(`${layout}.${f.name}.offset`), f.offset, `${layout}.${f.name} offset`);
      assert.equal(
        c.get(`${layout}.${f.name}.size`),
        SIZES[f.type] * (f.count ?? 1),
        `${layout}.${f.name} size`,
      );
    }
  });
}

test('kind ids in C are the ids of records.json', () => {
  for (const [name, k] of Object.entries(records.kinds)) assert.equal(c.get(`kind.${name}`), k.id, name);
});

test('function, basic type, op and check ids cover mpi-api.json in order', () => {
  assert.equal(c.get('functions'), api.functions.length);
  assert.equal(c.get('lastFunction'), api.functions.length - 1);
  assert.equal(c.get('basicTypes'), api.basicTypes.length);
  assert.equal(c.get('ops'), api.ops.length);
  assert.equal(c.get('checks'), api.checks.length);
});

test('mpi-api.json keeps one function per line and unique names', () => {
  const text = readFileSync(join(root, 'native-shim/spec/mpi-api.json'), 'utf8');
  const lines = text.split('\n').filter((l) => l.includes('"name": "MPI_'));
  assert.equal(lines.length, api.functions.length);
  assert.equal(new Set(api.functions.map((f) => f.name)).size, api.functions.length);
});
