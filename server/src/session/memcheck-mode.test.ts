import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memcheckMode, runtimeIn } from './memcheck-mode';

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

test('the memcheck mode decided from the ldd output the launch plan already has (no second ldd)', async () => {
  // A program path that does not exist: were ldd run here, it would fail and the mode would be off.
  const program = '/nonexistent/mpiscope-test-program';
  const found = '\tlibmpiscope-mcrt.so => /repo/native-shim/build/mcrt/libmpiscope-mcrt.so (0x00007f)\n';
  assert.equal(await memcheckMode(program, undefined, found), true);
  assert.equal(
    await memcheckMode(program, undefined, '\tlibmpi.so.40 => /usr/lib/libmpi.so.40 (0x1)\n'),
    false,
  );
  await assert.rejects(
    memcheckMode(program, undefined, '\tlibmpiscope-mcrt.so => not found\n'),
    /is not found/,
  );
  await assert.rejects(memcheckMode(program, true, '\tlibc.so.6 => /lib/libc.so.6\n'), /--memcheck needs/);
});
