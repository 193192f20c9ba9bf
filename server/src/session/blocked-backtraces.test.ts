import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlockedBacktraces } from './blocked-backtraces';

describe('blocked backtraces', () => {
  it('asks a rank once for concurrent requests, and keeps the answer until the rank moves on', async () => {
    const asked: number[] = [];
    const probes = new BlockedBacktraces((rank) => (asked.push(rank), true));
    const a = probes.request(1);
    const b = probes.request(1);
    probes.answered(1, { site: 5, frames: [] });
    assert.deepEqual(await a, { site: 5, frames: [] });
    assert.deepEqual(await b, { site: 5, frames: [] });
    await probes.request(1);
    assert.deepEqual(asked, [1], 'the kept answer serves the third request');
    probes.forget(1);
    const c = probes.request(1);
    probes.answered(1, { error: 'the thread is not in an MPI call' });
    assert.deepEqual(await c, { error: 'the thread is not in an MPI call' });
    assert.deepEqual(asked, [1, 1]);
  });

  it('answers with an error when the rank is not connected or never answers', async () => {
    const gone = new BlockedBacktraces(() => false);
    assert.deepEqual(await gone.request(0), { error: 'the rank is not connected' });
    const silent = new BlockedBacktraces(() => true, 10);
    assert.deepEqual(await silent.request(0), { error: 'the rank did not answer' });
  });
});
