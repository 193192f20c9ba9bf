import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { FINDING_KINDS } from './report-file';

function repoRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'docs', 'findings'))) return dir;
  }
  throw new Error(`no docs/findings above ${__dirname}`);
}

describe('finding pages', () => {
  it('exist for every kind a diagnostic can link to, with meaning, example and fix', () => {
    const docs = join(repoRoot(), 'docs', 'findings');
    for (const kind of FINDING_KINDS) {
      const page = join(docs, `${kind}.md`);
      assert.ok(existsSync(page), `missing ${page}`);
      const text = readFileSync(page, 'utf8');
      assert.match(text, new RegExp(`^# ${kind}\\n`), `${kind}.md starts with its title`);
      for (const part of ['What it means', 'Example', 'How to fix'])
        assert.ok(text.includes(part), `${kind}.md: ${part}`);
    }
  });
});
