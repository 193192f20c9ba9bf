/**
 * Potential deadlocks: a run that completed may still hang where MPI does not buffer standard-mode sends
 * (larger messages, another library). The engine runs each rank's blocking steps with the real matching as
 * they come, with every standard send synchronous (it completes only once its receive is posted), keeping
 * only the steps that could not run yet. If the replay is stuck on such sends at the end, the run completed
 * only thanks to buffering.
 */
import { CausalRun } from './causal-order';
import { ClockRun, MAX_RANKS } from './causal-clocks';
import type { CommInfo } from '../model/comms';
import { describeOp } from '../model/describe';
import { ANY_SOURCE, ANY_TAG, type EngineFinding, type RawLocation } from '../model/types';
import type { P2pOp, RecvOp, SendOp } from '../model/ops';
import { objectArray } from '../model/elements';
import {
  COLL,
  IDONE,
  ISTART,
  POST,
  WAIT,
  type CollStep,
  type PeerOf,
  type Step,
  type StepItem,
  type StepKind,
} from './steps';

export type { Step } from './steps';

/**
 * The most steps the replay holds at once (not run yet, because a rank's partner is behind, or its match or a
 * collective's member has not arrived). Beyond it the replay is given up, and the checks built on it are named
 * as skipped: memory stays bounded when a run holds more than that pending.
 */
export const MAX_STEPS = 2_000_000;

/**
 * Send ↔ receive, read off the operations. One object for every engine, not one per Replay: code the JIT
 * compiled for the first engine of a process calls these functions, and another engine's own closures were
 * other call targets (a deopt and a recompilation of each caller).
 */
const PEER: PeerOf = { get: (op) => op.peer, has: (op) => op.peer !== undefined };

/**
 * Each rank's blocking steps, run as they come by two causal runs: with standard sends synchronous (the
 * zero-buffering replay, for potential deadlocks) and with vector clocks (causal-clocks.ts, for the checks
 * that ask what happened before what). A step is held until both ran it; then only what the checks chose to
 * keep remains.
 */
export class Replay {
  /** Send ↔ receive, as matched in the run (on the operations: `P2pOp.peer`). */
  readonly peer: PeerOf = PEER;
  private sync: CausalRun | undefined;
  /** Happened-before; undefined beyond MAX_RANKS ranks, or once the replay is given up. */
  clocks: ClockRun | undefined;
  /**
   * Each rank's latest step, held back until the rank's next one (or the end): the checks fed by the clock
   * run learn what they need about a call at its ENTER and EXIT (a buffered send's size, its failure), after
   * its steps were recorded.
   */
  private staged: (StepItem | undefined)[] = objectArray();
  /** The kind of each rank's staged step (steps are (kind, item) pairs, steps.ts). */
  private stagedKind: StepKind[] = [];
  /** Steps recorded per rank: a point in its history (one-sided races ask for clocks there). By world rank. */
  private readonly recorded: number[] = [];
  /** The last communicator whose members all fit in a clock (MAX_RANKS). */
  private narrowComm: CommInfo | undefined;
  /** When to look for ranks blocked for good next (see CausalRun.trimDead). */
  private nextTrim: number;
  enabled = true;
  /** Receives with MPI_ANY_SOURCE that took a message: without any, there is no message race to look for. */
  wildcardMatches = 0;
  /** The most steps held at once so far (for the memory benchmark and the README's numbers). */
  peakHeld = 0;

  /** `maxSteps`: the most steps held at once; beyond it the replay is given up (and its checks named). */
  constructor(
    worldSize: number,
    private readonly maxSteps = MAX_STEPS,
  ) {
    this.nextTrim = Math.min(maxSteps, 65_536);
    this.sync = new CausalRun(true);
    if (worldSize <= MAX_RANKS) this.clocks = new ClockRun(Math.max(worldSize, 1));
  }

  private add(rank: number, kind: StepKind, item: StepItem): void {
    if (!this.enabled) return;
    // Arrays by world rank, not Maps: this runs for every post and wait of every rank.
    while (this.recorded.length <= rank) {
      this.recorded.push(0);
      this.staged.push(undefined);
      this.stagedKind.push(POST);
    }
    this.recorded[rank] = (this.recorded[rank] as number) + 1;
    const prev = this.staged[rank];
    const prevKind = this.stagedKind[rank] as StepKind;
    this.staged[rank] = item;
    this.stagedKind[rank] = kind;
    if (prev !== undefined) this.release(rank, prevKind, prev);
  }

  private release(rank: number, kind: StepKind, item: StepItem): void {
    // A clock has a component per rank: beyond MAX_RANKS none is kept (a communicator naming such a rank:
    // `collStaged`).
    if (this.clocks !== undefined && rank >= MAX_RANKS) this.clocks = undefined;
    this.sync?.add(rank, kind, item);
    this.clocks?.run.add(rank, kind, item);
    const held = (this.sync?.held ?? 0) + (this.clocks?.run.held ?? 0);
    if (held > this.peakHeld) this.peakHeld = held;
    if (held <= this.nextTrim) return;
    // Ranks blocked for good (the zero-buffering replay stuck on sends the run had buffered) hold every later
    // step: drop them, then give up only if that was not enough.
    this.sync?.trimDead();
    this.clocks?.trimDead();
    const after = (this.sync?.held ?? 0) + (this.clocks?.run.held ?? 0);
    if (after > this.maxSteps) {
      this.enabled = false;
      this.sync = undefined;
      this.clocks = undefined;
      this.staged = objectArray();
      this.stagedKind = [];
      return;
    }
    this.nextTrim = Math.min(this.maxSteps, Math.max(65_536, 2 * after));
  }

  /**
   * The rank's held-back step runs now, its call having exited: the rank is in a call that makes no step (a
   * one-sided access), and in one thread's order (no call of another thread still to exit), so nothing more is
   * learned of that step. One-sided races ask for the rank's clock there, which would otherwise wait for the rank's
   * next step — none, in a loop of MPI_Win_lock, MPI_Put and MPI_Win_unlock.
   */
  releaseStaged(rank: number): void {
    if (!this.enabled) return;
    const item = this.staged[rank];
    if (item === undefined) return;
    this.staged[rank] = undefined;
    this.release(rank, this.stagedKind[rank] as StepKind, item);
  }

  /** The run is over: the held-back steps run, and waits whose match never came no longer block. */
  end(): void {
    if (!this.enabled) return;
    // By rank, in rank order (the order the held-back steps always ran in).
    const staged = this.staged;
    const kinds = this.stagedKind;
    this.staged = [];
    this.stagedKind = [];
    for (let rank = 0; rank < staged.length; rank++) {
      const item = staged[rank];
      if (item !== undefined) this.release(rank, kinds[rank] as StepKind, item);
    }
    this.sync?.end();
    this.clocks?.end();
  }

  post(op: P2pOp): void {
    this.add(op.rank, POST, op);
  }

  /** The rank waits for this operation to complete (blocking call, or Wait/Test that completed it). */
  wait(op: P2pOp): void {
    // Buffered and ready sends do not wait for their receive, even in a library that buffers nothing.
    if (op.kind === 'send' && (op.fn.mode === 'buffered' || op.fn.mode === 'ready')) return;
    if (op.kind === 'probe') return;
    this.add(op.rank, WAIT, op);
  }

  /** Asks for the rank's clock once it ran `k` steps (see ClockRun.watch). */
  watch(rank: number, k: number): void {
    this.clocks?.watch(rank, k);
  }

  /** The clock asked for with watch(), once the clock run got there; undefined otherwise. */
  clockAt(rank: number, k: number): Int32Array | undefined {
    return this.clocks?.at(rank, k);
  }

  /** The point asked for with watch() is no longer needed (its clock is let go). */
  unwatch(rank: number, k: number): void {
    this.clocks?.unwatch(rank, k);
  }

  /** The rank's clock as far as the clock run got (its steps run so far), owned by the run; undefined without clocks. */
  clockNow(rank: number): Int32Array | undefined {
    return this.clocks?.clock(rank);
  }

  /** How many steps the rank has recorded so far: a point in its history (one-sided races' clocks). */
  position(rank: number): number {
    return this.recorded[rank] ?? 0;
  }

  collective(rank: number, comm: CommInfo, index: number, site: number, call: string): void {
    const coll: CollStep = { comm, index, site, call };
    this.collStaged(comm);
    this.add(rank, COLL, coll);
  }

  /** A nonblocking collective: `done` false when the call starts it, true when its request completes. */
  icollective(rank: number, comm: CommInfo, index: number, done: boolean): void {
    const coll: CollStep = { comm, index, site: 0, call: '' };
    this.collStaged(comm);
    this.add(rank, done ? IDONE : ISTART, coll);
  }

  /**
   * A collective step on `comm` is staged: no clocks are kept if a member is beyond MAX_RANKS. Asked only while
   * clocks are kept, and a communicator's members once in a row (every member's step of every collective asked
   * it: a walk of the whole job per rank per collective on MPI_COMM_WORLD). Here and not in `release`, which runs
   * for every step: there this branch first ran at the job's first collective, after TurboFan had compiled
   * `release` without it, and threw that code away (--trace-deopt; engine README, `engine5m`). The clocks are
   * now given up when the step is staged rather than when it is released, one step of its rank earlier.
   */
  private collStaged(comm: CommInfo): void {
    if (this.clocks === undefined || comm === this.narrowComm) return;
    if (comm.members.some((m) => m >= MAX_RANKS)) this.clocks = undefined;
    else this.narrowComm = comm;
  }

  matched(s: SendOp, r: RecvOp): void {
    if (!this.enabled) return;
    s.peer = r;
    r.peer = s;
    if (r.source === ANY_SOURCE) this.wildcardMatches++;
    this.sync?.matched(s, r);
    this.clocks?.run.matched(s, r);
  }

  /**
   * A wildcard receive the replay waits on while a send it accepts is posted and not taken: the replay holds
   * each receive to its match in the run, but without buffering this receive would have taken that send and
   * the run would have gone another way (the run's matching came from buffering): nothing can be concluded.
   */
  private couldTakeAnother(step: Step, run: CausalRun): boolean {
    if (step.k !== 'wait' || step.op.kind !== 'recv') return false;
    const r = step.op;
    if (r.source !== ANY_SOURCE && r.tag !== ANY_TAG) return false;
    for (const s of run.openSends()) {
      if (s.kind !== 'send' || s.dest !== r.rank || s.comm !== r.comm) continue;
      if ((r.source !== ANY_SOURCE && r.source !== s.srcCommRank) || (r.tag !== ANY_TAG && r.tag !== s.tag))
        continue;
      const taker = this.peer.get(s);
      if (taker !== r && (taker === undefined || !run.posted(taker))) return true;
    }
    return false;
  }

  /**
   * The zero-buffering replay's outcome (after end()): a finding when it got stuck although the run completed.
   * Every blocking step is synchronizing in it — a standard send (blocking, or an Isend at its Wait/Test)
   * until its receive is posted, a collective until every member entered it — so a stuck replay means the run
   * completed only because MPI buffered a send or let a collective return early on some rank (a Bcast's root,
   * a Reduce's non-roots, a Gather's senders…): another library, larger messages or another timing hang there.
   * One finding, with every stuck rank's line.
   */
  run(): EngineFinding | undefined {
    const run = this.sync;
    if (!this.enabled || run === undefined) return undefined;
    const stuck = run
      .rankList()
      .map((r) => ({ r, s: run.position(r).at }))
      .filter((x): x is { r: number; s: Step } => x.s !== undefined);
    if (stuck.length === 0) return undefined;
    if (stuck.some((x) => this.couldTakeAnother(x.s, run))) return undefined;
    const sends = stuck.some((x) => x.s.k === 'wait' && x.s.op.kind === 'send');
    const colls = stuck.some((x) => x.s.k === 'coll');
    const locations: RawLocation[] = [];
    const waits: string[] = [];
    for (const { r, s } of stuck) {
      if (s.k === 'coll') {
        const absent = s.comm.members.filter((m) => {
          const at = run.position(m).at;
          return !(at?.k === 'coll' && at.comm === s.comm && at.index === s.index);
        });
        const who = `rank${absent.length > 1 ? 's' : ''} ${absent.join(', ')}`;
        locations.push({
          rank: r,
          site: s.site,
          call: s.call,
          detail: `collective #${s.index + 1} on ${s.comm.name}: completes only once ${who} enter${absent.length > 1 ? '' : 's'} it`,
        });
        waits.push(`rank ${r} waits in ${s.call} (collective #${s.index + 1} on ${s.comm.name}) for ${who}`);
      } else if (s.k === 'wait' && s.op.kind === 'send') {
        const op = s.op;
        locations.push({
          rank: op.rank,
          site: op.site,
          call: op.fn.name,
          detail: `${describeOp(op)}: completes only if MPI buffers it`,
        });
        waits.push(`rank ${op.rank} waits in ${op.fn.name} for rank ${op.dest} to post the receive`);
      } else if (s.k === 'wait') {
        const op = s.op;
        const from = op.peer?.rank;
        locations.push({
          rank: op.rank,
          site: op.site,
          call: op.fn.name,
          detail: `${describeOp(op)}: its message is sent only after a call that blocks without buffering`,
        });
        waits.push(
          `rank ${op.rank} waits in ${op.fn.name} for ${from === undefined ? 'a send' : `rank ${from} to send`}`,
        );
      }
    }
    // Only stuck posts or nonblocking collective steps (never blocking): nothing to report.
    if (locations.length === 0) return undefined;
    const because = [
      ...(sends ? ['MPI buffered standard-mode sends'] : []),
      ...(colls ? ['a collective returned on some ranks before every member entered it'] : []),
    ];
    const fixes = [
      ...(sends ? ['post the receives first with MPI_Irecv, or use MPI_Sendrecv'] : []),
      ...(colls
        ? [
            'call the collectives in the same order on every rank, before or after the point-to-point exchange that depends on them',
          ]
        : []),
    ];
    return {
      kind: 'potential-deadlock',
      severity: 'warning',
      message: `Potential deadlock: this run completed only because ${because.join(' and ') || 'MPI let a call return early'}. Where it does not (larger messages, another MPI library, another timing) ${waits.join(', ')}. To fix: ${fixes.join('; ') || "order the calls so that each one's partner is reached without buffering"}.`,
      locations,
    };
  }
}
