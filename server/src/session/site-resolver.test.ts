import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAddr2line, SiteResolver } from './site-resolver';

test('addr2line output: the innermost frame of each address, unknowns empty', () => {
  const out = [
    '0x0000000000001189',
    'main',
    '/src/ring.c:14',
    '0x00000000000011c0',
    'inlined_helper',
    '/src/util.h:7 (discriminator 2)',
    'main',
    '/src/ring.c:30',
    '0x0000000000000000',
    '??',
    '??:0',
    '',
  ].join('\n');
  assert.deepEqual(parseAddr2line(out), [
    { function: 'main', file: '/src/ring.c', line: 14 },
    { function: 'inlined_helper', file: '/src/util.h', line: 7 },
    { function: '', file: '', line: 0 },
  ]);
});

test('a site asked for while an addr2line already resolves it waits for that run instead of starting another', async () => {
  const runs: string[][] = [];
  let finish: (out: string) => void = () => undefined;
  const resolver = new SiteResolver('/job', (module, addrs) => {
    runs.push([module, ...addrs]);
    return new Promise<string>((done) => (finish = done));
  });
  const site = { module: '/job/app', offset: 0x1189, address: 0x55550000 + 0x1189 };
  const first = resolver.resolve([site]);
  const second = resolver.resolve([site, site]);
  assert.equal(runs.length, 1, 'one addr2line for the site');
  finish(['0x0000000000001188', 'main', 'ring.c:14', ''].join('\n'));
  await Promise.all([first, second]);
  assert.deepEqual(resolver.lookup(site), { function: 'main', file: '/job/ring.c', line: 14 });
  // Resolved: asking again runs nothing.
  await resolver.resolve([site]);
  assert.equal(runs.length, 1);
});
