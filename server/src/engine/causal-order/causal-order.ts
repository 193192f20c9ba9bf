/**
 * Runs the ranks' recorded steps (replay.ts) in an order where every step comes after its causes: a wait for
 * a receive after the post of the send it took, a collective after every member arrived at it, and — when
 * sends are synchronous — a wait for a send after the post of its receive. Nonblocking collectives: in the
 * happened-before run (sends not synchronous) a member's completion comes after every member's start; the
 * zero-buffering replay orders nothing by them (a member may start one and complete it much later).
 *
 * Incremental, so that memory follows what is pending and not the run's length: steps are added as the
 * ranks' streams bring them, each rank runs as far as it can (until it blocks, and is woken by the step that
 * releases it: linear in the steps), and a step is dropped once it ran. A wait whose partner is not known
 * yet (the other rank's stream is behind) blocks until the match arrives (matched()) or the run ends (end():
 * then it never will, and the wait does not block, as MPI completed it). A rank blocked on a step that only
 * other forever-blocked ranks could release is dead: nothing that arrives later can run, so its later steps
 * are not kept (its blocking step is, for the finding that names it).
 */
import type { P2pOp } from '../model/ops';
import { objectArray } from '../model/elements';
import {
  IDONE,
  instanceKey,
  ISTART,
  POST,
  WAIT,
  stepOf,
  StepRing,
  type CollStep,
  type InstanceKey,
  type Step,
  type StepItem,
  type StepKind,
} from './steps';

export interface CausalVisitor {
  /** A step runs (`item`: the operation of a POST or WAIT, else the CollStep); `index`: its position in its rank's steps. */
  step?(rank: number, kind: StepKind, item: StepItem, index: number): void;
  /** Every member of a collective instance has arrived (before any of them runs the step). */
  collective?(members: readonly number[]): void;
}

/** What a rank's reused parks point at before their first use. */
const NO_OP = { rank: -1 } as unknown as P2pOp;

/**
 * Why a rank is not running: what wakes it. A rank waits on one thing at a time, so each rank has one park of
 * each kind, refilled when it waits (`RankRun.onMatch`, `onPost`, `onColl`, `onStart`): a wait that blocks
 * allocates nothing. One class for the four kinds: code that reads a rank's park (`unparkMatch`, `ranStep`,
 * `blocked`, `schedule`) sees one map, where four object literals of four shapes made the first collective's
 * park throw that code away in the first engine (a "wrong map" deopt, and a recompilation of each).
 */
class Park {
  /** The operation waited for: its match (`match`) or its post (`post`). */
  op: P2pOp = NO_OP;
  /** The rank that posts `op` (`post`). */
  by = -1;
  /** The collective instance waited on (`coll`: its members' arrival; `start`: its members' start). */
  key: InstanceKey = 0;
  constructor(readonly k: 'match' | 'post' | 'coll' | 'start') {}
}

interface RankRun {
  readonly rank: number;
  /** Steps not run yet: (kind, item) pairs in a ring (steps.ts), no object per step. */
  readonly steps: StepRing;
  /** Steps run so far: the index of the next one. */
  ran: number;
  park: Park | undefined;
  queued: boolean;
  dead: boolean;
  readonly onMatch: Park;
  readonly onPost: Park;
  readonly onColl: Park;
  readonly onStart: Park;
}

/**
 * Each causal run's two bits in `P2pOp.ran`: the low one set when that run ran the operation's post, the high one
 * when a rank of that run parked waiting for that post (only then does the post look for a rank to wake).
 */
let nextBit = 1;

export class CausalRun {
  /** By world rank. */
  private readonly ranks: (RankRun | undefined)[] = objectArray();
  private readonly ready: RankRun[] = objectArray();
  /** This run's bit in `P2pOp.ran`: the operation's post ran. */
  private readonly bit: number;
  /** This run's other bit in `P2pOp.ran`: a rank parked on the operation's post (`blocked`). */
  private readonly waitBit: number;
  /**
   * Posted sends whose receive had not been posted when they ran (the zero-buffering replay's only), kept for the
   * potential-deadlock finding's wildcard check, which reads them once at the end (`openSends()`). An array
   * appended to and compacted when it doubles, not a Set: a Set added and deleted every send (~1.4% of the
   * engine) for a question asked once. Whether a send is still open is read off its receive (`posted`).
   */
  private readonly sendsRun: P2pOp[] = objectArray();
  /**
   * `sendsRun`'s length after its last compaction: the next one comes when it has doubled (plus 1,024). -1 until
   * the first, which comes at 16 sends: early, while `ranStep` still runs in the interpreter, so that the compaction
   * has type feedback when TurboFan compiles `ranStep` and `advance`; at 1,024 it came after that compile and
   * threw the code away (--trace-deopt: `advance` compiled again in every process; engine README, `engine5m`).
   */
  private sendsKept = -1;
  /** Collective instance → the members that arrived (until all did). */
  private readonly arrived = new Map<InstanceKey, RankRun[]>();
  /** Collective instances every member reached → members still to run the step. */
  private readonly open = new Map<InstanceKey, number>();
  /** Nonblocking collective instance → members that started it, and the ranks waiting to complete it. */
  private readonly started = new Map<InstanceKey, number>();
  private readonly waitingStart = new Map<InstanceKey, RankRun[]>();
  /** Nonblocking collective instances every member started → members that completed it. */
  private readonly completed = new Map<InstanceKey, number>();
  /** Steps added and not run (dead ranks' dropped ones excluded): the memory this run holds. */
  held = 0;
  private ended = false;

  constructor(
    private readonly synchronousSends: boolean,
    private readonly visit: CausalVisitor = {},
  ) {
    // Two runs per engine (zero-buffering, clocks), a few engines per process in tests: the bits wrap around
    // after 15 runs, which only matters if runs of two engines shared operations (they never do).
    this.bit = nextBit;
    this.waitBit = nextBit << 1;
    nextBit = nextBit === 1 << 28 ? 1 : nextBit << 2;
  }

  private of(rank: number): RankRun {
    let q = this.ranks[rank];
    if (q === undefined)
      this.ranks[rank] = q = {
        rank,
        steps: new StepRing(),
        ran: 0,
        park: undefined,
        queued: false,
        dead: false,
        onMatch: new Park('match'),
        onPost: new Park('post'),
        onColl: new Park('coll'),
        onStart: new Park('start'),
      };
    return q;
  }

  /** The next step of the rank's program (its call order): it runs, with what it releases, if it can. */
  add(rank: number, kind: StepKind, item: StepItem): void {
    const q = this.of(rank);
    if (q.dead) return;
    // A rank with nothing held, not waiting and not queued, while no rank is queued (every add and match ends
    // with run(), which empties the queue): run() would take this rank first and run this step now. It runs here,
    // and is stored only if it blocks — most steps, in a run whose ranks keep up, are never stored.
    if (q.steps.size === 0 && q.park === undefined && !q.queued && this.ready.length === 0) {
      const park = kind === POST ? undefined : this.blocked(q, kind, item);
      if (park === undefined) {
        this.ranStep(q, kind, item);
        // The step may have woken a rank parked on its post.
        this.run();
        return;
      }
      if (park !== true) q.park = park;
      q.steps.push(kind, item);
      this.held++;
      return;
    }
    q.steps.push(kind, item);
    this.held++;
    this.schedule(q);
    this.run();
  }

  /** A send and its receive were matched (their `peer` set): a rank waiting to know either's partner can go on. */
  matched(s: P2pOp, r: P2pOp): void {
    this.unparkMatch(s);
    this.unparkMatch(r);
    this.run();
  }

  /**
   * The sends whose post ran and whose receive's post has not (not matched yet, or its receive not reached):
   * what a stuck wildcard receive could have taken instead.
   */
  openSends(): readonly P2pOp[] {
    this.compactSends();
    return this.sendsRun;
  }

  /** Drops the sends whose receive's post ran since (they are no longer open). */
  private compactSends(): void {
    const l = this.sendsRun;
    let n = 0;
    for (let i = 0; i < l.length; i++) {
      const s = l[i] as P2pOp;
      const p = s.peer;
      if (p === undefined || !this.posted(p)) l[n++] = s;
    }
    l.length = n;
    this.sendsKept = n;
  }

  private unparkMatch(op: P2pOp): void {
    const q = this.ranks[op.rank];
    if (q?.park?.k !== 'match' || q.park.op !== op) return;
    q.park = undefined;
    this.schedule(q);
  }

  /** Runs every rank as far as it can. */
  run(): void {
    // Called after every step and match, and nearly always with nothing queued.
    if (this.ready.length === 0) return;
    for (let q = this.ready.pop(); q !== undefined; q = this.ready.pop()) {
      q.queued = false;
      this.advance(q);
    }
  }

  /** The run is over: no more steps or matches will come. Runs what can still run. */
  end(): void {
    this.ended = true;
    for (const q of this.ranks) {
      if (q?.park?.k !== 'match') continue;
      q.park = undefined;
      this.schedule(q);
    }
    this.run();
  }

  /** Each rank's step count run so far, and the step it is stuck at (undefined when it ran all it had). */
  position(rank: number): { readonly ran: number; readonly at: Step | undefined } {
    const q = this.ranks[rank];
    if (q === undefined) return { ran: 0, at: undefined };
    const item = q.steps.firstItem();
    return { ran: q.ran, at: item === undefined ? undefined : stepOf(q.steps.firstKind(), item) };
  }

  rankList(): number[] {
    return this.ranks.flatMap((q) => (q === undefined ? [] : [q.rank]));
  }

  /** Whether the post of this operation ran. */
  posted(op: P2pOp): boolean {
    return ((op.ran as number) & this.bit) !== 0;
  }

  /**
   * Finds the ranks blocked for good and drops the steps they hold behind their blocking one. A rank can still
   * move when it is not blocked (it may get more steps), waits for a match still to come, or waits for a rank
   * that can move (the poster of the send or receive it needs; a member yet to arrive at its collective;
   * a rank never heard from). The rest wait on each other only: they are dead, and stay so.
   * Returns how many ranks are dead.
   */
  trimDead(): number {
    const alive = (q: RankRun | undefined): boolean => q === undefined || (!q.dead && q.park === undefined);
    const live = new Set<number>();
    const parked: RankRun[] = [];
    for (const q of this.ranks) {
      if (q === undefined || q.dead) continue;
      if (alive(q) || q.park?.k === 'match') live.add(q.rank);
      else parked.push(q);
    }
    const canMove = (q: RankRun): boolean => {
      const p = q.park;
      if (p === undefined || p.k === 'match') return true;
      if (p.k === 'post') return live.has(p.by) || this.ranks[p.by] === undefined;
      const item = q.steps.firstItem();
      const k = q.steps.firstKind();
      if (item === undefined || k === POST || k === WAIT) return true;
      const s = item as CollStep;
      if (p.k === 'start') return s.comm.members.some((m) => live.has(m) || this.ranks[m] === undefined);
      const there = new Set((this.arrived.get(p.key) ?? []).map((m) => m.rank));
      return s.comm.members.some((m) => !there.has(m) && (live.has(m) || this.ranks[m] === undefined));
    };
    for (let changed = true; changed;) {
      changed = false;
      for (const q of parked) {
        if (live.has(q.rank) || !canMove(q)) continue;
        live.add(q.rank);
        changed = true;
      }
    }
    let dead = 0;
    for (const q of parked) {
      if (live.has(q.rank)) continue;
      dead++;
      q.dead = true;
      this.held -= q.steps.size - 1;
      q.steps.truncate(1);
    }
    return dead;
  }

  private schedule(q: RankRun): void {
    if (q.park !== undefined || q.queued || q.dead || q.steps.size === 0) return;
    q.queued = true;
    this.ready.push(q);
  }

  private advance(q: RankRun): void {
    while (q.steps.size !== 0) {
      const k = q.steps.firstKind();
      const item = q.steps.firstItem() as StepItem;
      // A post never waits: the runs of posts a parked rank queued go through without a decision.
      const park = k === POST ? undefined : this.blocked(q, k, item);
      if (park !== undefined) {
        if (park !== true) q.park = park;
        break;
      }
      this.ranStep(q, k, item);
      q.steps.shift();
      this.held--;
    }
  }

  /** The rank's next step, which can run (`blocked` said so), runs: what it tells and whom it wakes. */
  private ranStep(q: RankRun, k: StepKind, item: StepItem): void {
    this.visit.step?.(q.rank, k, item, q.ran);
    if (k === POST) {
      const op = item as P2pOp;
      const ran = op.ran as number;
      op.ran = ran | this.bit;
      if (this.synchronousSends && op.kind === 'send') {
        const p = op.peer;
        if (p === undefined || !this.posted(p)) {
          this.sendsRun.push(op);
          // Bounded by twice what is open (plus a constant): most of these receives are posted soon.
          if (this.sendsRun.length >= (this.sendsKept < 0 ? 16 : 2 * this.sendsKept + 1024))
            this.compactSends();
        }
      }
      // The partner's rank may be waiting for this post: only if it said so (its park set the bit), which
      // spares every other post a read of the partner's rank and its park.
      if ((ran & this.waitBit) !== 0) {
        const p = op.peer;
        const w = p === undefined ? undefined : this.ranks[p.rank];
        if (w?.park?.k === 'post' && w.park.op === op) {
          w.park = undefined;
          this.schedule(w);
        }
      }
    } else if (k === ISTART && !this.synchronousSends) this.startedColl(item as CollStep);
    q.ran++;
  }

  /** A member started a nonblocking collective (the clock run's): once all did, its waiting members go on. */
  private startedColl(s: CollStep): void {
    const key = instanceKey(s.comm, s.index);
    const count = (this.started.get(key) ?? 0) + 1;
    this.started.set(key, count);
    if (count >= s.comm.size) this.wakeAll(this.waitingStart, key);
  }

  private wakeAll<K>(waiting: Map<K, RankRun[]>, key: K): void {
    const l = waiting.get(key);
    if (l === undefined) return;
    waiting.delete(key);
    for (const q of l) {
      q.park = undefined;
      this.schedule(q);
    }
  }

  private park<K>(waiting: Map<K, RankRun[]>, key: K, q: RankRun): void {
    const l = waiting.get(key);
    if (l === undefined) waiting.set(key, [q]);
    else l.push(q);
  }

  /** Undefined when the step can run; else why the rank waits (true: parked already, as a collective's member). */
  private blocked(q: RankRun, k: StepKind, item: StepItem): Park | true | undefined {
    if (k === POST || k === ISTART) return undefined;
    if (k === WAIT) {
      const op = item as P2pOp;
      if (op.kind === 'send' && !this.synchronousSends) return undefined;
      const p = op.peer;
      if (p === undefined) {
        if (this.ended) return undefined;
        q.onMatch.op = op;
        return q.onMatch;
      }
      if (this.posted(p)) return undefined;
      p.ran = (p.ran as number) | this.waitBit;
      q.onPost.op = p;
      q.onPost.by = p.rank;
      return q.onPost;
    }
    return this.blockedColl(q, k, item as CollStep);
  }

  /**
   * `blocked` for the collective kinds (COLL, IDONE), out of line: `blocked` runs for every wait of both runs
   * and is inlined where it is small (see ClockRun's `nonblockingColl`).
   */
  private blockedColl(q: RankRun, k: StepKind, s: CollStep): Park | true | undefined {
    const key = instanceKey(s.comm, s.index);
    if (k === IDONE) {
      if (this.synchronousSends) return undefined;
      if ((this.started.get(key) ?? 0) >= s.comm.size) {
        // Every member completes it once: then the instance is forgotten.
        const done = (this.completed.get(key) ?? 0) + 1;
        if (done >= s.comm.size) {
          this.completed.delete(key);
          this.started.delete(key);
        } else this.completed.set(key, done);
        return undefined;
      }
      this.park(this.waitingStart, key, q);
      q.onStart.key = key;
      return q.onStart;
    }
    const left = this.open.get(key);
    if (left !== undefined) {
      if (left <= 1) this.open.delete(key);
      else this.open.set(key, left - 1);
      return undefined;
    }
    let who = this.arrived.get(key);
    if (who === undefined) this.arrived.set(key, (who = []));
    who.push(q);
    if (who.length < s.comm.size) {
      q.onColl.key = key;
      q.park = q.onColl;
      return true;
    }
    this.arrived.delete(key);
    this.visit.collective?.(who.map((m) => m.rank));
    if (who.length > 1) this.open.set(key, who.length - 1);
    for (const m of who) {
      if (m === q) continue;
      m.park = undefined;
      this.schedule(m);
    }
    return undefined;
  }
}
