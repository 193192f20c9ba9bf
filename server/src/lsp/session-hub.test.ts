import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver';
import { FakeSession } from '../dap/testing/fake-session';
import type { Finding, SessionOptions } from '../session/session-api';
import { DiagnosticStore } from './diagnostic-store';
import { HoverIndex } from './hover-index';
import { SessionHub } from './session-hub';

const race: Finding = {
  kind: 'message-race',
  severity: 'warning',
  message:
    "Rank 0's MPI_Recv from any rank took the message of rank 1, but rank 2's MPI_Send could have arrived first.",
  race: { id: '0.1.2', rank: 0, wildcard: 1, took: 1, alternatives: [2] },
  locations: [{ rank: 0, file: '/w/race.c', line: 22, function: 'main', call: 'MPI_Recv', detail: '' }],
};

/** A hub over fake sessions, as the language server builds it for an F5 debug session. */
function hub(): { hub: SessionHub; sessions: FakeSession[]; published: Map<string, Diagnostic[]> } {
  const sessions: FakeSession[] = [];
  const published = new Map<string, Diagnostic[]>();
  const diagnostics = new DiagnosticStore((uri, list) => published.set(uri, list), {
    docsBase: 'file:///docs',
    lineText: () => undefined,
  });
  const h = new SessionHub(
    (options) => {
      const s = new FakeSession(options);
      sessions.push(s);
      return Promise.resolve(s);
    },
    diagnostics,
    new HoverIndex(),
    () => undefined,
  );
  return { hub: h, sessions, published };
}

describe('session hub: replaying a race', () => {
  it("reruns an F5 job without the debugger's keepAlive, breaks and trace, and adds the outcome to the race", async () => {
    const { hub: h, sessions, published } = hub();
    const f5: SessionOptions = {
      program: '/w/race',
      args: [],
      np: 3,
      keepAlive: true,
      breakOn: ['MPI_Recv'],
      traceFile: '/w/race.mpitrace',
    };
    await h.start(f5);
    const [first] = sessions;
    assert.ok(first);
    first.finding(race);
    first.end({ findings: [race], ranks: 3, exitCode: 0, outcome: 'completed' });

    const outcome = h.replayRace({ rank: 0, wildcard: 1, sender: 2 });
    // The session is created asynchronously: wait for it.
    while (sessions.length < 2) await new Promise((r) => setImmediate(r));
    // One more turn: the hub listens for the replay's end once the factory's promise has resolved.
    await new Promise((r) => setImmediate(r));
    const replay = sessions[1];
    assert.ok(replay);
    // A deadlocked replay left alive would never end: nobody is there to inspect or stop it.
    assert.equal(replay.options.keepAlive, undefined);
    assert.equal(replay.options.breakOn, undefined);
    assert.equal(replay.options.traceFile, undefined);
    assert.deepEqual(replay.options.replayRace, { rank: 0, wildcard: 1, sender: 2 });
    assert.equal(replay.options.program, '/w/race');
    assert.equal(replay.options.np, 3);

    const forced: Finding = { ...race, race: { ...race.race!, forced: true } };
    replay.end({ findings: [forced], ranks: 3, exitCode: null, outcome: 'deadlock' });
    const result = await outcome;
    assert.equal(result.outcome, 'deadlock');
    const shown = [...published.values()]
      .flat()
      .map((d) => (typeof d.message === 'string' ? d.message : d.message.value));
    assert.equal(shown.length, 1);
    assert.match(shown[0] ?? '', /took the message of rank 1.*Replayed with rank 2's message: deadlock\./);
  });
});

describe('session hub: a finding that gains ranks', () => {
  it('shows the ranks that came later at their lines, still as one finding', async () => {
    const { hub: h, sessions, published } = hub();
    await h.start({ program: '/w/app', args: [], np: 2 });
    const [s] = sessions;
    assert.ok(s);
    const at = (rank: number) => ({
      rank,
      file: '/w/app.c',
      line: 23,
      function: 'main',
      call: 'MPI_Send',
      detail: 'MPI_Send: count is negative',
    });
    const first: Finding = {
      kind: 'invalid-argument',
      severity: 'error',
      message: 'MPI_Send is called with an invalid argument: count is negative (count = -1).',
      locations: [at(0)],
    };
    s.finding(first);
    assert.equal([...published.values()].flat().length, 1);
    s.findingRanks({ ...first, locations: [at(0), at(1)] }, [at(1)]);
    // One diagnostic per location, as for any finding with several ranks; the count of findings is unchanged.
    assert.equal([...published.values()].flat().length, 2);
    assert.equal(h.status().findings, 1);
  });
});
