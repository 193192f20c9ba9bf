// The ESLint rule mpiscope/no-import-cycle (scripts/eslint-rules/no-import-cycle.mjs): it finds a cycle made
// of type-only imports (the kind eslint-plugin-import-x's no-cycle skips), says nothing once the cycle is
// broken, and the engine has none.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

/** The repository root: the nearest ancestor with scripts/eslint-rules (tests run from dist/test/unit). */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'scripts', 'eslint-rules', 'no-import-cycle.mjs'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('scripts/eslint-rules not found above ' + __dirname);
    dir = up;
  }
  return dir;
}
const root = repoRoot();

interface LintMessage {
  readonly ruleId: string | null;
  readonly message: string;
}
interface LinterLike {
  verify(code: string, config: unknown[], options: { filename: string }): LintMessage[];
}

/** Lints `files` (absolute paths) with only the cycle rule, rooted at `folder`; the messages per file. */
async function lint(folder: string, files: readonly string[]): Promise<Map<string, string[]>> {
  // Loaded at run time from the repository (not bundled): the rule is an ES module beside the ESLint config.
  const load = (spec: string): Promise<unknown> => import(spec);
  const { Linter } = (await load(pathToFileURL(join(root, 'node_modules/eslint/lib/api.js')).href)) as {
    Linter: new (o: { cwd: string }) => LinterLike;
  };
  const tseslint = (await load(
    pathToFileURL(join(root, 'node_modules/typescript-eslint/dist/index.js')).href,
  )) as {
    default?: { parser: unknown };
    parser?: unknown;
  };
  const parser = tseslint.parser ?? tseslint.default?.parser;
  const plugin = (
    (await load(pathToFileURL(join(root, 'scripts/eslint-rules/no-import-cycle.mjs')).href)) as {
      default: unknown;
    }
  ).default;
  const linter = new Linter({ cwd: '/' });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser },
      plugins: { mpiscope: plugin },
      rules: { 'mpiscope/no-import-cycle': ['error', { root: folder }] },
    },
  ];
  const out = new Map<string, string[]>();
  for (const f of files) {
    const messages = linter.verify(readFileSync(f, 'utf8'), config, { filename: f });
    out.set(
      f,
      messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`),
    );
  }
  return out;
}

test('a cycle of type-only imports is reported on both files, and nothing once it is broken', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-cycle-'));
  try {
    const a = join(dir, 'a.ts');
    const b = join(dir, 'b.ts');
    const c = join(dir, 'c.ts');
    writeFileSync(a, "import type { B } from './b';\nexport interface A { b: B }\n");
    writeFileSync(b, "import { c } from './c';\nexport interface B { n: number }\nexport const x = c;\n");
    writeFileSync(c, "import type { A } from './a';\nexport const c = (a: A): A => a;\n");
    let found = await lint(dir, [a, b, c]);
    for (const f of [a, b, c]) {
      const msgs = found.get(f) ?? [];
      assert.equal(msgs.length, 1, `${f}: ${msgs.join('; ')}`);
      assert.match(msgs[0] ?? '', /^mpiscope\/no-import-cycle: Import cycle: /);
    }
    assert.match(found.get(a)?.[0] ?? '', /a\.ts → b\.ts → c\.ts → a\.ts/);
    // Break it: c no longer reaches back to a.
    writeFileSync(c, 'export const c = (n: number): number => n;\n');
    // The rule caches by modification time; make sure the rewrite is seen as newer.
    const later = new Date(statSync(c).mtimeMs + 2000);
    const { utimesSync } = await import('node:fs');
    utimesSync(c, later, later);
    found = await lint(dir, [a, b, c]);
    for (const f of [a, b, c]) assert.deepEqual(found.get(f), [], f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the engine has no import cycle, type-only imports included', async () => {
  const engine = join(root, 'server/src/engine');
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  };
  walk(engine);
  assert.ok(files.length > 30, `only ${files.length} engine files found`);
  const found = await lint(engine, files);
  const cycles = [...found.values()].flat();
  assert.deepEqual(cycles, []);
});
