import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticJob } from './synthetic-job';
import { TimelineModel } from './timeline-model';
import { FindingPlaces } from './trace-timeline';

describe('the findings of a trace, placed after its timeline was drawn (FindingPlaces)', () => {
  it('sit where a one-pass replay placed them: on the open call of each rank, else its last one', () => {
    const ranks = 4;
    const job = syntheticJob({ ranks, iterations: 40, deadlock: true });
    // One pass, as the trace editor did before: the model's own places at each moment a finding is found.
    const live = new TimelineModel(ranks, 'halo');
    const places = new FindingPlaces();
    const expected: number[][] = [];
    // The first moment comes after every rank's CLOCK, so both models start at the same origin.
    const chunks = [job.events.slice(0, 600)];
    for (let at = 600; at < job.events.length; at += 97) chunks.push(job.events.slice(at, at + 97));
    chunks.forEach((chunk, i) => {
      for (const e of chunk) live.push(e);
      places.events(chunk, i + 1);
      expected.push(live.findingTimes());
    });
    // Two passes: the timeline drawn from every event first, the places turned into its job time after.
    const drawn = new TimelineModel(ranks, 'halo');
    for (const e of job.events) drawn.push(e);
    drawn.finish();
    expected.forEach((want, i) => assert.deepEqual(places.jobTimes(i, drawn), want, `finding ${i}`));
    const distinct = new Set(expected.map((w) => w.join(',')));
    assert.ok(distinct.size > 10, `the ranks moved between findings (${distinct.size} distinct places)`);
  });

  it('marks the job ended once the trace is read whole, though a rank never said END', () => {
    const job = syntheticJob({ ranks: 2, iterations: 3 });
    const model = new TimelineModel(2, 'halo');
    for (const e of job.events) if (e.type !== 'end') model.push(e);
    assert.equal(model.takeBatch()?.ended, false, 'a live job without END records is still running');
    model.finish();
    assert.equal(model.takeBatch()?.ended, true);
  });

  it('leaves a rank with no call yet to the model (placed at the end)', () => {
    const places = new FindingPlaces();
    const job = syntheticJob({ ranks: 2, iterations: 2 });
    places.events(
      job.events.filter((e) => e.rank === 0),
      1,
    );
    const model = new TimelineModel(2, 'halo');
    for (const e of job.events) model.push(e);
    const at = places.jobTimes(0, model);
    assert.equal(typeof at?.[0], 'number');
    assert.equal(at?.[1], undefined);
  });
});
