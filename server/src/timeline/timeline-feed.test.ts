import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from './synthetic-job';
import { TimelineFeed } from './timeline-feed';
import type { TimelineMessage } from './timeline-protocol';

/** A hand-driven timer: the test decides when the feed's coalescing interval has passed. */
function manualTimer() {
  const pending: (() => void)[] = [];
  return {
    schedule: (fn: () => void) => {
      pending.push(fn);
      return { cancel: () => pending.splice(pending.indexOf(fn) >>> 0, 1) };
    },
    fire: () => pending.splice(0).forEach((fn) => fn()),
    get count() {
      return pending.length;
    },
  };
}

describe('TimelineFeed', () => {
  it('sends a reset, then coalesced batches when the interval passes, with call sites resolved later', async () => {
    const sent: TimelineMessage[] = [];
    const timer = manualTimer();
    const job = syntheticJob({ ranks: 3, iterations: 2, deadlock: true });
    const feed = new TimelineFeed({
      ranks: 3,
      program: '/tmp/halo',
      send: (m) => sent.push(m),
      schedule: timer.schedule,
      resolveSite: (_rank, address) =>
        Promise.resolve({
          file: '/home/user/halo/halo.c',
          line: job.lines.get(address) ?? 0,
          function: 'main',
        }),
    });
    assert.deepEqual(sent, [{ type: 'reset', ranks: 3, program: '/tmp/halo' }]);
    for (const e of job.events) feed.push(e);
    assert.equal(timer.count, 1, 'one flush scheduled for many events');
    assert.equal(sent.length, 1);
    timer.fire();
    assert.equal(sent.length, 2);
    const first = sent[1];
    assert.ok(first?.type === 'data');
    assert.ok(first.spans.rank.length > 0);
    assert.ok(first.sites.every((s) => s.file === ''));
    await feed.settled();
    timer.fire();
    const second = sent[2];
    assert.ok(second?.type === 'data');
    assert.ok(second.sites.length > 0);
    assert.ok(second.sites.every((s) => s.file.endsWith('halo.c') && s.line > 0));
    feed.finding(job.findings[0] ?? assert.fail('no finding'));
    feed.flush();
    const third = sent[3];
    assert.ok(third?.type === 'data');
    assert.equal(third.findings[0]?.kind, 'deadlock');
    feed.dispose();
    feed.push(job.events[0] ?? assert.fail());
    assert.equal(timer.count, 0);
  });
});
