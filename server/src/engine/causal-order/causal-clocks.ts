/**
 * Happened-before over the whole run: vector clocks computed by running every rank's replay steps in a
 * causal order (a receive after the send it took; a collective once every member arrived, joining their
 * clocks; the completion of a nonblocking collective once every member started it, taking their clocks at
 * the start). Every collective counts as synchronizing, although MPI promises that only of barriers: that
 * errs towards "ordered", which for the checks that use this means saying nothing.
 *
 * Computed as the run goes (causal-order.ts runs the steps as they arrive), and told to the checks that ask
 * "was this known then?" (message races, buffered-send space, freed-send reuse; one-sided races read clocks
 * at points they asked for) at the moment each step runs, so that no check needs the run kept: a send's clock
 * is a row of one slab until its receive took it, a rank's clock is one array.
 */
import { CausalRun, type CausalVisitor } from './causal-order';
import type { P2pOp, RecvOp } from '../model/ops';
import { objectArray } from '../model/elements';
import {
  COLL,
  IDONE,
  instanceKey,
  ISTART,
  POST,
  WAIT,
  type CollStep,
  type InstanceKey,
  type StepItem,
  type StepKind,
} from './steps';

/**
 * Vector clocks cost a copy per send that follows a merge (a receive, a collective) and a merge per receive, each
 * as long as the job: beyond this many ranks the checks that need them are skipped.
 */
export const MAX_RANKS = 512;

/** What the checks built on happened-before hear, in causal order. Clocks are the run's: copy what you keep. */
export interface ClockListener {
  /** A send or a receive was posted, with its rank's clock then. */
  posted?(op: P2pOp, clock: Int32Array): void;
  /** A receive (or matched probe) completed: `time` is its rank's own component then, `index` its step's. */
  received?(op: RecvOp, time: number, index: number): void;
  /** Some steps ran: a chance to decide what waited for other ranks' clocks (every few thousand steps). */
  progress?(): void;
  /** The run ended: decide what is left. */
  end?(): void;
}

const merge = (into: Int32Array, from: Int32Array): void => {
  const n = Math.min(into.length, from.length);
  for (let i = 0; i < n; i++) if ((from[i] as number) > (into[i] as number)) into[i] = from[i] as number;
};

export class ClockRun implements CausalVisitor {
  /**
   * The causal run whose visitor this is. The replay adds steps and matches to it directly (`Replay.release`,
   * `matched`): no layer of this class between them, a call less per step and a function less to compile.
   */
  readonly run: CausalRun;
  /** Each rank's clock now, by world rank. */
  private readonly vc: (Int32Array | undefined)[] = objectArray();
  /** Nonblocking collective instance → the clock of each member that started it (until all completed it). */
  private readonly started = new Map<InstanceKey, { clocks: Int32Array[]; done: number }>();
  /** Points (rank, steps run) whose clock a check asked for, and the clock once reached. */
  private readonly points = new Map<number, Map<number, Int32Array | undefined>>();
  /**
   * What hears the steps (the engine's `ClockChecks`, which names each check): one object, not a list looped over
   * at every step (the loop's iteration was compiled into `step`, the replay's largest function, for one element).
   */
  listener: ClockListener | undefined = undefined;
  private steps = 0;
  /**
   * Each rank's own component when its clock last left it (a send posted, a collective, a nonblocking collective
   * started), by world rank, -1 before: no other rank's clock can hold a value of it between this and its clock
   * now (message races group the wildcard receives in between, races.ts).
   */
  private readonly leftAt: number[] = [];

  constructor(
    /** Components of a clock: the job's size, grown when a higher rank appears. */
    private n: number,
  ) {
    // The run calls this object's `step` and `collective` itself (no closure between them: a call per step).
    this.run = new CausalRun(false, this);
  }

  /** Every member of a collective instance arrived: each member's clock ticks, then all take the join. */
  collective(members: readonly number[]): void {
    const joined = new Int32Array(this.n);
    for (const m of members) {
      const c = this.clock(m);
      c[m] = (c[m] as number) + 1;
      this.leftAt[m] = c[m];
      merge(joined, c);
    }
    for (const m of members) {
      merge(this.clock(m), joined);
      this.moved(m);
    }
  }

  /** Steps held (added, not run): the memory this run holds besides its clocks. */
  get held(): number {
    return this.run.held;
  }

  /** Components of a clock (the ranks known so far). */
  get size(): number {
    return this.n;
  }

  /** The rank's own component when its clock last left it (`leftAt`), -1 if it never did. */
  left(r: number): number {
    return this.leftAt[r] ?? -1;
  }

  /**
   * The values of rank `r`'s component, at least `from`, that some rank could still take: every rank's clock now,
   * the clocks of the messages in flight (their rows: a sent row is its sender's clock at a send, and only the
   * sender's own component moves while it is shared) and of the nonblocking collectives started and not yet
   * completed by all. A rank's knowledge of r, now or later, is one of these or a value r's clock takes from now on
   * (its own component now or beyond). A message of r carries its own component as its `doneTime`, beyond its
   * row's; but its row is copied at r's first send since r's clock last took another's or `fresh` was called,
   * with no value of a checked point (races.ts: a wildcard receive) between the two. Pushed into `into` (unsorted,
   * repeats); returns the rows and clocks looked at (the cost).
   */
  heldOf(r: number, from: number, into: number[]): number {
    let looked = 0;
    for (let q = 0; q < this.n; q++) {
      const v = this.vc[q]?.[r] ?? 0;
      if (q !== r && v >= from) into.push(v);
    }
    looked += this.n;
    if (r < this.stride)
      for (let row = 0; row < this.rows; row++) {
        const v = this.slab[row * this.stride + r] as number;
        if ((this.refs[row] as number) > 0 && v >= from) into.push(v);
      }
    looked += this.rows;
    for (const inst of this.started.values())
      for (const c of inst.clocks) {
        const v = c[r] ?? 0;
        if (v >= from) into.push(v);
        looked++;
      }
    return looked;
  }

  /** Rank `r`'s next send copies its clock into a row of its own, as after a receive that moved it (`heldOf`). */
  fresh(r: number): void {
    this.moved(r);
  }

  /** The rank's clock now (owned by the run). */
  clock(r: number): Int32Array {
    const c = this.vc[r];
    if (c !== undefined && c.length >= this.n) return c;
    if (r >= this.n) this.n = r + 1;
    const grown = new Int32Array(this.n);
    if (c !== undefined) grown.set(c);
    this.vc[r] = grown;
    while (this.lastRow.length < this.n) this.lastRow.push(-1);
    while (this.leftAt.length < this.n) this.leftAt.push(-1);
    return grown;
  }

  /** The next step of the rank (the replay calls `run.add` itself; for tests). */
  add(rank: number, kind: StepKind, item: StepItem): void {
    this.run.add(rank, kind, item);
  }

  /** A send and its receive were matched (the replay calls `run.matched` itself; for tests). */
  matched(s: P2pOp, r: P2pOp): void {
    this.run.matched(s, r);
  }

  trimDead(): number {
    return this.run.trimDead();
  }

  end(): void {
    this.run.end();
    this.listener?.end?.();
  }

  /**
   * Asks for the rank's clock once it ran `k` steps (k = 0: before any). Read it with `at` when the run has
   * got there; a point a rank never reached (stuck in a deadlock) stays unknown.
   */
  watch(rank: number, k: number): void {
    let m = this.points.get(rank);
    if (m === undefined) this.points.set(rank, (m = new Map<number, Int32Array | undefined>()));
    if (m.has(k)) return;
    const ran = this.run.position(rank).ran;
    m.set(k, k === 0 ? new Int32Array(this.n) : ran === k ? this.clock(rank).slice() : undefined);
  }

  at(rank: number, k: number): Int32Array | undefined {
    return this.points.get(rank)?.get(k);
  }

  /** The check no longer needs the point asked for with `watch`: its clock is let go. */
  unwatch(rank: number, k: number): void {
    const m = this.points.get(rank);
    if (m === undefined) return;
    m.delete(k);
    if (m.size === 0) this.points.delete(rank);
  }

  /**
   * The clocks of the messages in flight: rows of `stride` components in one slab (the op's `sentClock` is its
   * row), not an Int32Array each — 184 bytes of objects for the 8 bytes of a 2-rank clock, per pending send.
   * Rows come back through a free list once no message and no rank refers to them (`refs`); the slab doubles
   * when full and is laid out again when the job grows (`stride` follows `n`). Read only here.
   *
   * A rank's sends share a row until its clock takes another's (a receive, a collective, the end of a
   * nonblocking one): in between, only its own component moves, and that is kept on each send (`doneTime`
   * of a send, read when its receive merges the row). A halo exchange's two sends copy one clock, not two.
   */
  private slab = new Int32Array(0);
  private stride = 0;
  private rows = 0;
  private readonly freeRows: number[] = [];
  /** Per row: the messages in flight that carry it, plus one while it is its rank's `lastRow`. */
  private refs = new Int32Array(0);
  /** Each rank's row holding its clock as of its last send, -1 once its clock took another's (by world rank). */
  private readonly lastRow: number[] = [];

  /** The rank's clock took another's (components other than its own may have grown): its row is not its clock. */
  private moved(r: number): void {
    const row = this.lastRow[r] ?? -1;
    if (row < 0) return;
    this.lastRow[r] = -1;
    this.unref(row);
  }

  private unref(row: number): void {
    const left = (this.refs[row] as number) - 1;
    this.refs[row] = left;
    if (left === 0) this.freeRows.push(row);
  }

  /** The send `op` of rank `r`, whose clock is `c`, carries the rank's row (copied now if it has none). */
  private sent(op: P2pOp, r: number, c: Int32Array): void {
    let row = this.lastRow[r] ?? -1;
    if (row < 0) {
      row = this.sentRow(c);
      this.refs[row] = 1;
      this.lastRow[r] = row;
    }
    this.refs[row] = (this.refs[row] as number) + 1;
    op.sentClock = row;
    op.doneTime = c[r];
    this.leftAt[r] = c[r] as number;
  }

  /** A free row holding the clock `c` (its first `stride` components, the rest zero). */
  private sentRow(c: Int32Array): number {
    if (this.stride < this.n) this.relayout(this.n, Math.max(this.rows, 16));
    let row = this.freeRows.pop();
    if (row === undefined) {
      if ((this.rows + 1) * this.stride > this.slab.length)
        this.relayout(this.stride, Math.max(16, this.rows * 2));
      row = this.rows++;
    }
    const at = row * this.stride;
    const k = Math.min(c.length, this.stride);
    for (let i = 0; i < k; i++) this.slab[at + i] = c[i] as number;
    for (let i = k; i < this.stride; i++) this.slab[at + i] = 0;
    return row;
  }

  /**
   * Rank `r`'s clock `c` takes the clock of the send `s` (its row, and its sender's component when it was
   * posted) and lets go of the row.
   */
  private took(r: number, c: Int32Array, s: P2pOp): void {
    const row = s.sentClock;
    const at = row * this.stride;
    const k = Math.min(c.length, this.stride);
    const slab = this.slab;
    let grew = false;
    for (let i = 0; i < k; i++)
      if ((slab[at + i] as number) > (c[i] as number)) {
        c[i] = slab[at + i] as number;
        grew = true;
      }
    const from = s.rank;
    const t = s.doneTime as number;
    if (from < c.length && t > (c[from] as number)) {
      c[from] = t;
      grew = true;
    }
    // Each message is received once: its send's clock is not needed again.
    s.sentClock = -1;
    this.unref(row);
    if (grew) this.moved(r);
  }

  /** Room for `capacity` rows of `stride` components, the rows so far copied (padded with zeros). */
  private relayout(stride: number, capacity: number): void {
    const slab = new Int32Array(stride * capacity);
    const old = this.slab;
    const s0 = this.stride;
    if (s0 === stride) slab.set(old.subarray(0, this.rows * s0));
    else for (let r = 0; r < this.rows; r++) slab.set(old.subarray(r * s0, (r + 1) * s0), r * stride);
    this.slab = slab;
    this.stride = stride;
    if (this.refs.length < capacity) {
      const refs = new Int32Array(capacity);
      refs.set(this.refs);
      this.refs = refs;
    }
  }

  /** A step runs (called by the causal run): the rank's clock ticks, and the checks hear what it did. */
  step(r: number, k: StepKind, item: StepItem, i: number): void {
    const c = this.clock(r);
    if (k !== COLL) c[r] = (c[r] as number) + 1;
    if (k === ISTART || k === IDONE) this.nonblockingColl(r, c, k, item as CollStep);
    else if (k === POST) {
      const op = item as P2pOp;
      // A row shared by the rank's sends since its clock last took another's, recycled once no message
      // carries it: no object per send, and no copy for a send that follows another.
      if (op.kind === 'send') this.sent(op, r, c);
      this.listener?.posted?.(op, c);
    } else if (k === WAIT && (item as P2pOp).kind !== 'send') {
      const op = item as RecvOp;
      const p = op.peer;
      if (p !== undefined && p.sentClock >= 0) this.took(r, c, p);
      const time = c[r] ?? 0;
      op.doneTime = time;
      op.doneIndex = i;
      this.listener?.received?.(op, time, i);
    }
    // Most runs ask for no point (one-sided passive-target accesses do): no Map lookup per step then.
    if (this.points.size !== 0) this.reached(r, c, i + 1);
    // At step 256 and every 4,096 after it (4,352, 8,448, ...): early enough that the call runs before TurboFan
    // compiles `step`, late enough that `step` has its feedback vector by then (V8 makes it after a function's
    // first few calls; what runs before collects no type feedback). Called first at step 4,096, it came after that
    // compile and threw the code away ("Insufficient type feedback", --trace-deopt): `step`, the largest function
    // of the replay, was compiled twice in every process (engine README, `engine5m`).
    if ((++this.steps & 4095) === 256) this.listener?.progress?.();
  }

  /*
   * The rare kinds of step out of line (`nonblockingColl`, `reached`): `step` runs for every step and is
   * inlined by the causal run's `ranStep` as far as TurboFan's budget goes; what it never runs on most jobs
   * took that budget (callgrind of the warm engine, engine README `races64`).
   */

  /** The start (ISTART) or completion (IDONE) of a nonblocking collective by rank `r`, whose clock is `c`. */
  private nonblockingColl(r: number, c: Int32Array, k: StepKind, s: CollStep): void {
    const key = instanceKey(s.comm, s.index);
    let inst = this.started.get(key);
    if (inst === undefined) this.started.set(key, (inst = { clocks: [], done: 0 }));
    if (k === ISTART) {
      inst.clocks.push(c.slice());
      this.leftAt[r] = c[r] as number;
    } else {
      for (const at of inst.clocks) merge(c, at);
      this.moved(r);
      if (++inst.done >= s.comm.size) this.started.delete(key);
    }
  }

  /** Rank `r` ran `k` steps, its clock now `c`: the point's clock, if a check asked for it. */
  private reached(r: number, c: Int32Array, k: number): void {
    const m = this.points.get(r);
    if (m !== undefined && m.has(k)) m.set(k, c.slice());
  }
}

/**
 * The completion of `recv` happened before a point whose clock is `at` (the rank there had heard, through
 * messages and collectives, of the receive having completed). False when the receive has not run (then it
 * cannot be before anything that ran).
 */
export function completedBefore(recv: RecvOp, at: Int32Array): boolean {
  const t = recv.doneTime;
  return t !== undefined && (at[recv.rank] ?? 0) >= t;
}
