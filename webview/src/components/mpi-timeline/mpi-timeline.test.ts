import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from '../../../../server/src/timeline/synthetic-job';
import { TimelineModel } from '../../../../server/src/timeline/timeline-model';
import { TimelineStore } from '../../store/timeline-store';
import { timelineSummary } from './timeline-summary';

describe('mpi-timeline accessible summary', () => {
  it('says how many ranks, calls, messages and findings, and which ranks are deadlocked', () => {
    const job = syntheticJob({ ranks: 4, iterations: 3, deadlock: true });
    const model = new TimelineModel(4);
    for (const e of job.events) model.push(e);
    const store = new TimelineStore();
    store.apply(model.reset());
    store.apply(model.takeBatch());
    assert.match(timelineSummary(store), /^Timeline of 4 ranks over .*, 0 findings, 3 calls in progress\./);
    for (const f of job.findings) model.addFinding(f);
    store.apply(model.takeBatch());
    const text = timelineSummary(store);
    assert.match(text, /\d+ MPI calls, 24 messages, 1 finding, ranks 0, 1, 2 deadlocked\./);
  });
});
