import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHeldAck } from './held-ack';

const good = {
  type: 'paused',
  seq: 12,
  function: 'MPI_Recv',
  reason: 'breakpoint',
  continues: 2,
  site: 0x55550000_1234,
  frames: [
    [0x55550000_2000, 0x2000, 0],
    [0x7f0000001000, 0x1000, 1],
  ],
  modules: ['/work/app', '/lib/x86_64-linux-gnu/libc.so.6'],
};

describe('paused acknowledgement', () => {
  it('decodes the call, the reason and the frames with their modules', () => {
    assert.deepEqual(parseHeldAck(JSON.stringify(good)), {
      seq: 12,
      function: 'MPI_Recv',
      reason: 'breakpoint',
      continues: 2,
      site: 0x55550000_1234,
      frames: [
        { module: '/work/app', offset: 0x2000, address: 0x55550000_2000 },
        { module: '/lib/x86_64-linux-gnu/libc.so.6', offset: 0x1000, address: 0x7f0000001000 },
      ],
    });
  });

  it('accepts an acknowledgement without frames', () => {
    const { frames: _f, modules: _m, ...bare } = good;
    const parsed = parseHeldAck(JSON.stringify(bare));
    assert.ok(typeof parsed !== 'string', parsed as string);
    assert.deepEqual(parsed.frames, []);
  });

  it('names what is wrong with a bad one', () => {
    const bad: [object | string, RegExp][] = [
      ['{', /not JSON/],
      [{ ...good, type: 'hello' }, /unknown control message type/],
      [{ ...good, seq: -1 }, /bad seq/],
      [{ ...good, continues: 1.5 }, /bad continues/],
      [{ ...good, function: 'main' }, /bad function/],
      [{ ...good, reason: 'why' }, /bad reason/],
      [{ ...good, frames: [[1, 2]] }, /bad frame/],
      [{ ...good, frames: [[1, 2, 5]] }, /module it does not list/],
      [{ ...good, modules: [3] }, /bad modules/],
    ];
    for (const [input, reason] of bad) {
      const parsed = parseHeldAck(typeof input === 'string' ? input : JSON.stringify(input));
      assert.equal(typeof parsed, 'string');
      assert.match(parsed as string, reason);
    }
  });
});
