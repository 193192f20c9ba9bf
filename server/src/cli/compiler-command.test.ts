import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memcheckFlags, mpiCompiler } from './compiler-command';
import { UsageError } from '../session/session-api';

test('memcheck flags: instrumentation, the runtime first on the library path, -g only when absent', () => {
  const f = memcheckFlags('cc', '/rt', ['-O2', 'a.c']);
  assert.ok(f.includes('-fsanitize=thread'));
  assert.deepEqual(f.slice(f.indexOf('--param'), f.indexOf('--param') + 2), [
    '--param',
    'tsan-instrument-func-entry-exit=0',
  ]);
  assert.ok(f.includes('-L/rt') && f.includes('-Wl,-rpath,/rt'));
  assert.ok(f.includes('-g'));
  assert.ok(f.includes('-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset'));
  assert.ok(!memcheckFlags('cc', '/rt', ['-g3', 'a.c']).includes('-g'));
  // -Wno-tsan is a C/C++ option: gfortran would warn about it.
  assert.ok(!memcheckFlags('fc', '/rt', []).includes('-Wno-tsan'));
});

test('an unknown MPISCOPE_MPI or a missing MPI compiler is one clear usage error', () => {
  assert.throws(() => mpiCompiler('cc', { MPISCOPE_MPI: 'intel', PATH: '/usr/bin' }), UsageError);
  assert.throws(
    () => mpiCompiler('fc', { PATH: '/nonexistent' }),
    (e: unknown) => e instanceof UsageError && /mpif90 is not on PATH/.test(e.message),
  );
});
