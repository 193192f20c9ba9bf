import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createServer as createHttpServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server as HttpServer,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import records from '../../../native-shim/spec/records.json';

/** The first text frame of every rank (native-shim/spec/records.json "control"). */
export interface Hello {
  readonly type: 'hello';
  readonly version: number;
  readonly rank: number;
  readonly size: number;
  readonly pid: number;
  readonly host: string;
  readonly library: string;
  readonly libraryVersion: string;
  readonly threadLevel: number;
}

/** What the server reports to its owner. Each rank's callbacks arrive in that rank's order. */
export interface RankServerHandlers {
  hello(rank: number, hello: Hello, raw: string): void;
  /** A binary frame. Throw to reject it: the connection is closed with the error's message. */
  frame(rank: number, data: Buffer): void;
  /** A text frame after the hello (acknowledgements such as "paused"). */
  control(rank: number, text: string): void;
  /** The rank's connection ended; reason is set when we closed it because of a protocol error. */
  closed(rank: number, reason: string | undefined): void;
  /** A connection that never became a rank (bad token, bad hello); for diagnostics only. */
  rejected(reason: string): void;
}

/**
 * The newest record format this analyzer reads (protocol/spec.ts FORMAT_VERSION, from the same file): read here
 * from records.json itself, so that listening does not load the spec's tables (built once the engine loads).
 */
const FORMAT_VERSION: number = records.version;
const POLICY_VIOLATION = 1008;
const GOING_AWAY = 1001;

/**
 * How long a connection that presented the token may stay without saying hello. The shim sends its hello right
 * after the handshake, so only a stranger (or a wedged process) waits this long; without the bound, connections
 * that never speak would each hold a socket and its buffers for the whole session.
 */
export const HELLO_TIMEOUT_MS = 30_000;

/**
 * How often the ranks' connections are read once they said hello. Between two reads a connection is paused and
 * its frames wait in the kernel's socket buffer; at each read every connection takes all it has. The shims send
 * a frame about every millisecond while records flow (native-shim/src/msc_sender.c), and waking the session's
 * thread for each one cost about as much as the engine's work on them: bench/transport replaying a 4-rank LAMMPS trace
 * (795,480 records in 12,080 frames) spread over the 8 s the job took spent 938 ms of the session's CPU against
 * 539 ms for the same frames taken in a burst; read every 20 ms, 796-815 ms against 892 (transport alone 270-276
 * against 377). Twenty milliseconds of delay are nothing to what waits on frames in a plain run (the hang watch's
 * quiet time is 200 ms); a debugger's pause, step or breakpoint is answered at once (RankServerOptions.promptly).
 */
export const READ_EVERY_MS = 20;

/** The sockets' high-water mark: a paused connection reads one chunk at most before it waits (see the constructor). */
const PAUSED_READ_BYTES = 64;

/**
 * The most a connection is read in one turn of the event loop once the gate opened it. A connection that brought
 * this much is paused for the rest of the turn and read again in the next one, and so on until a turn brings less
 * (its backlog is read): a rank that sends faster than the gate reads must not wait for the gate, since its
 * sender would block and then its ring fill. The bound makes the ranks with a backlog take turns (libuv takes up
 * to 2 MiB a socket per turn: 30,000 records of one rank before the next rank's).
 */
export const TURN_BYTES = 256 * 1024;

/**
 * A turn can only bring what the kernel holds of a connection at that moment (~150-260 KiB on loopback with
 * Linux's autotuned buffers), so a rank with a backlog often brings less than TURN_BYTES, is taken for one without,
 * and waits for the next read of the gate (READ_EVERY_MS) with its sender blocked and its ring full. The oldest
 * stream (the one the others wait for, see AHEAD_NS; on several hosts, every stream) that brought at least this
 * much, one read of Node's, is therefore read again in the next turn too. Without it, a rank held back for being
 * ahead waited on a rank so paced while this process slept: many-calls on both MPIs ran about one run in two ~0.4-0.6
 * s longer (bench/end-to-end/README.md, "The bimodal tail"). Only the oldest: every stream so read let the ranks
 * that got more CPU run ahead of the others, and the 8-rank stress's analyzer grew by ~50 MiB.
 */
export const BACKLOG_BYTES = 64 * 1024;

/**
 * With `position` (one host), a rank whose stream is this far (ns of the ranks' clock) ahead of the oldest stream
 * still delivering is not read until that one catches up: the engine holds every call of the rank ahead until its
 * partners' calls arrive (replay steps, matching queues), and on a loaded machine the streams drifted seconds
 * apart — the analyzer's memory grew with ranks (bench/ring-stress/README.md, "Streams read oldest first").
 */
export const AHEAD_NS = 5e6;

/** A stream that brought no frame for this long is not waited for (a rank blocked, computing, or done). */
export const DELIVERING_MS = 100;

/**
 * The longest a rank is held back for being ahead before it is read once anyway: the rank ahead may be what the
 * oldest one waits for, in a way its records do not show (it blocks on its full ring meanwhile).
 */
export const HOLD_MAX_MS = 200;

export interface RankServerOptions {
  readonly helloTimeoutMs?: number;
  /** READ_EVERY_MS unless given; 0 reads every frame as it arrives. */
  readonly readEveryMs?: number;
  /**
   * True while frames must be read as they arrive (a debugger holds ranks or has breakpoints: each stop waits
   * for a rank's acknowledgement); asked at each read of the gate.
   */
  readonly promptly?: () => boolean;
  /**
   * Where a rank's stream is: the time stamp (ns) of its last record taken, on a clock every rank shares (one
   * host). Given, a rank far ahead of the oldest stream still delivering waits for it (AHEAD_NS).
   */
  readonly position?: (rank: number) => number;
  /** wss: TLS with this key and certificate (tls-cert.ts), whose fingerprint the ranks pin. */
  readonly tls?: { readonly key: string; readonly cert: string };
}

/** The address to bind, the one the ranks are told (they differ when binding 0.0.0.0), and the port. */
export interface ListenAt {
  readonly bind: string;
  readonly advertise: string;
  readonly port: number;
}

/**
 * The WebSocket endpoint (loopback unless the job spans hosts) the shims connect to: one connection per rank, each presenting the
 * session's random token, the first message a JSON hello. Bad input closes that connection, never the server.
 */
export class RankServer {
  readonly token = randomBytes(24).toString('hex');
  private readonly wss: WebSocketServer;
  private readonly http: HttpServer | HttpsServer;
  private readonly tls: boolean;
  private readonly sockets = new Map<number, WebSocket>();
  /** The read gate (READ_EVERY_MS): resumes every rank's connection, which is paused again once it was read. */
  private readonly reads: NodeJS.Timeout | undefined;
  /** Bytes each rank's connection brought in this turn of the event loop (since it was last resumed). */
  private readonly brought = new Map<number, number>();
  /** Connections the gate or a turn resumed: each turn's end pauses those that brought less than TURN_BYTES. */
  private readonly reading = new Set<number>();
  /** Connections paused in this turn for reaching TURN_BYTES: read again in the next turn. */
  private readonly capped = new Set<number>();
  /** When each rank's last frame arrived (Date.now()): a stream silent for DELIVERING_MS is not waited for. */
  private readonly lastFrameAt = new Map<number, number>();
  /** Since when each rank held back for being ahead has been (HOLD_MAX_MS). */
  private readonly heldSince = new Map<number, number>();
  private turnEndQueued = false;

  private constructor(
    private readonly expectedRanks: number,
    private readonly handlers: RankServerHandlers,
    private readonly where: ListenAt,
    private readonly helloTimeoutMs: number,
    tls: RankServerOptions['tls'],
    readEveryMs: number,
    private readonly promptly: () => boolean,
    private readonly position: ((rank: number) => number) | undefined,
  ) {
    const common = {
      maxPayload: 64 * 1024 * 1024,
      verifyClient: (info: { req: IncomingMessage }) => this.authorized(info.req),
    };
    // A paused connection (the read gate, readAll) stops reading from the kernel once its stream holds more than
    // its high-water mark: Node's default (16 KiB) let a paused rank's socket be read, a wake-up each, for its
    // next three or four frames; with a small mark it is read once and then waits for the gate.
    const sockets = { highWaterMark: PAUSED_READ_BYTES };
    if (tls !== undefined) {
      // A connection that fails the TLS handshake (a client without the pin, a scanner) never reaches ws.
      const https = createHttpsServer({ key: tls.key, cert: tls.cert, ...sockets });
      https.on('tlsClientError', (err: Error) =>
        this.handlers.rejected(`a connection failed the TLS handshake: ${err.message}`),
      );
      this.http = https;
    } else {
      // What ws's own server answers to a request that is no WebSocket upgrade.
      this.http = createHttpServer(sockets, (_req, res) => {
        res.writeHead(426, { 'Content-Type': 'text/plain' });
        res.end(STATUS_CODES[426]);
      });
    }
    this.tls = tls !== undefined;
    this.wss = new WebSocketServer({ server: this.http, ...common });
    this.http.listen(where.port, where.bind);
    this.wss.on('connection', (ws) => this.accept(ws));
    this.reads = readEveryMs > 0 ? setInterval(() => this.readAll(), readEveryMs) : undefined;
    // The gate alone must not keep a process alive whose session is over.
    this.reads?.unref();
  }

  /**
   * One read of every rank's connection: resumed now, the connections are read in this turn of the event loop,
   * each up to TURN_BYTES, and at the turn's end (setImmediate runs after the turn's reads) those that brought
   * less are paused until the next read, those that reached it read again in the next turn (endTurn). A rank
   * ahead of the others (heldBack) is left paused, unless `everyRank` (readEveryNow). While `promptly` says so, none is paused. ws pauses and
   * resumes the socket itself while it parses a large chunk; a resume of its coming after ours only reads sooner.
   * A paused connection that closes is seen at the next read.
   */
  private readAll(everyRank = false): void {
    const prompt = this.promptly();
    const now = Date.now();
    // No floor: no rank is ahead of it, so none is held back (and none stays marked as held).
    const floor = prompt || everyRank ? Infinity : this.oldestDelivering(now);
    for (const [rank, ws] of this.sockets) {
      const socket = rawSocket(ws);
      if (socket === undefined || socket.destroyed) continue;
      if (!prompt && this.heldBack(rank, floor, now)) continue;
      if (socket.isPaused()) socket.resume();
      if (prompt) continue;
      this.brought.set(rank, 0);
      this.reading.add(rank);
    }
    if (this.reading.size > 0) this.queueTurnEnd();
  }

  /**
   * Reads every open connection in this turn, whatever the gate and the hold on a rank ahead say: the drain's last
   * look before it gives a silent connection up (drain.ts lastLookDue).
   */
  readEveryNow(): void {
    this.readAll(true);
  }

  /** The oldest position among the streams that brought a frame in the last DELIVERING_MS. */
  private oldestDelivering(now: number): number {
    const position = this.position;
    let floor = Infinity;
    if (position === undefined) return floor;
    for (const [rank, at] of this.lastFrameAt)
      if (now - at < DELIVERING_MS) floor = Math.min(floor, position(rank));
    return floor;
  }

  /** True while the rank is not to be read: AHEAD_NS ahead of `floor`, for less than HOLD_MAX_MS so far. */
  private heldBack(rank: number, floor: number, now: number): boolean {
    const position = this.position;
    if (position === undefined || !(position(rank) > floor + AHEAD_NS)) {
      this.heldSince.delete(rank);
      return false;
    }
    const since = this.heldSince.get(rank);
    if (since === undefined) {
      this.heldSince.set(rank, now);
      return true;
    }
    if (now - since < HOLD_MAX_MS) return true;
    // Read once; held back again from the next read on, if still ahead.
    this.heldSince.delete(rank);
    return false;
  }

  /** True when the rank's stream is the oldest still delivering (`floor`), or when streams cannot be compared. */
  private oldest(rank: number, floor: number): boolean {
    return this.position === undefined || this.position(rank) <= floor;
  }

  private queueTurnEnd(): void {
    if (this.turnEndQueued) return;
    this.turnEndQueued = true;
    setImmediate(() => this.endTurn());
  }

  /** A rank's connection brought a chunk: past TURN_BYTES in this turn, it waits for the next turn. */
  private took(rank: number, socket: Duplex, bytes: number): void {
    const n = (this.brought.get(rank) ?? 0) + bytes;
    this.brought.set(rank, n);
    if (n < TURN_BYTES || !this.reading.has(rank) || this.capped.has(rank) || this.promptly()) return;
    socket.pause();
    this.capped.add(rank);
  }

  private endTurn(): void {
    this.turnEndQueued = false;
    const prompt = this.promptly();
    const now = Date.now();
    const floor = prompt ? Infinity : this.oldestDelivering(now);
    for (const rank of [...this.reading]) {
      const socket = rawSocket(this.sockets.get(rank));
      const again =
        this.capped.has(rank) || ((this.brought.get(rank) ?? 0) >= BACKLOG_BYTES && this.oldest(rank, floor));
      if (socket === undefined || socket.destroyed) this.reading.delete(rank);
      else if (prompt) {
        // A debugger waits: read as frames arrive, as readAll does.
        if (socket.isPaused()) socket.resume();
        this.reading.delete(rank);
      } else if (again && !this.heldBack(rank, floor, now)) {
        // A backlog: read again in the next turn, after the others had theirs.
        this.brought.set(rank, 0);
        socket.resume();
      } else {
        socket.pause();
        this.reading.delete(rank);
      }
    }
    this.capped.clear();
    if (this.reading.size > 0) this.queueTurnEnd();
  }

  /** Listen on where.bind (default 127.0.0.1), on where.port (default: one the system chooses). */
  static async listen(
    expectedRanks: number,
    handlers: RankServerHandlers,
    where: Partial<ListenAt> = {},
    options: RankServerOptions = {},
  ): Promise<RankServer> {
    const at: ListenAt = { bind: '127.0.0.1', advertise: '127.0.0.1', port: 0, ...where };
    const server = new RankServer(
      expectedRanks,
      handlers,
      at,
      options.helloTimeoutMs ?? HELLO_TIMEOUT_MS,
      options.tls,
      options.readEveryMs ?? READ_EVERY_MS,
      options.promptly ?? (() => false),
      options.position,
    );
    const listening = server.http;
    await new Promise<void>((resolve, reject) => {
      listening.once('listening', resolve);
      listening.once('error', reject);
    });
    return server;
  }

  /** Connections that said hello and have not closed yet. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** The ranks whose connection is still open. */
  openRanks(): number[] {
    return [...this.sockets.keys()];
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** The URL the shim connects to; the token travels separately (MPISCOPE_TOKEN) and in the query. */
  get url(): string {
    const host = isIP(this.where.advertise) === 6 ? `[${this.where.advertise}]` : this.where.advertise;
    return `${this.tls ? 'wss' : 'ws'}://${host}:${this.port}/`;
  }

  /** Send a control message to one rank (pause, continue, terminate…). False when that rank is not connected. */
  sendControl(rank: number, message: object): boolean {
    const ws = this.sockets.get(rank);
    if (ws === undefined || ws.readyState !== ws.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.reads);
    // A close frame first: a rank still connected then knows the analyzer ended the session on purpose and
    // does not take it for the analyzer's death (which it would answer with a spill file).
    for (const ws of this.sockets.values()) ws.close(GOING_AWAY, 'the session ended');
    for (const ws of this.sockets.values()) ws.terminate();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    // ws leaves a server it was given open. Connections that never became WebSockets (a failed handshake, a
    // plain HTTP request) must not hold the close.
    const http = this.http;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private authorized(req: IncomingMessage): boolean {
    const url = new URL(req.url ?? '/', 'ws://127.0.0.1');
    const fromQuery = url.searchParams.get('token');
    const auth = req.headers.authorization;
    const fromHeader = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : auth;
    const ok = [fromQuery, fromHeader].some((t) => t != null && sameSecret(t, this.token));
    if (!ok)
      this.handlers.rejected(`connection from ${req.socket.remoteAddress ?? '?'} without the session token`);
    return ok;
  }

  private accept(ws: WebSocket): void {
    let rank: number | undefined;
    let reason: string | undefined;
    const reject = (why: string): void => {
      reason = why;
      ws.close(POLICY_VIOLATION, why.slice(0, 120));
      // A peer that ignores the close handshake must not keep the session waiting.
      setTimeout(() => ws.terminate(), 1000).unref();
    };
    const silent = setTimeout(() => {
      if (rank !== undefined || reason !== undefined) return;
      const why = `no hello within ${this.helloTimeoutMs / 1000} s`;
      this.handlers.rejected(`a connection sent ${why}`);
      reject(why);
    }, this.helloTimeoutMs);
    silent.unref();
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (reason !== undefined) return;
      const bytes = toBuffer(data);
      if (rank === undefined) {
        if (isBinary) return reject('the first message must be the JSON hello');
        const text = bytes.toString('utf8');
        const parsed = parseHello(text, this.expectedRanks);
        if (typeof parsed === 'string') {
          this.handlers.rejected(parsed);
          return reject(parsed);
        }
        if (this.sockets.has(parsed.rank)) {
          this.handlers.rejected(`rank ${parsed.rank} connected twice`);
          return reject(`rank ${parsed.rank} is already connected`);
        }
        rank = parsed.rank;
        clearTimeout(silent);
        this.sockets.set(rank, ws);
        this.handlers.hello(rank, parsed, text);
        // From now on the rank's frames are read by the gate (readAll), not as each arrives.
        const socket = rawSocket(ws);
        const r = rank;
        if (socket !== undefined) socket.on('data', (chunk: Buffer) => this.took(r, socket, chunk.length));
        if (this.reads !== undefined && !this.promptly()) socket?.pause();
        return;
      }
      if (!isBinary) {
        this.handlers.control(rank, bytes.toString('utf8'));
        return;
      }
      if (this.position !== undefined) this.lastFrameAt.set(rank, Date.now());
      try {
        this.handlers.frame(rank, bytes);
      } catch (err) {
        reject(`bad frame from rank ${rank}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    ws.on('close', () => {
      clearTimeout(silent);
      if (rank === undefined) return;
      this.sockets.delete(rank);
      this.brought.delete(rank);
      this.reading.delete(rank);
      this.capped.delete(rank);
      this.lastFrameAt.delete(rank);
      this.heldSince.delete(rank);
      this.handlers.closed(rank, reason);
    });
    ws.on('error', (err: Error & { code?: string }) => {
      // A frame that breaks WebSocket itself (oversized, bad opcode, bad UTF-8 in a text frame): ws closes the
      // connection (1009, 1002, 1007) and says why here; 'close' follows and reports it with the reason.
      if (reason === undefined && err.code?.startsWith('WS_ERR_') === true)
        reason = `bad WebSocket frame${rank === undefined ? '' : ` from rank ${rank}`}: ${err.message}`;
    });
  }
}

/** The TCP (or TLS) socket under a ws connection. ws keeps it in a field of its own, not in its typings. */
function rawSocket(ws: WebSocket | undefined): Duplex | undefined {
  const socket = (ws as unknown as { _socket?: unknown } | undefined)?._socket;
  return socket instanceof Duplex ? socket : undefined;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Validate every field of a hello; returns the reason it is bad as a string. */
export function parseHello(text: string, expectedRanks: number): Hello | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'the hello is not JSON';
  }
  if (typeof v !== 'object' || v === null) return 'the hello is not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.type !== 'hello') return 'the first message must be {"type":"hello",...}';
  // Format 1 (shims before the packed forms, and their traces and spill files) and the current one: the decoder
  // reads both (records.json, version).
  if (o.version !== 1 && o.version !== FORMAT_VERSION)
    return `unsupported protocol version ${String(o.version)} (this analyzer speaks 1 to ${FORMAT_VERSION})`;
  const int = (k: string): number | undefined => {
    const v = o[k];
    return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
  };
  const rank = int('rank');
  const size = int('size');
  if (size !== expectedRanks)
    return `hello says the job has ${String(o.size)} ranks, expected ${expectedRanks}`;
  if (rank === undefined || rank < 0 || rank >= expectedRanks)
    return `hello has a bad rank ${String(o.rank)}`;
  return {
    type: 'hello',
    version: o.version,
    rank,
    size,
    pid: int('pid') ?? 0,
    host: typeof o.host === 'string' ? o.host : '',
    library: typeof o.library === 'string' ? o.library : '',
    libraryVersion: typeof o.libraryVersion === 'string' ? o.libraryVersion : '',
    threadLevel: int('threadLevel') ?? 0,
  };
}
