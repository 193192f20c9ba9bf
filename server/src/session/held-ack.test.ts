import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRankText } from './held-ack';

const frames = [
  [0x55550000_2000, 0x2000, 0],
  [0x7f0000001000, 0x1000, 1],
];
const modules = ['/work/app', '/lib/x86_64-linux-gnu/libc.so.6'];
const keys = [
  { module: '/work/app', offset: 0x2000, address: 0x55550000_2000 },
  { module: '/lib/x86_64-linux-gnu/libc.so.6', offset: 0x1000, address: 0x7f0000001000 },
];
const good = {
  type: 'paused',
  seq: 12,
  function: 'MPI_Recv',
  reason: 'breakpoint',
  continues: 2,
  site: 0x55550000_1234,
  frames,
  modules,
};

describe('text frames of a rank', () => {
  it('decodes a paused acknowledgement: the call, the reason and the frames with their modules', () => {
    assert.deepEqual(parseRankText(JSON.stringify(good)), {
      type: 'paused',
      ack: {
        seq: 12,
        function: 'MPI_Recv',
        reason: 'breakpoint',
        continues: 2,
        site: 0x55550000_1234,
        frames: keys,
      },
    });
  });

  it('accepts an acknowledgement without frames', () => {
    const { frames: _f, modules: _m, ...bare } = good;
    const parsed = parseRankText(JSON.stringify(bare));
    assert.ok(typeof parsed === 'object' && parsed.type === 'paused', JSON.stringify(parsed));
    assert.deepEqual(parsed.ack.frames, []);
  });

  it('decodes a backtrace answer and a refusal', () => {
    assert.deepEqual(parseRankText(JSON.stringify({ type: 'backtrace', site: 77, frames, modules })), {
      type: 'backtrace',
      reply: { site: 77, frames: keys },
    });
    assert.deepEqual(parseRankText('{"type":"backtrace","error":"the thread is not in an MPI call"}'), {
      type: 'backtrace',
      reply: { error: 'the thread is not in an MPI call' },
    });
  });

  it('names what is wrong with a bad one', () => {
    const bad: [object | string, RegExp][] = [
      ['{', /not JSON/],
      ['[1]', /not a JSON object/],
      [{ ...good, type: 'hello' }, /unknown control message type/],
      [{ ...good, seq: -1 }, /bad seq/],
      [{ ...good, continues: 1.5 }, /bad continues/],
      [{ ...good, function: 'main' }, /bad function/],
      [{ ...good, reason: 'why' }, /bad reason/],
      [{ ...good, frames: [[1, 2]] }, /bad frame/],
      [{ ...good, frames: [[1, 2, 5]] }, /module it does not list/],
      [{ ...good, modules: [3] }, /bad modules/],
      [{ type: 'backtrace', site: 'x' }, /backtrace has a bad site/],
      [{ type: 'backtrace', error: 4 }, /backtrace has a bad error/],
    ];
    for (const [input, reason] of bad) {
      const parsed = parseRankText(typeof input === 'string' ? input : JSON.stringify(input));
      assert.equal(typeof parsed, 'string', JSON.stringify(input));
      assert.match(parsed as string, reason);
    }
  });
});
