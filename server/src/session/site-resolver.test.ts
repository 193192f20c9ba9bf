import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAddr2line } from './site-resolver';

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
