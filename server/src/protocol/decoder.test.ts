import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RankEvent } from '../engine/model/types';
import { DecodeError } from './decode-error';
import { RecordColumns } from './columns';
import { RankDecoder } from './decoder';
import {
  COMPLETE_EXIT_CANCELLED,
  COMPLETE_PACKED,
  ENTER_PACKED,
  functionNamed,
  KIND,
  RECORD_SIZE,
} from './spec';
import { encodeCall, encodeEvent, encodeEvents, frameOf } from './testing/encode';

const send = functionNamed('MPI_Send');
const waitall = functionNamed('MPI_Waitall');
const isend = functionNamed('MPI_Isend');
const bsend = functionNamed('MPI_Bsend');
const recv = functionNamed('MPI_Recv');
const mprobe = functionNamed('MPI_Mprobe');
const waitsome = functionNamed('MPI_Waitsome');
// Improbe's packed ENTER is two words: its comm, then source and tag.
const improbe = functionNamed('MPI_Improbe');

const events: RankEvent[] = [
  { type: 'clock', rank: 3, seq: 0, time: 5, realtime: 1_700_000_000_000_000_000 / 1000 },
  {
    type: 'comm',
    rank: 3,
    seq: 0,
    time: 6,
    comm: 0x44000000,
    size: 12,
    myRank: 3,
    parent: 0,
    creatorSeq: 0,
    isInter: false,
    members: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    remoteMembers: [],
  },
  {
    type: 'enter',
    rank: 3,
    seq: 1,
    time: 2 ** 40 + 7,
    fn: send,
    site: 0x7f12_3456_789a,
    args: { buf: 0x5555_0000_1000, count: 10, datatype: 0x4c00_0405, dest: -2, tag: -1, comm: 0x44000000 },
  },
  { type: 'exit', rank: 3, seq: 1, time: 2 ** 40 + 9, fn: send, returnCode: 0, outputs: { flag: 0 } },
  {
    type: 'enter',
    rank: 3,
    seq: 2,
    time: 11,
    fn: isend,
    site: 1,
    args: { buf: 8, count: 1, datatype: 2, dest: 1, tag: 7, comm: 3, request: 0 },
    otherThread: true,
  },
  {
    type: 'exit',
    rank: 3,
    seq: 2,
    time: 12,
    fn: isend,
    returnCode: 0,
    outputs: { request: 0xdead_beef, flag: 0 },
  },
  {
    type: 'enter',
    rank: 3,
    seq: 3,
    time: 13,
    fn: waitall,
    site: 2,
    args: { count: 9, array_of_requests: [1, 2, 3, 4, 5, 6, 7, 8, 9], array_of_statuses: 0 },
  },
  {
    type: 'complete',
    rank: 3,
    seq: 3,
    time: 14,
    fn: waitall,
    request: 5,
    source: 2,
    tag: 99,
    bytes: 4096,
    error: 0,
    cancelled: false,
  },
  // Format 2 merges a blocking call's COMPLETE with its EXIT (same stamp) into one COMPLETE_EXIT record.
  { type: 'exit', rank: 3, seq: 3, time: 14, fn: waitall, returnCode: 0, outputs: { flag: 0 } },
  {
    type: 'enter',
    rank: 3,
    seq: 7,
    time: 2 ** 41,
    fn: recv,
    site: 0x7f12_3456_789a,
    // Narrow values at their edges, wide ones above 2^32: the packed ENTER carries both exactly.
    args: {
      buf: 0x7fff_ffff_f000,
      count: 2 ** 31 - 1,
      datatype: 0x7f00_dead_beef,
      source: -1,
      tag: -(2 ** 31),
      comm: 2 ** 52,
      status: 0,
    },
  },
  {
    type: 'complete',
    rank: 3,
    seq: 7,
    time: 2 ** 41 + 5,
    fn: recv,
    request: 0,
    source: -2,
    tag: 2 ** 31 - 1,
    bytes: 2 ** 40,
    error: -1,
    cancelled: true,
  },
  { type: 'exit', rank: 3, seq: 7, time: 2 ** 41 + 5, fn: recv, returnCode: 17, outputs: { flag: 1 } },
  {
    type: 'enter',
    rank: 3,
    seq: 8,
    time: 30,
    fn: mprobe,
    site: 3,
    args: { source: 1, tag: 2, comm: 3, message: 0, status: 0 },
  },
  {
    type: 'complete',
    rank: 3,
    seq: 8,
    time: 31,
    fn: mprobe,
    request: 0,
    source: 1,
    tag: 2,
    bytes: 8,
    error: 0,
    cancelled: false,
  },
  // An EXIT of two words (the new message handle) still fits the merged record.
  {
    type: 'exit',
    rank: 3,
    seq: 8,
    time: 31,
    fn: mprobe,
    returnCode: 0,
    outputs: { message: 2 ** 45 + 3, flag: 0 },
  },
  {
    type: 'datatype',
    rank: 3,
    seq: 4,
    time: 15,
    datatype: 77,
    size: 24,
    lb: 0,
    extent: 32,
    trueLb: 0,
    trueExtent: 28,
    committed: true,
    signature: [
      [6, 2],
      [13, 2],
    ],
  },
  {
    type: 'datatype',
    rank: 3,
    seq: 4,
    time: 15,
    datatype: 78,
    size: 16,
    lb: 0,
    extent: 72,
    trueLb: 8,
    trueExtent: 40,
    committed: true,
    signature: [[13, 2]],
    layout: [
      [0, 8],
      [32, 8],
    ],
  },
  {
    type: 'site',
    rank: 3,
    seq: 4,
    time: 16,
    address: 0x4011aa,
    offset: 0x11aa,
    module: '/home/user/a long path/ring-ü',
  },
  { type: 'op', rank: 3, seq: 5, time: 17, op: 12, predefined: -1, commute: true },
  { type: 'bsend', rank: 3, seq: 5, time: 17, fn: bsend, bytes: 4096 + 128, packed: 4096 },
  { type: 'lost', rank: 3, seq: 5, time: 18, count: 3 },
  { type: 'end', rank: 3, seq: 6, time: 19, how: 'signal', code: 11, dropped: 0 },
];

test('decode(encode(events)) gives the events back', () => {
  const frame = frameOf(events.map((e) => encodeEvent(e)));
  assert.deepEqual(new RankDecoder(3).decode(frame), events);
});

test('format 2 packs and merges, and decodes to the rows format 1 gave', () => {
  const v1 = frameOf(events.map((e) => encodeEvent(e, 1)));
  const v2 = frameOf(encodeEvents(events));
  // Send, Recv and Isend ENTERs one record instead of two; three COMPLETE+EXIT
  // pairs one record instead of three.
  assert.equal(v1.length / RECORD_SIZE - v2.length / RECORD_SIZE, 3 + 3 * 2);
  const kinds = (f: Uint8Array): number[] =>
    Array.from({ length: f.length / RECORD_SIZE }, (_, r) => f[r * RECORD_SIZE] as number);
  assert.equal(kinds(v2).filter((k) => k === KIND.COMPLETE_EXIT).length, 3);
  assert.equal(
    kinds(v2).filter((k) => k === KIND.EXT).length,
    kinds(v1).filter((k) => k === KIND.EXT).length - 6,
  );
  const d1 = new RankDecoder(3).decode(v1);
  const d2 = new RankDecoder(3).decode(v2);
  assert.deepEqual(d1, events);
  assert.deepEqual(d2, events);
  // The same columns too (the engine reads rows, not events): flags without the packing bits.
  const rows = (f: Uint8Array): unknown[] => {
    const cols = new RecordColumns(8);
    new RankDecoder(3).decodeInto(f, cols);
    return Array.from({ length: cols.length }, (_, r) => [
      cols.kind[r],
      cols.flags[r],
      cols.seq[r],
      cols.time[r],
      cols.slice(r, 0, cols.wordCount[r] as number),
    ]);
  };
  assert.deepEqual(rows(v2), rows(v1));
});

test('a call split across two frames is reassembled', () => {
  let splitCalls = 0;
  for (const frame of [frameOf(events.map((e) => encodeEvent(e, 1))), frameOf(encodeEvents(events))])
    splitCalls += splitEverywhere(frame);
  assert.ok(splitCalls >= 8, 'the frames have calls of several records');
});

function splitEverywhere(frame: Uint8Array): number {
  const records = frame.length / RECORD_SIZE;
  let splitCalls = 0;
  for (let cut = 0; cut <= records; cut++) {
    const dec = new RankDecoder(3);
    // A DTYPE's length is open-ended, so the shim never splits one; a cut inside it must be reported (by
    // the first part, or by the second, which starts with an EXT record).
    let head = cut - 1;
    while (head > 0 && frame[head * RECORD_SIZE] === KIND.EXT) head--;
    const dtypeCut = frame[head * RECORD_SIZE] === KIND.DTYPE && frame[cut * RECORD_SIZE] === KIND.EXT;
    if (dtypeCut) {
      assert.throws(() => {
        dec.decode(frame.subarray(0, cut * RECORD_SIZE));
        dec.decode(frame.subarray(cut * RECORD_SIZE));
      }, DecodeError);
      continue;
    }
    const first = dec.decode(frame.subarray(0, cut * RECORD_SIZE));
    if (dec.pending) splitCalls++;
    assert.deepEqual([...first, ...dec.decode(frame.subarray(cut * RECORD_SIZE))], events, `cut at ${cut}`);
  }
  return splitCalls;
}

function rejects(frame: Uint8Array, reason: RegExp): void {
  assert.throws(
    () => new RankDecoder(0).decode(frame),
    (e: unknown) => e instanceof DecodeError && reason.test(e.message),
  );
}

test('bad frames are rejected with a reason', () => {
  rejects(new Uint8Array(65), /not a multiple of 64/);
  rejects(encodeCall({ kind: 99, seq: 1 }, []), /unknown record kind 99/);
  rejects(encodeCall({ kind: KIND.ENTER, func: 65000, seq: 1 }, []), /function id 65000 out of range/);
  rejects(encodeCall({ kind: KIND.EXT, seq: 1 }, []), /EXT record without a head/);
  // Waitall whose array length is negative.
  rejects(encodeCall({ kind: KIND.ENTER, func: waitall.id, seq: 1 }, [2, 0, -5]), /length -5/);
  // Waitall announcing 9 requests followed by another call: the ENTER was cut short.
  const cut = encodeCall({ kind: KIND.ENTER, func: waitall.id, seq: 1 }, [9, 0, 9, 1, 2]);
  rejects(frameOf([cut, encodeCall({ kind: KIND.LOST, seq: 2 }, [1])]), /cut short/);
  rejects(encodeCall({ kind: KIND.END, seq: 1 }, [7, 0, 0, 0]), /END how 7/);
  rejects(encodeCall({ kind: KIND.COMM, seq: 1 }, [1, 2, 5, 0, 0, 0, 0, 0, 1]), /my rank 5/);
  rejects(encodeCall({ kind: KIND.COMPLETE, func: send.id, seq: 1 }, [0, 0, 0, 0, 0, 2]), /cancelled flag/);
  rejects(encodeCall({ kind: KIND.COMPLETE, func: recv.id, seq: 1 }, [0, 0, 0, -2, 0, 0]), /byte count -2/);
  rejects(encodeCall({ kind: KIND.DTYPE, seq: 1 }, [1, 4, 0, 4, 0, 4, 1, 500, 1]), /basic type id 500/);
  // A layout whose signature length overruns the words, and one whose blocks go backwards.
  rejects(
    encodeCall({ kind: KIND.DTYPE, seq: 1, flags: 4 }, [1, 8, 0, 8, 0, 16, 1, 40, 13, 1]),
    /does not fit/,
  );
  rejects(
    encodeCall({ kind: KIND.DTYPE, seq: 1, flags: 4 }, [1, 8, 0, 8, 0, 16, 1, 2, 13, 2, 8, 4, 0, 4]),
    /out of order/,
  );
  rejects(encodeCall({ kind: KIND.FINDING, func: send.id, seq: 1 }, [1000, 0, 0, 0, 0]), /check id 1000/);
  rejects(encodeCall({ kind: KIND.BSEND, func: bsend.id, seq: 1 }, [100, 200]), /BSEND sizes 100, 200/);
  // An EXT whose seq is not its head's.
  const enter = encodeCall({ kind: KIND.ENTER, func: waitall.id, seq: 4 }, [3, 0, 3, 1, 2, 3]);
  new DataView(enter.buffer).setUint32(64 + 4, 5, true);
  rejects(enter, /EXT seq 5 differs/);
  // Format 2's one-record forms: a packed ENTER of a function that has none (Waitall has arrays) or with words
  // past its last, a packed COMPLETE with a fifth word, a COMPLETE_EXIT with unknown flags, of a call whose EXIT
  // needs indices, or with a second EXIT word its function has not; and an EXT after any of them.
  rejects(
    encodeCall({ kind: KIND.ENTER, func: waitall.id, seq: 1, flags: ENTER_PACKED }, [1]),
    /without a packed/,
  );
  rejects(
    encodeCall({ kind: KIND.ENTER, func: send.id, seq: 1, flags: ENTER_PACKED }, [1, 2, 3, 4, 5n << 32n]),
    /value above/,
  );
  rejects(
    encodeCall({ kind: KIND.ENTER, func: improbe.id, seq: 1, flags: ENTER_PACKED }, [1, 2, 3]),
    /word past/,
  );
  rejects(
    encodeCall({ kind: KIND.COMPLETE, func: send.id, seq: 1, flags: COMPLETE_PACKED }, [0, 0, 0, 0, 1]),
    /fifth/,
  );
  rejects(
    encodeCall({ kind: KIND.COMPLETE_EXIT, func: send.id, seq: 1, flags: 16 }, [0, 0, 0, 0, 0]),
    /unknown bits/,
  );
  rejects(
    encodeCall({ kind: KIND.COMPLETE_EXIT, func: waitsome.id, seq: 1 }, [0, 0, 0, 0, 2]),
    /needs indices/,
  );
  rejects(
    encodeCall({ kind: KIND.COMPLETE_EXIT, func: send.id, seq: 1 }, [0, 0, 0, 0, 9]),
    /second EXIT word/,
  );
  rejects(
    encodeCall(
      { kind: KIND.COMPLETE_EXIT, func: send.id, seq: 1, flags: COMPLETE_EXIT_CANCELLED },
      [0, 0, -2, 0, 0],
    ),
    /byte count -2/,
  );
  // -1 is the shim's "the status does not say" (MPI_UNDEFINED, or a status MPI left unset): no bad frame.
  assert.doesNotThrow(() =>
    new RankDecoder(0).decode(
      encodeCall({ kind: KIND.COMPLETE_EXIT, func: send.id, seq: 1 }, [0, 0, -1, 0, 0]),
    ),
  );
  const one = encodeCall(
    { kind: KIND.COMPLETE, func: send.id, seq: 1, flags: COMPLETE_PACKED },
    [0, 0, 0, 0],
  );
  rejects(frameOf([one, encodeCall({ kind: KIND.EXT, seq: 1 }, [])]), /EXT record without a head/);
});

test('FINDING carries the check message from mpi-api.json', () => {
  const [f] = new RankDecoder(1).decode(
    encodeCall({ kind: KIND.FINDING, func: send.id, seq: 9, site: 77 }, [0, 1, -3, 0, 0]),
  );
  assert.equal(f?.type, 'shim-finding');
  if (f?.type === 'shim-finding') {
    assert.equal(f.check, 'negative-count');
    assert.equal(f.message, 'count is negative');
    assert.equal(f.fn.name, 'MPI_Send');
    assert.deepEqual(f.values, [-3, 0, 0]);
  }
});

test('a COMPLETE whose status does not give its byte count (-1) decodes, the rank stays connected', () => {
  // Open MPI leaves the count of an MPI_Rget request's status undefined; counts above INT_MAX are -1 too.
  const [e] = new RankDecoder(0).decode(
    encodeCall({ kind: KIND.COMPLETE, func: recv.id, seq: 1 }, [0, 1, 7, -1, 0, 0]),
  );
  assert.equal(e?.type, 'complete');
  if (e?.type === 'complete') assert.equal(e.bytes, -1);
});

test('random and mutated frames either decode or throw DecodeError, nothing else', () => {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const formats = [frameOf(events.map((e) => encodeEvent(e, 1))), frameOf(encodeEvents(events))];
  for (let i = 0; i < 3000; i++) {
    const frame = (formats[i % 2] as Uint8Array).slice();
    // Flip a few bytes, mostly in the head fields where the kinds, ids and lengths are.
    for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
      const at = Math.floor(rand() * frame.length);
      frame[at] = i % 3 === 0 ? Math.floor(rand() * 256) : (frame[at] ?? 0) ^ (1 << Math.floor(rand() * 8));
    }
    try {
      new RankDecoder(0).decode(frame);
    } catch (e) {
      assert.ok(e instanceof DecodeError, `frame ${i}: ${String(e)}`);
    }
  }
});
