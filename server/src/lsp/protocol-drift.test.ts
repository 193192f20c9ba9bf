import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';

/** The repository root: the nearest folder above this (bundled) test that holds the protocol file. */
function repoRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'server', 'src', 'lsp', 'protocol.ts'))) return dir;
  }
  throw new Error(`no repository above ${__dirname}`);
}

function protocolSection(path: string): string {
  const text = readFileSync(path, 'utf8');
  const begin = text.indexOf('// protocol:begin');
  const end = text.indexOf('// protocol:end');
  assert.ok(begin >= 0 && end > begin, `${path} lacks the protocol:begin/protocol:end markers`);
  return text.slice(begin, end);
}

describe('custom LSP protocol', () => {
  it('is the same on the server (protocol.ts) and the client (lsp-ext.ts)', () => {
    const root = repoRoot();
    const server = protocolSection(join(root, 'server', 'src', 'lsp', 'protocol.ts'));
    const client = protocolSection(join(root, 'extension', 'src', 'lsp-ext.ts'));
    assert.equal(client, server, 'copy the section between the markers from server/src/lsp/protocol.ts');
    assert.match(server, /'mpiscope\/run'/, 'the section holds the messages');
  });
});
