// The shim's ring when the analyzer falls behind (native-shim/README.md, "The ring"): the ranks wait for room
// instead of dropping records, so every call the program made arrives; and an analyzer that takes nothing at
// all still lets the job finish (the ranks give up after MPISCOPE_RING_STALL_MS and count what they drop).
// The analyzer here is this test's own WebSocket server, made slow on purpose: it blocks its event loop after
// every frame, so the ranks' rings (1024 records) fill over and over.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { RankDecoder } from '../../server/src/protocol/decoder';
import { ensureShim } from '../../server/src/session/shim-locator';
import type { MpiFlavor } from '../../server/src/session/mpi-flavor';
import { compileMpi, installedFlavors } from '../lib/mpiscope-cli';

const work = mkdtempSync(join(tmpdir(), 'mpiscope-ring-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Every rank makes N MPI_Initialized calls and N/10 exchanges with its neighbours (Irecv, Isend, Waitall), the
// call pattern whose records were lost under load (with MPI_Comm_rank, which the shim now samples in a loop:
// native-shim/spec/README.md, "quiet"; MPI_Initialized is as cheap and recorded whole).
const source = `#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, q, n = atoi(argv[1]);
    char s[8] = { 0 }, r[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < n; i++) MPI_Initialized(&q);
    for (int i = 0; i < n / 10; i++) {
        MPI_Request req[2];
        MPI_Irecv(r, 8, MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(s, 8, MPI_CHAR, (rank + 1) % size, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
`;

interface RankCounts {
  calls: Map<string, number>;
  lost: number;
  endDropped: number | undefined;
}

/** A WebSocket analyzer that decodes and counts each rank's ENTER records, sleeping `delayMs` after every
 * frame and 1.5 s after every 300th; with delayMs -1 it never reads past the hello, with -2 it sleeps 1 s after
 * each frame and drops every connection at its 20th frame (an analyzer that dies while the rings are full). */
function slowSink(
  token: string,
  delayMs: number,
): Promise<{ port: number; counts: RankCounts[]; drained(ranks: number): Promise<void>; close(): void }> {
  return new Promise((ready) => {
    const counts: RankCounts[] = [];
    let closed = 0;
    let onClose = (): void => {};
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    let frames = 0;
    wss.on('connection', (ws: WebSocket, req) => {
      if (!req.url?.includes(`token=${token}`)) return ws.close(1008, 'bad token');
      const c: RankCounts = { calls: new Map(), lost: 0, endDropped: undefined };
      let decoder: RankDecoder | undefined;
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary) {
          const msg = JSON.parse(data.toString()) as { type: string; rank: number };
          if (msg.type === 'hello') {
            decoder = new RankDecoder(msg.rank);
            counts[msg.rank] = c;
            // Takes nothing more: the rank's socket and ring fill and stay full.
            if (delayMs === -1) ws.pause();
          }
          return;
        }
        for (const e of decoder?.decode(new Uint8Array(data)) ?? []) {
          if (e.type === 'enter') c.calls.set(e.fn.name, (c.calls.get(e.fn.name) ?? 0) + 1);
          else if (e.type === 'lost') c.lost += e.count;
          else if (e.type === 'end') c.endDropped = e.dropped;
        }
        // The analyzer falls behind: the event loop is blocked, nothing is read meanwhile; now and then for
        // longer than a second (a garbage collection, a long check), which the shim once gave up on.
        if (delayMs > 0) Atomics.wait(sleeper, 0, 0, ++frames % 300 === 40 ? 1500 : delayMs);
        if (delayMs === -2) {
          Atomics.wait(sleeper, 0, 0, 1000);
          if (++frames === 20) for (const client of wss.clients) client.terminate();
        }
      });
      ws.on('close', () => {
        closed++;
        onClose();
      });
    });
    wss.on('listening', () => {
      const address = wss.address();
      const port = address === null || typeof address === 'string' ? 0 : address.port;
      ready({
        port,
        counts,
        // The job may end before this analyzer read what the kernel still buffers for it: done when every
        // rank's connection is closed (read to its end).
        drained: (ranks) =>
          new Promise((done) => {
            onClose = () => {
              if (closed >= ranks) done();
            };
            onClose();
          }),
        close: () => {
          for (const ws of wss.clients) ws.terminate();
          wss.close();
        },
      });
    });
  });
}

/** Runs the program under the shim with a small ring; resolves with the launcher's exit status. */
async function runJob(
  flavor: string,
  exe: string,
  np: number,
  iterations: number,
  port: number,
  token: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const shim = await ensureShim(flavor as MpiFlavor);
  const env: Record<string, string> = {
    LD_PRELOAD: shim,
    MPISCOPE_URL: `ws://127.0.0.1:${port}/`,
    MPISCOPE_TOKEN: token,
    MPISCOPE_RING_RECORDS: '1024',
    OMPI_ALLOW_RUN_AS_ROOT: '1',
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
    ...extraEnv,
  };
  const forward =
    flavor === 'openmpi' ? ['--oversubscribe', ...Object.keys(env).flatMap((k) => ['-x', k])] : [];
  return new Promise((done) => {
    const child = spawn(`mpirun.${flavor}`, [...forward, '-np', String(np), exe, String(iterations)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A hang is the failure this guards against: ended, and reported as such, rather than waited for forever.
    const kill = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (code) => {
      clearTimeout(kill);
      done({ code, stderr });
    });
  });
}

for (const flavor of installedFlavors()) {
  const exe = join(work, `ring-${flavor}`);
  const ready = (() => {
    let built = false;
    return () => {
      if (built) return;
      writeFileSync(join(work, 'ring.c'), source);
      compileMpi(flavor, join(work, 'ring.c'), exe);
      built = true;
    };
  })();

  test(`${flavor}: a slow analyzer gets every record of every rank (the ranks wait, nothing is dropped)`, async () => {
    ready();
    const np = 2;
    const n = 200000;
    const sink = await slowSink('ringtest', 1);
    try {
      const job = await runJob(flavor, exe, np, n, sink.port, 'ringtest');
      assert.equal(job.code, 0, job.stderr);
      await sink.drained(np);
      for (let rank = 0; rank < np; rank++) {
        const c = sink.counts[rank];
        assert.ok(c, `rank ${rank} never connected`);
        assert.equal(c.lost, 0, `rank ${rank}: LOST records`);
        assert.equal(c.endDropped, 0, `rank ${rank}: END says records were dropped (or no END)`);
        assert.equal(c.calls.get('MPI_Initialized'), n, `rank ${rank}: MPI_Initialized ENTER records`);
        for (const f of ['MPI_Irecv', 'MPI_Isend', 'MPI_Waitall'])
          assert.equal(c.calls.get(f), n / 10, `rank ${rank}: ${f} ENTER records`);
        assert.equal(c.calls.get('MPI_Finalize'), 1, `rank ${rank}: MPI_Finalize`);
      }
    } finally {
      sink.close();
    }
  });

  test(`${flavor}: an analyzer that dies while the ranks wait on full rings does not hang the job`, async () => {
    ready();
    const sink = await slowSink('ringtest', -2);
    try {
      // The default stall bound (60 s) stays: what releases the waiting ranks is the closed connection.
      const job = await runJob(flavor, exe, 2, 200000, sink.port, 'ringtest');
      assert.equal(job.code, 0, job.stderr);
    } finally {
      sink.close();
    }
  });

  test(`${flavor}: an analyzer that takes nothing does not hang the job (it drops after the stall bound)`, async () => {
    ready();
    const sink = await slowSink('ringtest', -1);
    try {
      const job = await runJob(flavor, exe, 2, 20000, sink.port, 'ringtest', {
        MPISCOPE_RING_STALL_MS: '500',
        MPISCOPE_FLUSH_TIMEOUT_MS: '500',
      });
      assert.equal(job.code, 0, job.stderr);
    } finally {
      sink.close();
    }
  });
}
