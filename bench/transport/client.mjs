// The ranks' side of bench/transport: replays a recorded trace's frames to the analyzer's WebSocket server, one
// connection per rank as the shim makes them (its hello first, then binary frames masked with the all-zero key,
// as native-shim/src/msc_ws.c sends them), in the order the trace recorded them across ranks. `records` > 0
// cuts each rank's stream into frames of that many records instead of the recorded ones (a call's records may
// then straddle two frames, as they may from the shim).
// `paceMs` > 0 spreads the frames over that many milliseconds (a frame is sent when its share of the time has
// come), so that the server takes them as a running job's trickle instead of one burst.
//   node client.mjs URL TOKEN TRACE RECORDS PACE_MS
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const [url, token, tracePath, recordsText, paceText] = process.argv.slice(2);
const records = Number(recordsText);
const paceMs = Number(paceText ?? 0);
const bytes = readFileSync(tracePath);
const RECORD = 64;
const hellos = new Map();
const items = []; // [rank, payload] in trace order
for (let at = 16; at + 12 <= bytes.length;) {
  const rank = bytes.readUInt32LE(at);
  const kind = bytes.readUInt32LE(at + 4);
  const length = bytes.readUInt32LE(at + 8);
  const payload = bytes.subarray(at + 12, at + 12 + length);
  if (kind === 1 && !hellos.has(rank)) hellos.set(rank, payload.toString('utf8'));
  else if (kind === 0) items.push([rank, payload]);
  at += 12 + length;
}
const zeroMask = (mask) => mask.fill(0);
const sockets = new Map();
await Promise.all(
  [...hellos].map(
    ([rank, hello]) =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`${url}?token=${token}`, {
          generateMask: zeroMask,
          perMessageDeflate: false,
        });
        ws.on('open', () => {
          ws.send(hello);
          sockets.set(rank, ws);
          resolve();
        });
        ws.on('error', reject);
      }),
  ),
);
// Start together: the server's clock starts at the first frame.
const pending = new Map();
const started = performance.now();
let index = 0;
const send = async (rank, payload) => {
  if (paceMs > 0) {
    const due = started + (index++ / items.length) * paceMs;
    const now = performance.now();
    if (due > now + 1) await new Promise((r) => setTimeout(r, due - now));
  }
  const ws = sockets.get(rank);
  if (ws === undefined) return;
  // The shim's socket blocks when the analyzer does not read; here the client waits for its buffer to drain.
  while (ws.bufferedAmount > 4 << 20) await new Promise((r) => setTimeout(r, 1));
  ws.send(payload, { binary: true });
};
for (const [rank, payload] of items) {
  if (records <= 0) {
    await send(rank, payload);
    continue;
  }
  const held = Buffer.concat([pending.get(rank) ?? Buffer.alloc(0), payload]);
  let at = 0;
  while (held.length - at >= records * RECORD) {
    await send(rank, held.subarray(at, at + records * RECORD));
    at += records * RECORD;
  }
  pending.set(rank, held.subarray(at));
}
for (const [rank, rest] of pending) if (rest.length > 0) await send(rank, rest);
await Promise.all(
  [...sockets.values()].map(
    (ws) =>
      new Promise((resolve) => {
        ws.on('close', resolve);
        ws.close(1000, 'done');
      }),
  ),
);
