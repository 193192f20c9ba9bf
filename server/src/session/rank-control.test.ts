import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HeldAck } from './held-ack';
import { RankControl, type ControlMessage } from './rank-control';

/** A control over `ranks` ranks of which `connected` are up; it records what each rank was sent. */
function setup(
  ranks: number,
  connected: readonly number[],
  initial: readonly string[] = [],
  judged: readonly string[] = [],
) {
  const sent: [number, ControlMessage][] = [];
  const up = new Set(connected);
  const control = new RankControl(
    ranks,
    (rank, message) => {
      if (!up.has(rank)) return false;
      sent.push([rank, message]);
      return true;
    },
    initial,
    judged,
  );
  const connect = (rank: number): void => {
    up.add(rank);
    control.connected(rank);
  };
  return { control, sent, connect };
}

function ack(reason: HeldAck['reason'], continues: number, seq = 5): HeldAck {
  return { seq, function: 'MPI_Barrier', reason, continues, site: 0x40, frames: [] };
}

describe('rank control', () => {
  it('holds every rank when one reaches a breakpoint', () => {
    const { control, sent } = setup(3, [0, 1, 2]);
    assert.ok(control.acknowledged(1, ack('breakpoint', 0)));
    assert.equal(control.isPaused, true);
    assert.deepEqual(sent, [
      [0, { type: 'pause' }],
      [1, { type: 'pause' }],
      [2, { type: 'pause' }],
    ]);
    assert.equal(control.heldAt(1)?.seq, 5);
    sent.length = 0;
    assert.ok(control.acknowledged(0, ack('breakpoint', 0)), 'a second rank at a breakpoint is news too');
    assert.deepEqual(sent, [], 'but the job is already paused');
  });

  it('holds only the hitting rank at a judged breakpoint, until released or paused', () => {
    const { control, sent } = setup(3, [0, 1, 2], ['MPI_Barrier', 'MPI_Recv'], ['MPI_Barrier']);
    assert.ok(control.acknowledged(1, ack('breakpoint', 0)));
    assert.equal(control.isPaused, false, 'the others run on while the hit is judged');
    assert.deepEqual(sent, []);
    assert.equal(control.heldAt(1)?.seq, 5);
    control.release(1);
    assert.deepEqual(sent, [[1, { type: 'continue' }]], 'only the hitting rank is released');
    assert.equal(control.heldAt(1), undefined);
    assert.equal(
      control.acknowledged(1, ack('breakpoint', 0, 6)),
      undefined,
      'an ack from before it is stale',
    );
    sent.length = 0;
    assert.ok(control.acknowledged(1, ack('breakpoint', 1, 7)));
    control.pause();
    assert.equal(control.isPaused, true, 'a hit that stops holds the job');
    sent.length = 0;
    // Set again without judging: a hit holds the job at once.
    control.breakOn(['MPI_Barrier']);
    control.resume();
    sent.length = 0;
    assert.ok(control.acknowledged(2, ack('breakpoint', 1)));
    assert.equal(control.isPaused, true);
  });

  it('gives a late rank the breakpoints and the pause', () => {
    const { control, sent, connect } = setup(2, [0], ['MPI_Bcast']);
    control.pause();
    sent.length = 0;
    connect(1);
    assert.deepEqual(sent, [
      [1, { type: 'breakpoints', functions: ['MPI_Bcast'] }],
      [1, { type: 'pause' }],
    ]);
  });

  it('drops an acknowledgement that crossed a continue, and forgets held ranks on resume', () => {
    const { control } = setup(2, [0, 1]);
    control.pause();
    assert.ok(control.acknowledged(0, ack('pause', 0)));
    control.resume();
    assert.equal(control.heldAt(0), undefined);
    assert.equal(control.acknowledged(1, ack('pause', 0)), undefined, 'rank 1 was released by the continue');
    assert.equal(control.acknowledged(1, ack('breakpoint', 0)), undefined);
    assert.equal(control.isPaused, false, 'a stale breakpoint does not pause the job');
    assert.ok(control.acknowledged(1, ack('breakpoint', 1, 9)), 'after the continue, a new hit counts');
  });

  it('counts continues per rank: a rank that was not connected saw none', () => {
    const { control, connect } = setup(2, [0]);
    control.resume();
    connect(1);
    assert.ok(control.acknowledged(1, ack('breakpoint', 0)));
    assert.equal(control.acknowledged(0, ack('breakpoint', 0)), undefined);
  });

  it('forgets a rank that closed', () => {
    const { control } = setup(1, [0]);
    control.acknowledged(0, ack('breakpoint', 0));
    control.closed(0);
    assert.equal(control.heldAt(0), undefined);
  });
});
