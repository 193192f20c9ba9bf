import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaggedLines, untag } from './rank-tags';

describe('rank tags', () => {
  it('read the rank of Open MPI and MPICH tagged lines (as printed by mpirun 4.1 and Hydra 4.0)', () => {
    assert.deepEqual(untag('[1,3]<stdout>:hello', 'openmpi'), { rank: 3, text: 'hello' });
    assert.deepEqual(untag('[1,0]<stderr>:[x] y', 'openmpi'), { rank: 0, text: '[x] y' });
    assert.deepEqual(untag('[12] hello', 'mpich'), { rank: 12, text: 'hello' });
    assert.deepEqual(untag(' 3: hello: x', 'srun'), { rank: 3, text: 'hello: x' });
    assert.deepEqual(untag('mpirun noticed that…', 'openmpi'), {
      rank: undefined,
      text: 'mpirun noticed that…',
    });
  });

  it('emit whole lines per stream, with chunks cut anywhere', () => {
    const out: [string, string, number | undefined][] = [];
    const lines = new TaggedLines('mpich', (text, stream, rank) => out.push([text, stream, rank]));
    lines.write('[1] hel', 'stdout');
    lines.write('[0] err\n', 'stderr');
    lines.write('lo\n[0] x', 'stdout');
    lines.flush();
    assert.deepEqual(out, [
      ['err\n', 'stderr', 0],
      ['hello\n', 'stdout', 1],
      ['x', 'stdout', 0],
    ]);
  });
});
