/** The shim's own checks become findings of the right kind, with the numbers the shim measured. */
import { test } from 'node:test';
import { functionNamed } from '../../server/src/protocol/spec';
import { check } from './engine-check';
import { INT, Job, type Rank } from './engine-dsl';

test('bsend-buffer-too-small is an invalid-argument at the Bsend, with the bytes needed and attached', () => {
  for (const [have, says] of [
    [192, 'but only 192 bytes are attached'],
    [0, 'but no buffer is attached'],
  ] as const) {
    const job = new Job(2);
    const [r0, r1] = job.ranks as [Rank, Rank];
    const fn = functionNamed('MPI_Bsend');
    const seq = r0.call(
      'MPI_Bsend',
      { buf: 0x9000, count: 100, datatype: INT, dest: 1, tag: 0, comm: r0.handle('world') },
      { hang: true, site: 0xb5 },
    );
    r0.events.push(
      {
        type: 'shim-finding',
        rank: 0,
        seq,
        time: 1e6,
        fn,
        site: 0xb5,
        check: 'bsend-buffer-too-small',
        message: 'the buffered send needs more space',
        param: -1,
        values: [528, have, 400],
      },
      // MPICH fails the call: it sends nothing, so nothing is unmatched.
      { type: 'exit', rank: 0, seq, time: 1e6 + 1, fn, returnCode: 15, outputs: { flag: 0 } },
    );
    r0.finalize();
    r1.finalize();
    check(job, [
      {
        kind: 'invalid-argument',
        ranks: [0],
        message: ["Rank 0's MPI_Bsend needs 528 bytes of buffer space", says],
        details: [
          have > 0 ? 'MPI_Bsend needs 528 bytes, 192 attached' : 'MPI_Bsend needs 528 bytes, none attached',
        ],
      },
    ]);
  }
});
