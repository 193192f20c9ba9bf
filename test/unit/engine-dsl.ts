/**
 * A tiny language for engine tests: each rank's calls as the shim would record them.
 *
 *   const job = new Job(2);
 *   const [r0, r1] = job.ranks;
 *   r0.recv(1, { tag: 7, hang: true });   // entered MPI_Recv and never returned
 *   r1.recv(0, { hang: true });
 *
 * Calls complete (ENTER, COMPLETE…, EXIT) unless `hang` is set. Communicator handles differ per rank on
 * purpose, as they do in real jobs.
 */
import { functionNamed } from '../../server/src/protocol/spec';
import type { ArgValue, EndHow, RankEvent } from '../../server/src/engine/model/types';

export interface Opts {
  tag?: number;
  comm?: string;
  hang?: boolean;
  site?: number;
  count?: number;
  /** Buffer address (default: a fresh one per call). */
  buf?: number;
  /** Datatype handle: INT (7, the default), FLOAT, BYTE or DOUBLE, announced at init. */
  type?: number;
  /** Actual source (communicator rank) and tag of a completed receive, when posted with wildcards. */
  got?: readonly [number, number];
  /**
   * The call failed with this MPI error code (e.g. MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN): its
   * completions carry the error and no status (source and tag -1), and its EXIT the return code.
   */
  error?: number;
}

interface ReqInfo {
  kind: 'send' | 'recv' | 'coll';
  source: number;
  tag: number;
}

export const INT = 7;
export const FLOAT = 8;
export const BYTE = 9;
export const DOUBLE = 10;
export const ANY = -1;
export const PROC_NULL = -2;

export class Rank {
  readonly events: RankEvent[] = [];
  private seq = 0;
  private time = 0;
  private nextReq = 1;
  private bufs = 0;
  readonly comms = new Map<string, { handle: number; members: number[] }>();
  private readonly reqs = new Map<number, ReqInfo>();

  constructor(
    readonly rank: number,
    readonly job: Job,
  ) {}

  handle(comm: string): number {
    const c = this.comms.get(comm);
    if (c === undefined) throw new Error(`rank ${this.rank} has no communicator ${comm}`);
    return c.handle;
  }

  private commRank(comm: string, world: number): number {
    return this.comms.get(comm)?.members.indexOf(world) ?? -1;
  }

  /** One call: enter, (completions), exit unless it hangs. Returns its seq. */
  call(
    name: string,
    args: Record<string, ArgValue>,
    o: Opts = {},
    completes: [number, number, number][] = [],
    outputs: Record<string, ArgValue> = {},
  ): number {
    const fn = functionNamed(name);
    const seq = ++this.seq;
    const rank = this.rank;
    this.events.push({ type: 'enter', rank, seq, time: ++this.time, fn, site: o.site ?? 0x1000 + seq, args });
    if (o.hang) return seq;
    for (const [request, source, tag] of completes) {
      this.events.push({
        type: 'complete',
        rank,
        seq,
        time: ++this.time,
        fn,
        request,
        source: o.error ? -1 : source,
        tag: o.error ? -1 : tag,
        bytes: 4,
        error: o.error ?? 0,
        cancelled: false,
      });
    }
    this.events.push({
      type: 'exit',
      rank,
      seq,
      time: ++this.time,
      fn,
      returnCode: o.error ?? 0,
      outputs: { flag: 0, ...outputs },
    });
    return seq;
  }

  init(): this {
    this.call('MPI_Init', { argc: 0, argv: 0 });
    const world = Array.from({ length: this.job.size }, (_, i) => i);
    this.announce('world', 100 + this.rank, world, 0, 0);
    this.announce('self', 200 + this.rank, [this.rank], 0, 0);
    // Basic types as the shim describes them at MPI_Init (ids index mpi-api.json basicTypes).
    for (const [handle, id] of [
      [INT, 6],
      [FLOAT, 12],
      [BYTE, 3],
      [DOUBLE, 13],
    ] as const) {
      const size = handle === BYTE ? 1 : handle === DOUBLE ? 8 : 4;
      this.events.push({
        type: 'datatype',
        rank: this.rank,
        seq: 0,
        time: ++this.time,
        datatype: handle,
        size,
        lb: 0,
        extent: size,
        trueLb: 0,
        trueExtent: size,
        committed: true,
        signature: [[id, 1]],
      });
    }
    return this;
  }

  announce(name: string, handle: number, members: number[], parent: number, creatorSeq: number): void {
    this.comms.set(name, { handle, members });
    this.events.push({
      type: 'comm',
      rank: this.rank,
      seq: creatorSeq,
      time: ++this.time,
      comm: handle,
      size: members.length,
      myRank: members.indexOf(this.rank),
      parent,
      creatorSeq,
      isInter: false,
      members,
      remoteMembers: [],
    });
  }

  private p2p(peer: number, o: Opts) {
    return {
      buf: o.buf ?? 0x50000 + 0x1000 * ++this.bufs,
      count: o.count ?? 1,
      datatype: o.type ?? INT,
      tag: o.tag ?? 0,
      comm: this.handle(o.comm ?? 'world'),
      peer,
    };
  }

  send(dest: number, o: Opts = {}, fn = 'MPI_Send'): this {
    const a = this.p2p(dest, o);
    this.call(fn, { buf: a.buf, count: a.count, datatype: a.datatype, dest, tag: a.tag, comm: a.comm }, o);
    return this;
  }

  ssend(dest: number, o: Opts = {}): this {
    return this.send(dest, o, 'MPI_Ssend');
  }

  recv(source: number, o: Opts = {}): this {
    const a = this.p2p(source, o);
    const got = o.got ?? [source, a.tag];
    this.call(
      'MPI_Recv',
      { buf: a.buf, count: a.count, datatype: a.datatype, source, tag: a.tag, comm: a.comm, status: 0 },
      o,
      [[0, got[0], got[1]]],
    );
    return this;
  }

  probe(source: number, o: Opts = {}): this {
    const a = this.p2p(source, o);
    const got = o.got ?? [source, a.tag];
    this.call('MPI_Probe', { source, tag: a.tag, comm: a.comm, status: 0 }, o, [[0, got[0], got[1]]]);
    return this;
  }

  isend(dest: number, o: Opts = {}): number {
    const a = this.p2p(dest, o);
    const h = 0x7000 + this.nextReq++;
    this.reqs.set(h, { kind: 'send', source: 0, tag: 0 });
    this.call(
      'MPI_Isend',
      { buf: a.buf, count: a.count, datatype: a.datatype, dest, tag: a.tag, comm: a.comm, request: 0 },
      o.site !== undefined ? { site: o.site } : {},
      [],
      { request: h },
    );
    return h;
  }

  irecv(source: number, o: Opts = {}): number {
    const a = this.p2p(source, o);
    const h = 0x7000 + this.nextReq++;
    const got = o.got ?? [source, a.tag];
    this.reqs.set(h, { kind: 'recv', source: got[0], tag: got[1] });
    this.call(
      'MPI_Irecv',
      { buf: a.buf, count: a.count, datatype: a.datatype, source, tag: a.tag, comm: a.comm, request: 0 },
      o.site !== undefined ? { site: o.site } : {},
      [],
      { request: h },
    );
    return h;
  }

  /** Sets the actual source/tag a wildcard request will complete with. */
  resolve(h: number, source: number, tag: number): this {
    const r = this.reqs.get(h);
    if (r) Object.assign(r, { source, tag });
    return this;
  }

  private completion(h: number): [number, number, number] {
    const r = this.reqs.get(h);
    this.reqs.delete(h);
    return r?.kind === 'recv' ? [h, r.source, r.tag] : [h, 0, 0];
  }

  wait(h: number, o: Opts = {}): this {
    this.call('MPI_Wait', { request: h, status: 0 }, o, o.hang ? [] : [this.completion(h)]);
    return this;
  }

  /** MPI_Test of one request: `done` completes it (flag 1), otherwise it stays pending (flag 0). */
  test(h: number, done: boolean, o: Opts = {}): this {
    this.call('MPI_Test', { request: h, flag: 0, status: 0 }, o, done ? [this.completion(h)] : [], {
      flag: done ? 1 : 0,
    });
    return this;
  }

  waitall(hs: number[], o: Opts = {}): this {
    this.call(
      'MPI_Waitall',
      { count: hs.length, array_of_requests: hs, array_of_statuses: 0 },
      o,
      o.hang ? [] : hs.map((h) => this.completion(h)),
    );
    return this;
  }

  /** Waitany that completes request hs[index]; like MPI, it then sets hs[index] to MPI_REQUEST_NULL (0). */
  waitany(hs: number[], index: number, o: Opts = {}): this {
    const h = hs[index] as number;
    this.call(
      'MPI_Waitany',
      { count: hs.length, array_of_requests: [...hs], index: 0, status: 0 },
      o,
      o.hang ? [] : [this.completion(h)],
      { index },
    );
    if (!o.hang) hs[index] = 0;
    return this;
  }

  sendrecv(dest: number, source: number, o: Opts & { rtag?: number } = {}): this {
    const a = this.p2p(dest, o);
    const rtag = o.rtag ?? a.tag;
    const got = o.got ?? [source, rtag];
    this.call(
      'MPI_Sendrecv',
      {
        sendbuf: 1,
        sendcount: 1,
        sendtype: 7,
        dest,
        sendtag: a.tag,
        recvbuf: 2,
        recvcount: 1,
        recvtype: 7,
        source,
        recvtag: rtag,
        comm: a.comm,
        status: 0,
      },
      o,
      [[0, got[0], got[1]]],
    );
    return this;
  }

  barrier(o: Opts = {}): this {
    this.call('MPI_Barrier', { comm: this.handle(o.comm ?? 'world') }, o);
    return this;
  }

  bcast(root: number, o: Opts = {}): this {
    this.call(
      'MPI_Bcast',
      { buffer: 1, count: o.count ?? 1, datatype: o.type ?? INT, root, comm: this.handle(o.comm ?? 'world') },
      o,
    );
    return this;
  }

  reduce(root: number, o: Opts = {}): this {
    this.call(
      'MPI_Reduce',
      { sendbuf: 1, recvbuf: 2, count: 1, datatype: 7, op: 3, root, comm: this.handle(o.comm ?? 'world') },
      o,
    );
    return this;
  }

  allreduce(o: Opts = {}): this {
    this.call(
      'MPI_Allreduce',
      { sendbuf: 1, recvbuf: 2, count: 1, datatype: 7, op: 3, comm: this.handle(o.comm ?? 'world') },
      o,
    );
    return this;
  }

  /** MPI_Comm_dup (or split into `members`) of `parent`, known afterwards as `name`. */
  commCreate(
    fn: 'MPI_Comm_dup' | 'MPI_Comm_split',
    parent: string,
    name: string,
    members: number[],
    o: Opts = {},
  ): this {
    const ph = this.handle(parent);
    const handle = 1000 + this.rank * 100 + this.comms.size;
    const args: Record<string, ArgValue> =
      fn === 'MPI_Comm_dup'
        ? { comm: ph, newcomm: 0 }
        : { comm: ph, color: members[0] ?? 0, key: 0, newcomm: 0 };
    const seq = this.call(fn, args, o, [], { newcomm: handle });
    if (!o.hang) this.announce(name, handle, members, ph, seq);
    return this;
  }

  /**
   * MPI_Intercomm_create joining this rank's group `local` (world ranks, in their group's rank order) and
   * `remote`, known afterwards as `name` (every rank of both groups makes it: the call is collective over world).
   */
  intercomm(name: string, local: number[], remote: number[]): this {
    const world = this.handle('world');
    const handle = 1000 + this.rank * 100 + this.comms.size;
    const args = {
      local_comm: world,
      local_leader: 0,
      peer_comm: world,
      remote_leader: 0,
      tag: 7,
      newintercomm: 0,
    };
    const seq = this.call('MPI_Intercomm_create', args, {}, [], { newintercomm: handle });
    this.comms.set(name, { handle, members: local });
    this.events.push({
      type: 'comm',
      rank: this.rank,
      seq,
      time: ++this.time,
      comm: handle,
      size: local.length,
      myRank: local.indexOf(this.rank),
      parent: world,
      creatorSeq: seq,
      isInter: true,
      members: local,
      remoteMembers: remote,
    });
    return this;
  }

  commFree(name: string): this {
    this.call('MPI_Comm_free', { comm: this.handle(name) });
    this.comms.delete(name);
    return this;
  }

  finalize(o: Opts = {}): this {
    this.call('MPI_Finalize', {}, o);
    if (!o.hang) this.end('finalized');
    return this;
  }

  end(how: EndHow, code = 0): this {
    this.events.push({
      type: 'end',
      rank: this.rank,
      seq: this.seq,
      time: ++this.time,
      how,
      code,
      dropped: 0,
    });
    return this;
  }

  commRankOf(comm: string, world: number): number {
    return this.commRank(comm, world);
  }
}

export class Job {
  readonly ranks: Rank[];
  constructor(
    readonly size: number,
    init = true,
  ) {
    this.ranks = Array.from({ length: size }, (_, r) => new Rank(r, this));
    if (init) for (const r of this.ranks) r.init();
  }

  /**
   * Return addresses as a real job has them: each process its own (here shifted by rank), with SITE records
   * naming the same module and offset for the same call on every rank. Call once the ranks' calls are written.
   */
  relocate(): this {
    for (const r of this.ranks) {
      const shift = r.rank * 0x100000;
      const sites = new Set<number>();
      r.events.forEach((e, i) => {
        if (e.type !== 'enter' && e.type !== 'shim-finding') return;
        sites.add(e.site);
        r.events[i] = { ...e, site: e.site + shift };
      });
      const described: RankEvent[] = [...sites].map((site) => ({
        type: 'site',
        rank: r.rank,
        seq: 0,
        time: 0,
        address: site + shift,
        offset: site,
        module: '/work/app',
      }));
      r.events.unshift(...described);
    }
    return this;
  }

  /** Every rank's events, interleaved in an order chosen by `seed` (0: rank by rank, round robin). */
  interleave(seed: number): RankEvent[] {
    const queues = this.ranks.map((r) => r.events);
    // Each rank's next event by index, and the ranks with events left in rank order: linear in the events (a
    // filter of the queues and an Array.shift per event made a 600,000-event job take 80 s).
    const next = queues.map(() => 0);
    const live = queues.map((_, i) => i).filter((i) => (queues[i] as RankEvent[]).length > 0);
    const out: RankEvent[] = [];
    let state = seed * 2654435761 + 1;
    const rand = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    let turn = 0;
    while (live.length > 0) {
      const at = seed === 0 ? turn++ % live.length : Math.floor(rand() * live.length);
      const i = live[at] as number;
      const q = queues[i] as RankEvent[];
      const k = next[i] as number;
      out.push(q[k] as RankEvent);
      next[i] = k + 1;
      if (k + 1 >= q.length) live.splice(at, 1);
    }
    return out;
  }
}
