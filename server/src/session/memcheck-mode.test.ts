import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runtimeIn } from './memcheck-mode';

test('the memcheck runtime in ldd output: found, missing, or not needed', () => {
  assert.equal(
    runtimeIn(
      '\tlibmpiscope-mcrt.so => /repo/native-shim/build/mcrt/libmpiscope-mcrt.so (0x00007f)\n\tlibmpi.so.40 => /usr/lib/libmpi.so.40 (0x1)\n',
    ),
    'found',
  );
  assert.equal(runtimeIn('\tlibmpiscope-mcrt.so => not found\n\tlibc.so.6 => /lib/libc.so.6\n'), 'missing');
  assert.equal(runtimeIn('\tlibmpi.so.40 => /usr/lib/libmpi.so.40 (0x1)\n'), 'absent');
});
