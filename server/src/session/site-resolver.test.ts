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

test('a name addr2line took from the symbols stands only inside that function; otherwise module and offset', async () => {
  // A stripped library: no file or line, and addr2line names the nearest exported function before each address.
  const resolver = new SiteResolver(
    '/job',
    (_module, addrs) =>
      Promise.resolve(
        addrs.map((a) => [a.replace('0x', '0x00000000'), 'exported_before', '??:0'].join('\n')).join('\n'),
      ),
    (_module, dynamic) =>
      Promise.resolve(
        dynamic
          ? [
              '0000000000001000 0000000000000100 T exported_before',
              '0000000000002000 0000000000000040 T other(int, char const*)',
              '0000000000003000 D not_a_function',
              '0000000000004000 w undefined_weak',
            ].join('\n')
          : '',
      ),
  );
  const inside = { module: '/usr/lib/libapp.so.7', offset: 0x1081, address: 0x7f0000001081 };
  const past = { module: '/usr/lib/libapp.so.7', offset: 0x1900, address: 0x7f0000001900 };
  const other = { module: '/usr/lib/libapp.so.7', offset: 0x2010, address: 0x7f0000002010 };
  await resolver.resolve([inside, past, other]);
  assert.equal(resolver.lookup(inside).function, 'exported_before');
  assert.equal(resolver.lookup(past).function, 'libapp.so.7+0x1900', 'past the end of exported_before');
  assert.equal(resolver.lookup(other).function, 'other(int, char const*)');
});

test('without nm (or a module it cannot read) addr2line names stand', async () => {
  const resolver = new SiteResolver(
    '/job',
    (_module, addrs) => Promise.resolve(addrs.map((a) => [a, 'nearest', '??:0'].join('\n')).join('\n')),
    () => Promise.resolve(''),
  );
  const site = { module: '/job/app', offset: 0x1900, address: 0x555500001900 };
  await resolver.resolve([site]);
  assert.equal(resolver.lookup(site).function, 'nearest');
});

test('a site addr2line knows nothing of is named by its module and address there', async () => {
  const resolver = new SiteResolver(
    '/job',
    (_module, addrs) => Promise.resolve(addrs.map((a) => [a, '??', '??:0'].join('\n')).join('\n')),
    () => Promise.resolve(''),
  );
  const site = { module: '/usr/bin/co_sum_test', offset: 0x4a1c, address: 0x555500004a1c };
  await resolver.resolve([site]);
  assert.deepEqual(resolver.lookup(site), { function: 'co_sum_test+0x4a1c', file: '', line: 0 });
});
