import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { parseRankText } from './held-ack';
import { elfBuildId, sameModuleHere } from './module-identity';
import { SiteResolver } from './site-resolver';

test("a file's GNU build ID is read as readelf shows it; it decides whether a rank's module is the file here", () => {
  const exe = process.execPath;
  const notes = execFileSync('readelf', ['-n', exe], { encoding: 'utf8' });
  const shown = /Build ID: ([0-9a-f]+)/.exec(notes)?.[1] ?? '';
  assert.equal(elfBuildId(readFileSync(exe)), shown);
  assert.equal(elfBuildId(Buffer.from('#!/bin/sh\n')), '');
  const st = statSync(exe);
  const mtime = Math.floor(st.mtimeMs / 1000);
  if (shown !== '') {
    assert.equal(sameModuleHere({ path: exe, buildId: shown, size: 1, mtime: 1 }), true);
    assert.equal(sameModuleHere({ path: exe, buildId: '00'.repeat(20), size: st.size, mtime }), false);
  }
  // Without a build ID on the rank's side: size and modification time.
  assert.equal(sameModuleHere({ path: exe, buildId: '', size: st.size, mtime }), true);
  assert.equal(sameModuleHere({ path: exe, buildId: '', size: st.size + 1, mtime }), false);
  assert.equal(sameModuleHere({ path: '/no/such/module', buildId: shown, size: 1, mtime: 1 }), false);
});

test("module and sites messages are validated; a rank's own answers resolve its sites", async () => {
  assert.deepEqual(parseRankText('{"type":"module","path":"/a","buildId":"ab12","size":10,"mtime":5}'), {
    type: 'module',
    module: { path: '/a', buildId: 'ab12', size: 10, mtime: 5 },
  });
  assert.match(
    parseRankText('{"type":"module","path":"/a","buildId":"xyz","size":1,"mtime":1}') as string,
    /hex/,
  );
  const sites = parseRankText('{"type":"sites","module":"/a","sites":[[4096,"main","s.c",7]]}');
  assert.deepEqual(sites, {
    type: 'sites',
    module: '/a',
    sites: [{ address: 4096, function: 'main', file: 's.c', line: 7 }],
  });
  assert.match(parseRankText('{"type":"sites","module":"/a","sites":[[1,"f","x",-1]]}') as string, /line/);

  const r = new SiteResolver('/work');
  const key = { module: '/a', offset: 16, address: 4096, byRank: 1 };
  const waiting = r.resolve([key], 5000);
  r.answer(key, { function: 'main', file: 's.c', line: 7 });
  await waiting;
  assert.deepEqual(r.lookup(key), { function: 'main', file: '/work/s.c', line: 7 });
  // The same path in another rank is another file: not answered by rank 1's answer.
  assert.deepEqual(r.lookup({ ...key, byRank: 2 }), { function: '', file: '', line: 0 });
  await r.resolve([{ ...key, byRank: 2 }], 10); // gives up after the wait, never rejects
});
