/**
 * What the engine knows about one rank: its calls in flight and its live requests. A rank with threads
 * (MPI_THREAD_MULTIPLE) has several calls in flight at once; their records interleave in the rank's
 * stream, each carrying its call's seq, so EXIT and COMPLETE records find their call by seq.
 */
import type { CommInfo } from './comms';
import type { RecordColumns } from '../../protocol/columns';
import type { RecvOp, SendOp } from './ops';
import { layouts } from '../../protocol/spec';
import { HandleTable, type HandleMap } from './handle-table';
import { RecentMap } from './recent-map';
import { SpanIndex } from './span-index';
import { IN_READS, IN_WRITES, NOT_INDEXED, RequestPool, type ReqId } from './request-pool';
import type { EndHow, CallEnter, FunctionSpec, Handle } from './types';
import { objectArray } from './elements';

/**
 * What the engine tracks of a call from its ENTER: the calls in flight and the recently exited ones (the ring
 * below), for their EXIT and late COMPLETE records.
 */
export interface CallState {
  readonly enter: CallEnter;
  exited: boolean;
  send?: SendOp;
  recv?: RecvOp;
  coll?: { readonly comm: CommInfo; readonly index: number };
  /** Requests the call waits on (Wait*, Test*), in argument order. */
  waits?: readonly Handle[];
  /** The shim found an argument invalid (FINDING): whatever MPI did, it matched nothing. */
  rejected?: boolean;
  /** The request this call creates (its row in the rank's RequestPool), waiting for its handle in the EXIT record. */
  creates?: ReqId;
}

/**
 * One batch of rows the engine handles (a frame, or the rows a caller decoded): the calls it entered read their
 * words in its columns until it is `over`, when the columns may hold other rows.
 */
export class WordBatch {
  over = false;
}

/**
 * A call as one object: its ENTER (CallEnter: head fields and argument words) and its state (CallState). They
 * were two objects per call, the state pointing at the ENTER; one is half the allocation and the collector's work
 * for every call. Every field is set in the constructor (one shape for every call). Not one object per ENTER
 * either: the call CALL_RING seqs back in the ring slot a new call takes becomes that call (`reuse`) when nothing
 * can reach it any more (RankTrack.reusable), so that a rank's calls are mostly its ring's 128 objects, written
 * over, instead of 60 bytes of fresh memory per row (the engine README, oprows).
 * A persistent request keeps its creating call (`RequestPool.template`): the EXIT drops `creates` once
 * the request is handed over, so that a call kept for its ENTER does not hold its request too.
 *
 * The words are read in the batch's word column (`words` is the columns' `Float64Array`, from `base`) while the
 * batch is handled: most calls enter and exit in one frame (a Send, a Comm_rank, a Wait that completes) and
 * never copy them. Before the batch ends, the engine has the calls still in flight copy theirs into their own
 * array (`RankTrack.keepWordsInFlight`: their EXIT, the wait-for graph and the message queues read them later),
 * and a holder that keeps a call past its EXIT copies them when it takes it (`keepWords`), which also pins the
 * call: it is never reused. Any other call's words are gone with the batch, and reading them throws (a holder that
 * forgot to keep them), rather than reading another row's; a holder that kept the object without `keepWords`
 * would read a later call of its rank once the slot's next call reused it (test/unit/call-reuse.test.ts checks
 * the holders there are: a persistent request's template, a buffered send's call, a collective's members).
 */
/** Placeholders of the state a call gets after its ENTER (Call's constructor). */
const NO_COLL = { comm: undefined as unknown as CommInfo, index: -1 };
const NO_HANDLES: readonly Handle[] = [];
/** An object that is no operation, stored once and replaced (Call's constructor: `send`, `recv` made mutable). */
const NO_OP = {} as unknown as SendOp & RecvOp;

export class Call implements CallEnter, CallState {
  exited = false;
  /** A holder keeps the call past its ring slot (`keepWords`): never reused for a later call (RankTrack.reusable). */
  pinned = false;
  send: SendOp | undefined = undefined;
  recv: RecvOp | undefined = undefined;
  coll: { readonly comm: CommInfo; readonly index: number } | undefined = undefined;
  waits: readonly Handle[] | undefined = undefined;
  rejected: boolean | undefined = undefined;
  creates: ReqId | undefined = undefined;

  // Set again when the object is reused for a later call of its rank (`reuse`): read-only for everyone else.
  constructor(
    readonly rank: number,
    seq: number,
    fn: FunctionSpec,
    site: number,
    private words: Float64Array,
    private base: number,
    private count: number,
    /** The ENTER's flags (records.json): bit1 another thread than MPI_Init's, bit3 nested in a callback. */
    enterFlags: number,
    /** The batch whose columns hold the words; undefined once they are the call's own. */
    private batch: WordBatch | undefined,
  ) {
    this.seq = seq;
    this.fn = fn;
    this.site = site;
    this.otherThread = (enterFlags & 2) !== 0;
    this.nested = (enterFlags & 8) !== 0;
    // The fields `reuse` sets again must be mutable from the process's first call, not from the first reuse (which
    // threw away the code compiled against them). Those above and the parameter properties already are: declared
    // as class fields, they hold undefined (site NaN) until this constructor's first store of another value, which
    // makes them mutable (`--trace-generalization`: at `new Call`, none at `reuse`). `pinned` and `exited` start
    // with the value a new call has, so they take another one and back, as the state below does.
    this.pinned = true;
    this.pinned = false;
    this.exited = true;
    this.exited = false;
    // The state set after the ENTER is mutable from the first call on. V8 keeps a field constant until its value
    // first changes, and that change throws away the code compiled meanwhile against the constant: `coll` is first
    // set at a job's first collective, often thousands of calls in, and pushColumns (which builds the call) was
    // compiled again (`--trace-generalization`: coll const -> mutable, then `--trace-deopt`). Two stores of
    // different values here make that change at the process's first call, before anything is compiled.
    this.rejected = false;
    this.rejected = undefined;
    this.coll = NO_COLL;
    this.coll = undefined;
    this.waits = NO_HANDLES;
    this.waits = undefined;
    // And the operations: set once per call and written again only by `reuse` (its first run, 128 calls of a
    // rank into the job, made them mutable and threw away pushColumns and the causal run's code compiled by then:
    // `--trace-generalization`, `--trace-deopt`).
    this.send = NO_OP;
    this.send = undefined;
    this.recv = NO_OP;
    this.recv = undefined;
  }

  seq: number;
  fn: FunctionSpec;
  /**
   * A double from the start (NaN before the constructor's store): a site is a return address, above a small
   * integer, and a field that V8 holds as a double is written in place when the object is reused, where a field
   * born a small integer or undefined takes a new heap number per call (6 bytes per row with addresses as sites).
   */
  site = NaN;
  otherThread: boolean;
  nested: boolean;

  /**
   * The object becomes the call entered at `row` of the columns (its rank's next call in its ring slot): every
   * field as the constructor sets it. Only RankTrack.reusable's calls: exited, not pinned, nothing else holds them.
   */
  reuse(cols: RecordColumns, row: number, fn: FunctionSpec, batch: WordBatch): this {
    // Read from the columns here, not passed in: a double passed to a call that is not inlined is boxed (a heap
    // number per call), and the site is one (a return address).
    this.seq = cols.seq[row] as number;
    this.fn = fn;
    this.site = cols.site[row] as number;
    this.words = cols.words;
    this.base = cols.wordStart[row] as number;
    this.count = cols.wordCount[row] as number;
    this.otherThread = ((cols.flags[row] as number) & 2) !== 0;
    this.nested = ((cols.flags[row] as number) & 8) !== 0;
    this.batch = batch;
    this.exited = false;
    this.send = undefined;
    this.recv = undefined;
    this.coll = undefined;
    this.waits = undefined;
    this.rejected = undefined;
    this.creates = undefined;
    return this;
  }

  get enter(): CallEnter {
    return this;
  }

  wordAt(i: number): number | undefined {
    if (i >= this.count) return undefined;
    if (this.batch?.over === true) this.gone();
    return this.words[this.base + i];
  }

  wordArray(): Float64Array {
    if (this.batch?.over === true) this.gone();
    return this.words;
  }

  get wordBase(): number {
    return this.base;
  }

  get wordCount(): number {
    return this.count;
  }

  keepWords(): void {
    this.pinned = true;
    this.copyWords();
  }

  /** The words become the call's own (a call in flight when its batch ends), without pinning it. */
  copyWords(): void {
    const batch = this.batch;
    if (batch === undefined) return;
    if (batch.over) this.gone();
    const n = this.count;
    const from = this.words;
    const base = this.base;
    // A small typed array costs more to make than a plain one, but it keeps every read of `words` on one kind of
    // array; few calls copy (those in flight when their batch ends, templates, collectives).
    const own = new Float64Array(n);
    for (let i = 0; i < n; i++) own[i] = from[base + i] as number;
    this.words = own;
    this.base = 0;
    this.batch = undefined;
  }

  private gone(): never {
    throw new Error(
      `the words of ${this.fn.name} (rank ${this.rank}, seq ${this.seq}) were read after their batch`,
    );
  }
}

/** Stamps of earlyDone's requests start here: after those of the Map's (2^52, never reached by a count). */
const EARLY_STAMPS = 2 ** 52;

/**
 * Slots of the ring of calls by seq (a power of two). An exited call stays findable for late COMPLETE records (a
 * thread's COMPLETE may follow its call's EXIT) until CALL_RING later seqs entered: at least as long as the 64
 * last exits the Map this replaced kept, unless more than 64 calls of the rank are in flight at once. Not more:
 * the exited calls it holds are memory per rank (without their words, unless a holder kept them: see Call).
 */
const CALL_RING = 128;

export class RankTrack {
  /** The latest call still in flight, else the call entered last (kept after its exit). */
  cur: CallState | undefined;
  /**
   * Calls by seq, in a ring indexed by seq (a slot per seq modulo CALL_RING): those in flight and the recently
   * exited ones, until a call CALL_RING seqs later takes the slot. No Map entry per call: a Map whose keys come
   * and go rehashes into new tables as it churns, which was part of what the collector cleaned per call.
   */
  private readonly ring: (Call | undefined)[] = new Array<Call | undefined>(CALL_RING).fill(undefined);
  /**
   * Calls still in flight whose slot a later call took (a thread blocked while other threads made CALL_RING
   * calls): kept here until they exit, so that their EXIT and COMPLETE records still find them.
   */
  private readonly displaced = new Map<number, Call>();
  /** Calls in flight in the order they entered (one, or one per thread in MPI at once). */
  private readonly flying: Call[] = objectArray();
  private inFlight = 0;
  /**
   * Several threads called MPI under MPI_THREAD_MULTIPLE (two calls in flight at once, or a call from
   * another thread than MPI_Init's): the order of the rank's calls is not one thread's program order.
   */
  concurrent = false;
  /** The rank's requests, rows of one store (see RequestPool); everything below holds rows of it. */
  readonly reqs = new RequestPool();
  /** Not a Map: requests come and go at every nonblocking call (see HandleTable). */
  private readonly requestMap = new HandleTable<ReqId>();
  /**
   * Live requests by handle, `values()` in the order a Map would list them; changed only by setRequest /
   * deleteRequest, which keep the buffer indexes.
   */
  readonly requests: HandleMap<ReqId> = this.requestMap;
  /**
   * The buffers of the pending requests (see pendingBuffer), by start address: what sends read and what receives
   * write, apart, because a new send only conflicts with pending receives (two sends may read one buffer).
   */
  readonly pendingReads = new SpanIndex();
  readonly pendingWrites = new SpanIndex();
  private stamps = 0;
  /** Active requests freed by MPI_Request_free: their operations still happen. */
  readonly orphans: ReqId[] = [];
  /**
   * Requests that were complete when made (MPICH's builtin requests, Open MPI's MPI_PROC_NULL request): the
   * shim passes them as DONE_REQUEST (not 0, MPI_REQUEST_NULL) to the Wait/Test/free that consumes them, so
   * those calls consume them in order.
   */
  private readonly early: ReqId[] = [];
  /** Changed only by pushEarly / takeEarly. */
  readonly earlyDone: readonly ReqId[] = this.early;
  /**
   * The call that made each send request (by the id the shim reports: the handle, or the made-up id of a request
   * MPI made already complete), kept after completion: the shim's send-buffer-modified finding comes from the
   * Wait that completed the send, after its COMPLETE, and points back at the send. Bounded (the last 4096).
   * Only the call's site and function, as two numbers set together (so evicted together), not the call: holding
   * the last 4,096 send calls of every rank with their words kept each of them alive through one or two
   * young-generation collections (copied, then promoted, then swept in the old generation), where a call that
   * nothing holds after its ring slot dies young and costs the collector nothing. Not one packed number: a site
   * is a return address (up to 2^47), and site × the function count lost the function's id to rounding (the
   * finding named MPI_Comm_dup for an MPI_Isend).
   */
  private readonly sendCreators = new RecentMap<number>(4096);
  private readonly sendCreatorFns = new RecentMap<number>(4096);
  /**
   * Handles of requests completed and freed (by a Wait/Test or MPI_Request_free) → the call that did it; the
   * last 65536 (MPI recycles handles, so this only bounds a pathological program).
   */
  readonly retired = new RecentMap<string>(65536);
  ended: EndHow | undefined;
  /**
   * Wildcard receives this rank posted so far, counted as the shim counts them for --replay-race (spec
   * replayClasses, source MPI_ANY_SOURCE), so that a race's receive is named by (rank, count) in both.
   */
  wildcards = 0;
  /** Records of this rank the shim dropped: its requests' states are no longer certain. */
  lost = 0;
  /** Seen any event from this rank (ranks not heard from yet are assumed able to act). */
  started = false;
  inFinalize = false;
  /** The thread level MPI_Init / MPI_Init_thread asked for (0 single … 3 multiple); undefined before. */
  threadLevel: number | undefined;
  /** A thread-level violation of this rank was reported (only the first is). */
  threadReported = false;
  /** Site of MPI_Finalize (or of the last call), where end-of-run findings point for this rank. */
  lastSite = 0;
  lastCall = '';

  constructor(readonly rank: number) {}

  /**
   * The call in `seq`'s ring slot, if the next call entered at `seq` may be that object again (Call.reuse): it has
   * exited, no holder pinned it (Call.keepWords), it is not the current call, and the rank has not ended (a call
   * after the end is not entered, and the slot's call stays findable). Nothing else can reach it: a call in
   * flight is in its slot or among the displaced, an exited one only in its slot until a later call takes it,
   * and `call(seq)` finds a reused call by its new seq only, as it found the slot's new call before.
   */
  reusable(seq: number): Call | undefined {
    const c = this.ring[seq & (CALL_RING - 1)];
    if (c === undefined || !c.exited || c.pinned || c === this.cur || this.ended !== undefined)
      return undefined;
    return c;
  }

  /** A call enters: it becomes the current call. */
  enter(call: Call): void {
    // A call made from a callback MPI runs inside the thread's current call (an attribute's delete function)
    // nests in it: the rank's calls keep one order.
    if (
      (this.inCall && call.enter.nested !== true) ||
      (call.enter.otherThread === true && this.threadLevel === 3)
    )
      this.concurrent = true;
    this.cur = call;
    const seq = call.enter.seq;
    const slot = seq & (CALL_RING - 1);
    // Every call entered and not exited is counted in inFlight (one replaced by a repeated seq too, which never
    // exits): with none, the slot's call has exited and is not read. It was made CALL_RING calls of this rank
    // ago, long out of the cache: reading its `exited` was the most sampled line of the engine (~6% of it).
    const before = this.inFlight === 0 ? undefined : this.ring[slot];
    if (before !== undefined && before !== call && !before.exited) {
      // The same seq again (a stream that repeats one) replaces the call, as a Map key would.
      if (before.enter.seq === seq) this.land(before);
      else this.displaced.set(before.enter.seq, before);
    }
    this.ring[slot] = call;
    this.flying.push(call);
    this.inFlight++;
  }

  /** The call with this seq, in flight or recently exited. */
  call(seq: number): Call | undefined {
    const c = this.ring[seq & (CALL_RING - 1)];
    if (c !== undefined && c.enter.seq === seq) return c;
    return this.displaced.size === 0 ? undefined : this.displaced.get(seq);
  }

  /** A call exits; the current call becomes the latest other call still in flight, if any. */
  exit(call: Call): void {
    call.exited = true;
    this.inFlight--;
    this.land(call);
    if (this.displaced.size !== 0 && this.displaced.get(call.enter.seq) === call) {
      this.displaced.delete(call.enter.seq);
      // Back in its slot for late COMPLETE records, unless a call in flight holds it.
      const slot = call.enter.seq & (CALL_RING - 1);
      if (this.ring[slot]?.exited !== false) this.ring[slot] = call;
    }
    if (this.cur !== call || this.inFlight <= 0) return;
    const latest = this.flying[this.flying.length - 1];
    if (latest !== undefined) this.cur = latest;
  }

  /** The batch that brought the calls in flight ends: they copy their words (see Call). */
  keepWordsInFlight(): void {
    const flying = this.flying;
    for (let i = 0; i < flying.length; i++) (flying[i] as Call).copyWords();
  }

  /** Takes the call off the list of calls in flight. */
  private land(call: Call): void {
    const last = this.flying.length - 1;
    if (this.flying[last] === call) this.flying.pop();
    else {
      const i = this.flying.indexOf(call);
      if (i >= 0) this.flying.splice(i, 1);
    }
  }

  /** Request `handle` is live (made by its call's EXIT). */
  setRequest(handle: Handle, req: ReqId): void {
    const old = this.requestMap.get(handle);
    // A Map keeps the place of a key set again, and so does the stamp.
    if (old === undefined) this.reqs.setStamp(req, ++this.stamps);
    else {
      this.reqs.setStamp(req, this.reqs.stamp(old));
      // The handle now names another request: the one it named has no holder left (MPI reused the handle of a
      // request the program lost track of, or records were lost).
      if (old !== req) this.forget(old);
    }
    this.requestMap.set(handle, req);
    this.pendingBuffer(req);
  }

  /**
   * Request `handle` is completed or freed; returns it. The caller owns the row from here: it `forget`s it, or
   * keeps it among the orphans.
   */
  deleteRequest(handle: Handle): ReqId | undefined {
    const req = this.requestMap.get(handle);
    if (req === undefined) return undefined;
    this.requestMap.delete(handle);
    this.unindex(req);
    return req;
  }

  /** A request MPI made already complete (see earlyDone). */
  pushEarly(req: ReqId): void {
    // After every request of the Map, as the walk before the index took them.
    this.reqs.setStamp(req, EARLY_STAMPS + ++this.stamps);
    this.early.push(req);
    this.pendingBuffer(req);
  }

  /** The n oldest requests of earlyDone leave it (a Wait/Test/free consumed them); the caller `forget`s them. */
  takeEarly(n: number): ReqId[] {
    const taken = this.early.splice(0, n);
    for (const req of taken) this.unindex(req);
    return taken;
  }

  /** An orphan's operation completed: it leaves the orphans, and the pool. */
  dropOrphan(req: ReqId): void {
    const i = this.orphans.indexOf(req);
    if (i >= 0) this.orphans.splice(i, 1);
    this.forget(req);
  }

  /** The orphan whose handle this was, if any. */
  orphan(handle: Handle): ReqId | undefined {
    for (const r of this.orphans) if (this.reqs.handle(r) === handle) return r;
    return undefined;
  }

  /** The request has no holder left (out of the table, earlyDone and orphans): its row goes back to the pool. */
  forget(req: ReqId): void {
    this.unindex(req);
    this.reqs.release(req);
  }

  /**
   * Appends the receives of the rank's active requests not yet completed: by handle in the order a Map would list
   * them, then the orphans' (the deadlock, message-queue and end-of-run walks).
   */
  pendingRecvs(out: RecvOp[]): void {
    const p = this.reqs;
    for (const req of [...this.requestMap.values(), ...this.orphans]) {
      const op = p.op(req);
      if (p.active(req) && op?.kind === 'recv' && !op.done) out.push(op);
    }
  }

  /**
   * Puts a live request in the pending-buffer index its state says, or in none: its operation has a known
   * buffer and it is active (a persistent request between Start and completion; others from creation to
   * their Wait/Test, even when MPI completed them at once). Called whenever `op` or `active` changes.
   */
  pendingBuffer(req: ReqId): void {
    this.unindex(req);
    const p = this.reqs;
    const op = p.op(req);
    const lo = p.spanLo(req);
    if (op === undefined || lo !== lo || (p.persistent(req) && !p.active(req))) return;
    const reads = op.kind === 'send';
    const ord = (reads ? this.pendingReads : this.pendingWrites).add(lo, p.spanHi(req), req);
    p.setIndexed(req, reads ? IN_READS : IN_WRITES, lo, ord);
  }

  private unindex(req: ReqId): void {
    const p = this.reqs;
    const where = p.indexedIn(req);
    if (where === NOT_INDEXED) return;
    (where === IN_READS ? this.pendingReads : this.pendingWrites).remove(
      p.indexedFrom(req),
      p.indexedOrd(req),
      req,
    );
    p.setIndexed(req, NOT_INDEXED, 0, 0);
  }

  /** Remember the call that made send request `id` (see sendCreators). */
  rememberSend(id: Handle, created: { readonly site: number; readonly fn: FunctionSpec }): void {
    this.sendCreators.set(id, created.site);
    this.sendCreatorFns.set(id, created.fn.id);
  }

  /** The site and function of the call that made send request `id`, while remembered (see sendCreators). */
  sendCreator(id: Handle): { readonly site: number; readonly fn: FunctionSpec } | undefined {
    const site = this.sendCreators.get(id);
    const fnId = this.sendCreatorFns.get(id);
    const layout = fnId === undefined ? undefined : layouts[fnId];
    if (site === undefined || layout === undefined) return undefined;
    return { site, fn: layout.spec };
  }

  /** Inside a call that has not returned. */
  get inCall(): boolean {
    return this.cur !== undefined && !this.cur.exited && this.ended === undefined;
  }
}
