import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessagePairs, type RecvSide, type SendSide } from './message-pairs';

const send = (comm: number, src: number, dst: number, tag: number, time: number): SendSide => ({
  comm,
  src,
  dst,
  tag,
  time,
});
const recv = (comm: number, src: number, dst: number, tag: number, time: number): RecvSide => ({
  ...send(comm, src, dst, tag, time),
  bytes: 8,
});

describe('MessagePairs', () => {
  it('pairs the n-th receive of a channel with its n-th send, channels apart by communicator, ranks and tag', () => {
    const pairs: [number, number][] = [];
    const p = new MessagePairs((s, r) => pairs.push([s.time, r.time]));
    // Channels that differ in one coordinate each; one beyond the numeric key's range (communicator id 5000,
    // rank 3,000,000) and one with an unknown peer (-1).
    const channels = [
      [0, 1, 2, 7],
      [1, 1, 2, 7],
      [0, 2, 1, 7],
      [0, 1, 2, 8],
      [5000, 1, 2, 7],
      [0, 3_000_000, 2, 7],
      [0, -1, 2, 7],
    ] as const;
    channels.forEach(([c, s, d, t], k) => {
      p.send(send(c, s, d, t, 100 * k + 1));
      p.send(send(c, s, d, t, 100 * k + 2));
    });
    // Received in reverse channel order, the first one's receives first: each takes its own channel's sends.
    [...channels].reverse().forEach(([c, s, d, t], i) => {
      const k = channels.length - 1 - i;
      p.recv(recv(c, s, d, t, 100 * k + 51));
      p.recv(recv(c, s, d, t, 100 * k + 52));
    });
    const want = [...channels.keys()].reverse().flatMap((k) => [
      [100 * k + 1, 100 * k + 51],
      [100 * k + 2, 100 * k + 52],
    ]);
    assert.deepEqual(pairs, want);
    assert.equal(p.unmatchedSends, 0);
    // A receive first, then its send; a send left unmatched is counted, wherever its channel is kept.
    p.recv(recv(5000, 1, 2, 7, 900));
    p.send(send(5000, 1, 2, 7, 800));
    assert.deepEqual(pairs.at(-1), [800, 900]);
    p.send(send(5000, 1, 2, 9, 1000));
    p.send(send(0, 1, 2, 9, 1000));
    assert.equal(p.unmatchedSends, 2);
  });
});
