/**
 * Replaying a race the other way (issue 11 §1), the parts without MPI: the race finding's replay handle (which
 * wildcard receive, counted as the shim counts), the outcome the recorded calls decide, the id's parsing, the
 * classification of a replay run, and the code actions on the diagnostic.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findingsOf } from './engine-check';
import { ANY, FLOAT, Job } from './engine-dsl';
import { parseRaceId, replayOutcome } from '../../server/src/session/replay-race';
import type { Finding, SessionResult } from '../../server/src/session/session-api';
import { UsageError } from '../../server/src/session/session-api';
import { raceActions } from '../../server/src/lsp/race-actions';
import { findingDiagnostics } from '../../server/src/lsp/finding-diagnostics';
import { REPLAY_RACE_COMMAND } from '../../server/src/lsp/protocol';

function raceOf(job: Job) {
  const races = findingsOf(job, 1).filter((f) => f.kind === 'message-race');
  assert.equal(races.length, 1, JSON.stringify(races));
  return races[0]!;
}

test('the race names its receive by rank and wildcard number, counting the wildcard receives before it', () => {
  const job = new Job(3);
  const [r0, r1, r2] = job.ranks;
  // Two ordered wildcard receives first (rank 1 only sends after rank 0 answers), then the race.
  r0?.recv(ANY, { got: [1, 0] }).send(1, { tag: 1 });
  r0?.recv(ANY, { got: [1, 0] });
  r1?.send(0).recv(0, { tag: 1 }).send(0);
  r0?.recv(ANY, { tag: 5, got: [1, 5] });
  r0?.recv(2, { tag: 5 });
  r1?.send(0, { tag: 5 });
  r2?.send(0, { tag: 5 });
  for (const r of job.ranks) r.finalize();
  const race = raceOf(job);
  assert.deepEqual(
    { id: race.race?.id, wildcard: race.race?.wildcard, took: race.race?.took, alt: race.race?.alternatives },
    { id: '0.3.2', wildcard: 3, took: 1, alt: [2] },
  );
  assert.equal(race.race?.predicted, undefined, 'same length and type: only a rerun can tell');
  assert.match(race.message, /--replay-race 0\.3\.2/);
});

test('a rival longer than the receive buffer is predicted to truncate, a different type to mismatch', () => {
  const job = new Job(4);
  const [r0, r1, r2, r3] = job.ranks;
  r0?.recv(ANY, { got: [1, 0] });
  r0?.recv(ANY, { count: 4, got: [2, 0] });
  r0?.recv(ANY, { got: [3, 0] });
  r1?.send(0);
  r2?.send(0, { count: 4 });
  r3?.send(0, { type: FLOAT });
  for (const r of job.ranks) r.finalize();
  const race = raceOf(job);
  assert.deepEqual(race.race?.alternatives, [2, 3]);
  const predicted = new Map((race.race?.predicted ?? []).map((p) => [p.sender, p.outcome]));
  assert.match(predicted.get(2) ?? '', /^truncation: its 16 bytes exceed the 4/);
  assert.match(predicted.get(3) ?? '', /^type mismatch: MPI_FLOAT sent, MPI_INT received/);
  assert.match(race.message, /decided by the recorded calls: truncation/);
});

test('race ids: the sender from the id or --sender, one clear line otherwise', () => {
  assert.deepEqual(parseRaceId('1.3.2'), { rank: 1, wildcard: 3, sender: 2 });
  assert.deepEqual(parseRaceId('1.3.2', '0'), { rank: 1, wildcard: 3, sender: 0 });
  assert.deepEqual(parseRaceId('1.3', '0'), { rank: 1, wildcard: 3, sender: 0 });
  assert.throws(
    () => parseRaceId('1.3'),
    (e: unknown) => e instanceof UsageError && /--sender R/.test(e.message),
  );
  assert.throws(() => parseRaceId('race-1'), /give the race's id as its finding shows it/);
  assert.throws(() => parseRaceId('1.0.2'), /counted from 1/);
  assert.throws(() => parseRaceId('1.3.1'), /another rank than the receiving rank 1/);
  assert.throws(() => parseRaceId('1.3', 'x'), /--sender must be a world rank/);
});

const target = { rank: 0, wildcard: 1, sender: 2 };
const forced: Finding = {
  kind: 'message-race',
  severity: 'note',
  message: 'Replayed the other way',
  locations: [],
  race: { id: '0.1.2', rank: 0, wildcard: 1, took: 2, alternatives: [], forced: true },
};
const result = (findings: Finding[], extra: Partial<SessionResult> = {}): SessionResult => ({
  findings,
  ranks: 3,
  exitCode: 0,
  outcome: 'completed',
  ...extra,
});
const finding = (kind: Finding['kind']): Finding => ({
  kind,
  severity: 'error',
  message: `a ${kind}`,
  locations: [{ rank: 0, file: '/src/app.c', line: 9, function: 'main', call: 'MPI_Recv', detail: '' }],
});

test('a replay run is classified: not reached, deadlock, mismatch, different exit, same result', () => {
  assert.equal(replayOutcome(target, result([finding('deadlock')])).outcome, 'not-reached');
  const dead = replayOutcome(
    target,
    result([forced, finding('deadlock')], { outcome: 'deadlock', exitCode: null }),
  );
  assert.equal(dead.outcome, 'deadlock');
  assert.match(dead.summary, /a deadlock \(\/src\/app\.c:9, rank 0\)/);
  assert.equal(replayOutcome(target, result([forced, finding('count-mismatch')])).outcome, 'mismatch');
  // A mismatch the original run had already is not the replay's doing.
  assert.equal(
    replayOutcome(target, result([forced, finding('count-mismatch')]), {
      exitCode: 0,
      kinds: ['count-mismatch'],
    }).outcome,
    'same-result',
  );
  assert.equal(
    replayOutcome(target, result([forced], { exitCode: 3, outcome: 'failed' })).outcome,
    'different-exit',
  );
  assert.equal(replayOutcome(target, result([forced])).outcome, 'same-result');
});

test('the code action replays each alternative sender, with the prediction in its title', () => {
  const race: Finding = {
    ...finding('message-race'),
    severity: 'warning',
    race: {
      id: '0.1.2',
      rank: 0,
      wildcard: 1,
      took: 1,
      alternatives: [2, 3],
      predicted: [{ sender: 3, outcome: 'truncation: its 16 bytes exceed the 4 the receive holds' }],
    },
  };
  const diagnostics = findingDiagnostics(race, { docsBase: 'x', lineText: () => undefined }).map(
    (d) => d.diagnostic,
  );
  const actions = raceActions(diagnostics);
  assert.deepEqual(
    actions.map((a) => [a.title, a.command?.command, a.command?.arguments]),
    [
      ["Replay with the other message (rank 2's)", REPLAY_RACE_COMMAND, [{ id: '0.1.2', sender: 2 }]],
      [
        "Replay with the other message (rank 3's) — predicted: truncation",
        REPLAY_RACE_COMMAND,
        [{ id: '0.1.2', sender: 3 }],
      ],
    ],
  );
  // Other diagnostics, and the note of a replay run itself, offer nothing.
  const others = [finding('deadlock'), forced].flatMap((f) =>
    findingDiagnostics(
      { ...f, locations: finding('deadlock').locations },
      { docsBase: 'x', lineText: () => undefined },
    ),
  );
  assert.deepEqual(raceActions(others.map((d) => d.diagnostic)), []);
});
