import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { RankServer, parseHello, type RankServerHandlers } from './rank-server';

interface Log {
  hellos: number[];
  frames: [number, number][];
  closed: [number, string | undefined][];
  rejected: string[];
}

async function withServer(
  ranks: number,
  body: (s: RankServer, log: Log, closedOnce: (rank: number) => Promise<void>) => Promise<void>,
): Promise<void> {
  const log: Log = { hellos: [], frames: [], closed: [], rejected: [] };
  const waiters = new Map<number, () => void>();
  const handlers: RankServerHandlers = {
    hello: (rank) => log.hellos.push(rank),
    frame: (rank, data) => {
      if (data.length % 64 !== 0) throw new Error('not whole records');
      log.frames.push([rank, data.length]);
    },
    control: () => undefined,
    closed: (rank, reason) => {
      log.closed.push([rank, reason]);
      waiters.get(rank)?.();
    },
    rejected: (reason) => log.rejected.push(reason),
  };
  const server = await RankServer.listen(ranks, handlers);
  const closedOnce = (rank: number): Promise<void> => new Promise((r) => waiters.set(rank, r));
  try {
    await body(server, log, closedOnce);
  } finally {
    await server.close();
  }
}

function hello(rank: number, size: number): string {
  return JSON.stringify({
    type: 'hello',
    version: 1,
    rank,
    size,
    pid: 1,
    host: 'h',
    library: 'openmpi',
    libraryVersion: '4',
    threadLevel: 0,
  });
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

test('a connection without the token is refused', async () => {
  await withServer(1, async (s, log) => {
    await assert.rejects(open(s.url), /401/);
    await assert.rejects(open(`${s.url}?token=wrong`), /401/);
    assert.equal(log.rejected.length, 2);
    assert.equal(log.hellos.length, 0);
  });
});

test('the token is accepted in the query and in the Authorization header', async () => {
  await withServer(2, async (s, log, closedOnce) => {
    const a = await open(`${s.url}?token=${s.token}`);
    const b = await open(s.url, { Authorization: `Bearer ${s.token}` });
    const closed = Promise.all([closedOnce(0), closedOnce(1)]);
    a.send(hello(0, 2));
    b.send(hello(1, 2));
    a.send(Buffer.alloc(128));
    a.close();
    b.close();
    await closed;
    assert.deepEqual(log.hellos.sort(), [0, 1]);
    assert.deepEqual(log.frames, [[0, 128]]);
  });
});

test('a bad frame closes that connection with a reason, and the server goes on', async () => {
  await withServer(2, async (s, log, closedOnce) => {
    const bad = await open(`${s.url}?token=${s.token}`);
    const closed = closedOnce(0);
    const code = new Promise<[number, string]>((r) =>
      bad.once('close', (c, reason) => r([c, reason.toString()])),
    );
    bad.send(hello(0, 2));
    bad.send(Buffer.alloc(65));
    await closed;
    const [c, reason] = await code;
    assert.equal(c, 1008);
    assert.match(reason, /bad frame from rank 0: not whole records/);
    assert.match(log.closed[0]?.[1] ?? '', /bad frame/);
    const good = await open(`${s.url}?token=${s.token}`);
    const closed1 = closedOnce(1);
    good.send(hello(1, 2));
    good.send(Buffer.alloc(64));
    good.close();
    await closed1;
    assert.deepEqual(log.frames, [[1, 64]]);
  });
});

test('records before the hello, and a second connection for a rank, are refused', async () => {
  await withServer(1, async (s, log) => {
    const early = await open(`${s.url}?token=${s.token}`);
    const earlyClose = new Promise<number>((r) => early.once('close', (c) => r(c)));
    early.send(Buffer.alloc(64));
    assert.equal(await earlyClose, 1008);
    const first = await open(`${s.url}?token=${s.token}`);
    first.send(hello(0, 1));
    const second = await open(`${s.url}?token=${s.token}`);
    const secondClose = new Promise<number>((r) => second.once('close', (c) => r(c)));
    second.send(hello(0, 1));
    assert.equal(await secondClose, 1008);
    assert.deepEqual(log.hellos, [0]);
    first.close();
  });
});

test('every field of a hello is checked', () => {
  assert.equal(typeof parseHello('{', 2), 'string');
  assert.equal(typeof parseHello('[]', 2), 'string');
  assert.match(
    parseHello(JSON.stringify({ type: 'hello', version: 3, rank: 0, size: 2 }), 2) as string,
    /version/,
  );
  // Format 1 (an older shim, its traces) and format 2 (packed records) are both read.
  for (const version of [1, 2]) {
    const hello = parseHello(JSON.stringify({ type: 'hello', version, rank: 0, size: 2 }), 2);
    assert.equal(typeof hello === 'object' ? hello.version : hello, version);
  }
  assert.match(
    parseHello(JSON.stringify({ type: 'hello', version: 1, rank: 2, size: 2 }), 2) as string,
    /bad rank/,
  );
  assert.match(
    parseHello(JSON.stringify({ type: 'hello', version: 1, rank: 0, size: 3 }), 2) as string,
    /3 ranks, expected 2/,
  );
  assert.match(
    parseHello(JSON.stringify({ type: 'hello', version: 1, rank: 0.5, size: 2 }), 2) as string,
    /bad rank/,
  );
  const ok = parseHello(hello(1, 2), 2);
  assert.equal(typeof ok, 'object');
});

test('an oversized frame, a frame cut mid-way and a malformed WebSocket frame close that connection only', async () => {
  await withServer(3, async (s, log, closedOnce) => {
    // Oversized: past the 64 MiB payload bound, refused by ws while reading the header (1009).
    const big = await open(`${s.url}?token=${s.token}`);
    const bigClosed = closedOnce(0);
    big.send(hello(0, 3));
    big.send(Buffer.alloc(64 * 1024 * 1024 + 64));
    await bigClosed;
    assert.match(log.closed.find(([r]) => r === 0)?.[1] ?? '', /bad WebSocket frame from rank 0: .*payload/i);
    // Cut: a binary frame header announcing 6400 bytes, 100 of them sent, then the connection dropped.
    const cut = await open(`${s.url}?token=${s.token}`);
    const cutClosed = closedOnce(1);
    // Written in order on the one socket: the hello goes out before the raw bytes below.
    cut.send(hello(1, 3));
    const raw = (cut as unknown as { _socket: Socket })._socket;
    const header = Buffer.from([0x82, 0xfe, 6400 >> 8, 6400 & 0xff, 0, 0, 0, 0]);
    raw.write(Buffer.concat([header, Buffer.alloc(100)]));
    raw.destroy();
    await cutClosed;
    // Malformed: a reserved opcode (0x3).
    const bad = await open(`${s.url}?token=${s.token}`);
    const badClosed = closedOnce(2);
    bad.send(hello(2, 3));
    (bad as unknown as { _socket: Socket })._socket.write(Buffer.from([0x83, 0x80, 0, 0, 0, 0]));
    await badClosed;
    assert.match(log.closed.find(([r]) => r === 2)?.[1] ?? '', /bad WebSocket frame from rank 2/);
    // No frame of theirs was taken, and the server still serves a rank.
    assert.deepEqual(log.frames, []);
    assert.equal(s.openConnections, 0);
  });
});

test('a connection with the token that never says hello is closed with a reason', async () => {
  const rejected: string[] = [];
  const server = await RankServer.listen(
    1,
    {
      hello: () => undefined,
      frame: () => undefined,
      control: () => undefined,
      closed: () => undefined,
      rejected: (r) => rejected.push(r),
    },
    {},
    { helloTimeoutMs: 200 },
  );
  try {
    const quiet = await open(`${server.url}?token=${server.token}`);
    const [code, reason] = await new Promise<[number, string]>((r) =>
      quiet.once('close', (c, why) => r([c, why.toString()])),
    );
    assert.equal(code, 1008);
    assert.match(reason, /no hello within 0.2 s/);
    assert.match(rejected.join('\n'), /sent no hello/);
  } finally {
    await server.close();
  }
});

test('1,000 concurrent connection attempts without the token are all refused; a real rank meanwhile is served', async () => {
  await withServer(1, async (s, log, closedOnce) => {
    const rank = await open(`${s.url}?token=${s.token}`);
    const rankClosed = closedOnce(0);
    rank.send(hello(0, 1));
    const strangers = Array.from({ length: 1000 }, (_, i) =>
      open(i % 2 === 0 ? s.url : `${s.url}?token=${'0'.repeat(s.token.length)}`).then(
        () => 'open',
        (err: Error) => err.message,
      ),
    );
    // The rank keeps sending while the flood goes on.
    for (let i = 0; i < 50; i++) rank.send(Buffer.alloc(64 * 16));
    const outcomes = await Promise.all(strangers);
    rank.close();
    await rankClosed;
    assert.equal(
      outcomes.filter((o) => /401/.test(o)).length,
      1000,
      'every stranger refused at the handshake',
    );
    assert.equal(log.rejected.length, 1000);
    assert.deepEqual(log.hellos, [0]);
    assert.equal(log.frames.length, 50, 'every frame of the real rank arrived');
    assert.equal(s.openConnections, 0);
  });
});

/** A server with the given read gate whose frame handler notes, per frame, the event-loop turn it came in. */
async function withGate(
  readEveryMs: number,
  promptly: () => boolean,
  body: (s: RankServer, frames: { size: number; turn: number }[], closed: Promise<void>) => Promise<void>,
): Promise<void> {
  const frames: { size: number; turn: number }[] = [];
  let turn = 0;
  let counting = true;
  // A new turn of the event loop each time the check phase runs.
  const count = (): void => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  let closedNow: () => void = () => undefined;
  const closed = new Promise<void>((r) => (closedNow = r));
  const server = await RankServer.listen(
    1,
    {
      hello: () => undefined,
      frame: (_rank, data) => frames.push({ size: data.length, turn }),
      control: () => undefined,
      closed: () => closedNow(),
      rejected: () => undefined,
    },
    {},
    { readEveryMs, promptly },
  );
  try {
    await body(server, frames, closed);
  } finally {
    counting = false;
    await server.close();
  }
}

/** Sends `n` frames of 64 bytes × (i + 1), each after the previous one left the client and a pause. */
async function trickle(ws: WebSocket, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) =>
      ws.send(Buffer.alloc(64 * (i + 1)), (err) => (err ? reject(err) : resolve())),
    );
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('with the read gate, frames that trickle in are taken together, all of them, in order, and the close after them', async () => {
  // A gate far longer than the trickle: every frame sent between two reads must wait for the next one.
  await withGate(
    1500,
    () => false,
    async (s, frames, closed) => {
      const ws = await open(`${s.url}?token=${s.token}`);
      ws.send(hello(0, 1));
      await trickle(ws, 12);
      ws.close();
      await closed;
      assert.deepEqual(
        frames.map((f) => f.size),
        Array.from({ length: 12 }, (_, i) => 64 * (i + 1)),
      );
      // Read as they arrived, twelve frames 5 ms apart take about twelve turns; through the gate, one or two.
      const turns = new Set(frames.map((f) => f.turn));
      assert.ok(turns.size <= 2, `frames came in ${turns.size} turns of the event loop`);
    },
  );
});

test('a backlog larger than the sockets hold is read turn after turn, not a socket-full per read of the gate', async () => {
  // A turn brings only what the kernel holds of a connection then (~150-260 KiB on loopback here), which can be less
  // than TURN_BYTES although more is waiting. Taken for a stream without a backlog, these 3 MiB came in 6 reads of
  // the gate (one socket-full each); read again while a turn brings BACKLOG_BYTES, all of it before the gate's next
  // read. Counted in reads of the gate, not in milliseconds.
  await withGate(
    1000,
    () => false,
    async (s, frames, closed) => {
      let gateReads = 0;
      const gate = s as unknown as { readAll: () => void };
      const readAll = gate.readAll.bind(s);
      gate.readAll = () => {
        gateReads++;
        readAll();
      };
      const ws = await open(`${s.url}?token=${s.token}`);
      ws.send(hello(0, 1));
      // Under the gate before the frames come.
      while (s.openConnections < 1) await new Promise((r) => setTimeout(r, 5));
      const n = 48;
      for (let i = 0; i < n; i++) ws.send(Buffer.alloc(64 * 1024));
      while (frames.length < 1) await new Promise((r) => setTimeout(r, 5));
      const first = gateReads;
      while (frames.length < n) await new Promise((r) => setTimeout(r, 5));
      const reads = gateReads - first;
      ws.close();
      await closed;
      assert.equal(
        reads,
        0,
        `the backlog's ${n} frames needed ${reads} more reads of the gate after the first frame`,
      );
    },
  );
});

test('while a debugger waits on ranks (promptly), frames are read as they arrive, not at the gate', async () => {
  let prompt = true;
  // A gate that never reads during the test: only reading as frames arrive delivers them.
  await withGate(
    60_000,
    () => prompt,
    async (s, frames, closed) => {
      const ws = await open(`${s.url}?token=${s.token}`);
      ws.send(hello(0, 1));
      await trickle(ws, 5);
      while (frames.length < 5) await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(
        frames.map((f) => f.size),
        [64, 128, 192, 256, 320],
      );
      prompt = false;
      ws.close();
      await closed;
    },
  );
});

/** A two-rank server with `position` given; records each frame's rank and first byte (its number). */
async function withPositions(
  position: (rank: number) => number,
  body: (s: RankServer, frames: [number, number][], closed: Promise<void>) => Promise<void>,
): Promise<void> {
  const frames: [number, number][] = [];
  let closedCount = 0;
  let bothClosed: () => void = () => undefined;
  const closed = new Promise<void>((r) => (bothClosed = r));
  const server = await RankServer.listen(
    2,
    {
      hello: () => undefined,
      frame: (rank, data) => frames.push([rank, data[0] ?? -1]),
      control: () => undefined,
      closed: () => {
        if (++closedCount === 2) bothClosed();
      },
      rejected: () => undefined,
    },
    {},
    { position },
  );
  try {
    await body(server, frames, closed);
  } finally {
    await server.close();
  }
}

function frameNumbered(i: number, bytes = 64): Buffer {
  const b = Buffer.alloc(bytes);
  b[0] = i;
  return b;
}

test('a rank far ahead of a rank that keeps delivering is still read in the end: every frame, in order', async () => {
  // Rank 1 always looks far ahead and rank 0 never catches up: only the bound on holding a rank back
  // (HOLD_MAX_MS) lets rank 1's frames through. A rank held forever would hang its job.
  await withPositions(
    (rank) => (rank === 1 ? 1e15 : 0),
    async (s, frames, closed) => {
      const r0 = await open(`${s.url}?token=${s.token}`);
      const r1 = await open(`${s.url}?token=${s.token}`);
      r0.send(hello(0, 2));
      r1.send(hello(1, 2));
      let sending = true;
      const trickle = (async () => {
        for (let i = 0; sending; i = (i + 1) % 256) {
          r0.send(frameNumbered(i));
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      for (let i = 0; i < 20; i++) r1.send(frameNumbered(i, 64 * 1024));
      while (frames.filter(([rank]) => rank === 1).length < 20) await new Promise((r) => setTimeout(r, 10));
      sending = false;
      await trickle;
      r0.close();
      r1.close();
      await closed;
      assert.deepEqual(
        frames.filter(([rank]) => rank === 1).map(([, n]) => n),
        Array.from({ length: 20 }, (_, i) => i),
      );
    },
  );
});

test('the oldest stream with a backlog is read before the ones ahead of it', async () => {
  // Both ranks send a backlog larger than a turn; rank 1's stream is far ahead of rank 0's, which is read
  // first: rank 1's frames come after all of rank 0's backlog, not interleaved from the start.
  let taken0 = 0;
  await withPositions(
    (rank) => (rank === 1 ? 1e15 : taken0 < 40 ? 0 : 2e15),
    async (s, frames, closed) => {
      const r0 = await open(`${s.url}?token=${s.token}`);
      const r1 = await open(`${s.url}?token=${s.token}`);
      r0.send(hello(0, 2));
      r1.send(hello(1, 2));
      // Let both hellos be taken, so both connections are under the gate before the frames come.
      while (s.openConnections < 2) await new Promise((r) => setTimeout(r, 5));
      const sent = (ws: WebSocket, i: number): Promise<void> =>
        new Promise((resolve, reject) =>
          ws.send(frameNumbered(i, 64 * 1024), (err) => (err ? reject(err) : resolve())),
        );
      await Promise.all(Array.from({ length: 40 }, (_, i) => [sent(r0, i), sent(r1, i)]).flat());
      while (frames.length < 80) {
        taken0 = frames.filter(([rank]) => rank === 0).length;
        await new Promise((r) => setTimeout(r, 5));
      }
      r0.close();
      r1.close();
      await closed;
      // Read alternately, about 36 of rank 1's 40 frames would come before rank 0's last; held back, only what
      // the first read took before any stream delivered (a turn of each) and a read a HOLD_MAX_MS.
      const lastOf0 = frames.map(([rank]) => rank).lastIndexOf(0);
      const early = frames.slice(0, lastOf0).filter(([rank]) => rank === 1).length;
      assert.ok(early <= 12, `${early} of rank 1's frames came while rank 0 still had a backlog`);
    },
  );
});
