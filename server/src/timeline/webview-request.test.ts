import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseWebviewRequest } from './webview-request';

function refusal(r: ReturnType<typeof parseWebviewRequest>): string {
  assert.equal(typeof r, 'string', `refused: ${JSON.stringify(r)}`);
  return r as string;
}

test('a crafted webview message cannot open a file outside the workspace', () => {
  const top = mkdtempSync(join(tmpdir(), 'webview-req-'));
  try {
    const ws = join(top, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src', 'app.c'), 'int main() {}\n');
    writeFileSync(join(top, 'secret'), 'key\n');
    symlinkSync(join(top, 'secret'), join(ws, 'src', 'link-out'));
    const folders = [ws];
    const reveal = (file: unknown, line: unknown = 3): ReturnType<typeof parseWebviewRequest> =>
      parseWebviewRequest({ type: 'reveal', file, line }, folders);

    assert.deepEqual(reveal(join(ws, 'src', 'app.c')), {
      type: 'reveal',
      file: join(ws, 'src', 'app.c'),
      line: 3,
    });
    assert.deepEqual(parseWebviewRequest({ type: 'ready' }, folders), { type: 'ready' });
    assert.deepEqual(parseWebviewRequest({ type: 'loaded' }, folders), { type: 'loaded' });
    assert.deepEqual(parseWebviewRequest({ type: 'block', offset: 0, bytes: 9 }, folders), {
      type: 'block',
      offset: 0,
      bytes: 9,
    });
    for (const bad of [
      { offset: -1, bytes: 9 },
      { offset: 1.5, bytes: 9 },
      { offset: '0', bytes: 9 },
      { offset: 0, bytes: 0 },
      { offset: 0, bytes: 2 ** 40 },
      { offset: 0 },
    ])
      assert.match(refusal(parseWebviewRequest({ type: 'block', ...bad }, folders)), /a block needs/);
    // Outside, by a plain path, by .. segments, and through a symbolic link inside the workspace.
    assert.match(refusal(reveal(join(top, 'secret'))), /outside the workspace/);
    assert.match(refusal(reveal(join(ws, 'src', '..', '..', 'secret'))), /outside the workspace/);
    assert.match(refusal(reveal(join(ws, 'src', 'link-out'))), /outside the workspace/);
    assert.match(refusal(reveal('/etc/passwd')), /outside the workspace/);
    // A folder whose name starts like the workspace's is not inside it.
    mkdirSync(`${ws}-other`);
    writeFileSync(`${ws}-other/x.c`, '');
    assert.match(refusal(reveal(`${ws}-other/x.c`)), /outside the workspace/);
    // No workspace: nothing opens.
    assert.match(
      refusal(parseWebviewRequest({ type: 'reveal', file: join(ws, 'src', 'app.c'), line: 1 }, [])),
      /outside/,
    );
    // Malformed messages.
    assert.equal(typeof reveal('src/app.c'), 'string', 'a relative path');
    assert.equal(typeof reveal(join(ws, 'src', 'app.c'), 0), 'string', 'line 0');
    assert.equal(typeof reveal(join(ws, 'src', 'app.c'), 1.5), 'string', 'a fractional line');
    assert.equal(typeof reveal(join(ws, 'src', 'app.c'), '3'), 'string', 'a line as a string');
    assert.equal(typeof reveal(`${join(ws, 'src', 'app.c')}\0.txt`), 'string', 'a NUL in the path');
    assert.equal(typeof reveal(42), 'string', 'a number as the path');
    assert.equal(typeof parseWebviewRequest({ type: 'run', cmd: 'rm -rf /' }, folders), 'string');
    assert.equal(typeof parseWebviewRequest(null, folders), 'string');
    assert.equal(typeof parseWebviewRequest([], folders), 'string');
    assert.equal(typeof parseWebviewRequest('reveal', folders), 'string');
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});
