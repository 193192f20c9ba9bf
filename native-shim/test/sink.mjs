// A minimal analyzer stand-in for testing the shim by hand: accepts the ranks' WebSocket connections,
// checks the token, validates the record stream and counts records per kind.
//   node native-shim/test/sink.mjs [--port N] [--token T] [--ranks N] [--timeout S] [--quiet]
// Prints "listening PORT" first; with --ranks, exits after N connections have closed and prints a JSON
// summary per rank (exit status 1 when a stream was malformed). Optional: --pause-after K sends a pause to
// each rank after K records, then continue 300 ms later (to exercise control frames).
import { WebSocketServer } from 'ws';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const records = JSON.parse(readFileSync(join(here, '..', 'spec', 'records.json'), 'utf8'));
const api = JSON.parse(readFileSync(join(here, '..', 'spec', 'mpi-api.json'), 'utf8'));
const kindName = Object.fromEntries(Object.entries(records.kinds).map(([k, v]) => [v.id, k]));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const token = opt('token', 'secret');
const ranks = Number(opt('ranks', '0'));
const timeout = Number(opt('timeout', '60'));
const pauseAfter = Number(opt('pause-after', '0'));
const quiet = args.includes('--quiet');
const dump = args.includes('--dump');
// --count-only: count bytes of binary frames without looking at records (benchmarks: the shim, not this sink).
const countOnly = args.includes('--count-only');

const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(opt('port', '0')) });
const summaries = [];
let bad = 0;

wss.on('listening', () => console.log(`listening ${wss.address().port}`));
wss.on('connection', (ws, req) => {
  const url = new URL(req.url, 'http://x');
  if (url.searchParams.get('token') !== token || req.headers.authorization !== `Bearer ${token}`) {
    ws.close(1008, 'bad token');
    return;
  }
  const s = {
    hello: null,
    records: 0,
    frames: 0,
    kinds: {},
    functions: {},
    sites: [],
    errors: [],
    end: null,
    texts: [],
    lastSeq: 0,
    findings: [],
  };
  let inCall = false;
  let paused = false;
  ws.on('message', (data, isBinary) => {
    if (!isBinary) {
      const msg = JSON.parse(data.toString());
      if (msg.type === 'hello') s.hello = msg;
      else s.texts.push(msg);
      if (!s.hello) s.errors.push('text before hello');
      return;
    }
    if (!s.hello) s.errors.push('binary before hello');
    s.frames++;
    if (countOnly) {
      s.records += data.length / records.recordSize;
      if (data.length === records.recordSize && data.readUInt8(0) === records.kinds.END.id)
        s.end = { how: 0 };
      if (
        data.length >= records.recordSize &&
        data.readUInt8(data.length - records.recordSize) === records.kinds.END.id
      )
        s.end = { how: 0 };
      return;
    }
    if (data.length % records.recordSize) s.errors.push(`frame of ${data.length} bytes`);
    for (let off = 0; off + 64 <= data.length; off += 64) {
      const kind = data.readUInt8(off);
      const name = kindName[kind];
      s.records++;
      if (!name) {
        s.errors.push(`unknown kind ${kind}`);
        continue;
      }
      s.kinds[name] = (s.kinds[name] ?? 0) + 1;
      if (name === 'EXT') {
        if (!inCall) s.errors.push('EXT without head');
        continue;
      }
      inCall = true;
      const func = data.readUInt16LE(off + 2);
      const w = (i) => Number(data.readBigInt64LE(off + 24 + 8 * i));
      if (name === 'ENTER') {
        const fn = api.functions[func]?.name ?? `?${func}`;
        s.functions[fn] = (s.functions[fn] ?? 0) + 1;
        s.lastSeq = data.readUInt32LE(off + 4);
      }
      if (name === 'SITE') {
        // module path: words 2.. of the record and its EXT records
        let bytes = data.subarray(off + 24 + 16, off + 64);
        let o = off + 64;
        while (o < data.length && data.readUInt8(o) === records.kinds.EXT.id) {
          bytes = Buffer.concat([bytes, data.subarray(o + 8, o + 64)]);
          o += 64;
        }
        const path = bytes.subarray(0, bytes.indexOf(0)).toString();
        if (s.sites.length < 5) s.sites.push(`${path}+0x${w(1).toString(16)}`);
      }
      if (dump && ['ENTER', 'EXIT', 'COMPLETE'].includes(name)) {
        const hex = (v) => (Math.abs(v) > 0xffff ? '0x' + v.toString(16) : String(v));
        console.log(
          `r${s.hello?.rank} ${name} ${api.functions[func]?.name} seq=${data.readUInt32LE(off + 4)} [${[0, 1, 2, 3, 4].map((i) => hex(w(i))).join(' ')}]`,
        );
      }
      if (name === 'FINDING') s.findings.push(`${api.checks[w(0)]?.id ?? w(0)}@${api.functions[func]?.name}`);
      if (name === 'END') s.end = { how: w(0), code: w(1), dropped: w(2), lastSeq: w(3) };
      if (pauseAfter && !paused && s.records >= pauseAfter) {
        paused = true;
        ws.send(JSON.stringify({ type: 'pause' }));
        setTimeout(() => ws.send(JSON.stringify({ type: 'continue' })), 300);
      }
    }
  });
  ws.on('close', () => {
    if (!s.end) s.errors.push('closed without END');
    if (s.errors.length) bad++;
    summaries.push(s);
    if (!quiet) console.log(JSON.stringify(s));
    if (ranks && summaries.length >= ranks) finish();
  });
});

function finish() {
  const total = summaries.reduce((a, s) => a + s.records, 0);
  console.log(`summary ranks=${summaries.length} records=${total} malformed=${bad}`);
  process.exit(bad ? 1 : 0);
}
setTimeout(() => {
  console.log(`timeout after ${timeout}s with ${summaries.length} ranks closed`);
  process.exit(1);
}, timeout * 1000).unref();
