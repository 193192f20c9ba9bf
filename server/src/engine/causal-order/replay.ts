/**
 * Potential deadlocks: a run that completed may still hang where MPI does not buffer standard-mode sends
 * (larger messages, another library). The engine keeps each rank's blocking steps with the real matching,
 * then replays them with every standard send synchronous (it completes only once its receive is posted).
 * If the replay gets stuck on such sends, the run completed only thanks to buffering.
 */
import { runCausally } from './causal-order';
import type { CommInfo } from '../model/comms';
import { describeOp } from '../model/describe';
import { ANY_SOURCE, ANY_TAG, type EngineFinding, type RawLocation } from '../model/types';
import type { P2pOp, RecvOp, SendOp } from '../model/ops';
import type { RecordedSteps, Step } from './steps';

export type { Step } from './steps';

/** Beyond this many steps the replay is given up (memory stays bounded on long runs). */
export const MAX_STEPS = 2_000_000;

export class Replay implements RecordedSteps {
  /** Each rank's steps in its call order (read by the race check too). */
  readonly steps = new Map<number, Step[]>();
  /** Send ↔ receive, as matched in the run. */
  readonly peer = new Map<P2pOp, P2pOp>();
  private count = 0;
  enabled = true;

  /** `maxSteps`: beyond it the replay is given up (and the checks built on it are named as skipped). */
  constructor(private readonly maxSteps = MAX_STEPS) {}
  /** Receives with MPI_ANY_SOURCE that took a message: without any, there is no message race to look for. */
  wildcardMatches = 0;

  private add(rank: number, step: Step): void {
    if (!this.enabled) return;
    if (++this.count > this.maxSteps) {
      this.enabled = false;
      this.steps.clear();
      this.peer.clear();
      return;
    }
    let l = this.steps.get(rank);
    if (l === undefined) this.steps.set(rank, (l = []));
    l.push(step);
  }

  post(op: P2pOp): void {
    this.add(op.rank, { k: 'post', op });
  }

  /** The rank waits for this operation to complete (blocking call, or Wait/Test that completed it). */
  wait(op: P2pOp): void {
    // Buffered and ready sends do not wait for their receive, even in a library that buffers nothing.
    if (op.kind === 'send' && (op.mode === 'buffered' || op.mode === 'ready')) return;
    if (op.kind === 'probe') return;
    this.add(op.rank, { k: 'wait', op });
  }

  /** How many steps the rank has recorded so far: a point in its history (happened-before.ts clocksAt). */
  position(rank: number): number {
    return this.steps.get(rank)?.length ?? 0;
  }

  collective(rank: number, comm: CommInfo, index: number): void {
    this.add(rank, { k: 'coll', comm, index });
  }

  /** A nonblocking collective: `done` false when the call starts it, true when its request completes. */
  icollective(rank: number, comm: CommInfo, index: number, done: boolean): void {
    this.add(rank, { k: done ? 'idone' : 'istart', comm, index });
  }

  matched(s: SendOp, r: RecvOp): void {
    if (!this.enabled) return;
    this.peer.set(s, r);
    this.peer.set(r, s);
    if (r.source === ANY_SOURCE) this.wildcardMatches++;
  }

  /**
   * A wildcard receive the replay waits on while a send it accepts is posted and not taken: the replay holds
   * each receive to its match in the run, but without buffering this receive would have taken that send and
   * the run would have gone another way (the run's matching came from buffering): nothing can be concluded.
   */
  private couldTakeAnother(step: Step, posted: ReadonlySet<P2pOp>): boolean {
    if (step.k !== 'wait' || step.op.kind !== 'recv') return false;
    const r = step.op;
    if (r.source !== ANY_SOURCE && r.tag !== ANY_TAG) return false;
    for (const s of posted) {
      if (s.kind !== 'send' || s.dest !== r.rank || s.comm !== r.comm) continue;
      if ((r.source !== ANY_SOURCE && r.source !== s.srcCommRank) || (r.tag !== ANY_TAG && r.tag !== s.tag))
        continue;
      const taker = this.peer.get(s);
      if (taker !== r && (taker === undefined || !posted.has(taker))) return true;
    }
    return false;
  }

  /** Replays with synchronous standard sends; a finding when that gets stuck on them. */
  run(): EngineFinding | undefined {
    if (!this.enabled) return undefined;
    const { at: pos, posted } = runCausally(this, true);
    const ranks = [...pos.keys()];
    const stuck = ranks
      .map((r) => ({ r, s: this.steps.get(r)?.[pos.get(r) ?? 0] }))
      .filter((x): x is { r: number; s: Step } => x.s !== undefined);
    const sends = stuck.filter(
      (x) => x.s.k === 'wait' && x.s.op.kind === 'send' && x.s.op.mode === 'standard',
    );
    if (sends.length === 0) return undefined;
    if (stuck.some((x) => this.couldTakeAnother(x.s, posted))) return undefined;
    const locations: RawLocation[] = sends.map(({ s }) => {
      const op = (s as { op: SendOp }).op;
      return {
        rank: op.rank,
        site: op.site,
        call: op.fn.name,
        detail: `${describeOp(op)}: completes only if MPI buffers it`,
      };
    });
    const ring = sends.map(({ s }) => {
      const op = (s as { op: SendOp }).op;
      return `rank ${op.rank} waits in ${op.fn.name} for rank ${op.dest}`;
    });
    // Ranks stuck in a collective are why a receive is never posted (a send before a collective that its
    // receiver enters before receiving): say which members each one waits for, or the send alone is a riddle.
    const inCollective = stuck.flatMap(({ r, s }) => {
      if (s.k !== 'coll') return [];
      const absent = s.comm.members.filter((m) => {
        const at = this.steps.get(m)?.[pos.get(m) ?? 0];
        return !(at?.k === 'coll' && at.comm === s.comm && at.index === s.index);
      });
      return [
        `rank ${r} waits in collective #${s.index + 1} on ${s.comm.name} for rank${absent.length > 1 ? 's' : ''} ${absent.join(', ')}`,
      ];
    });
    const meanwhile = inCollective.length > 0 ? `, while ${inCollective.join(', ')}` : '';
    return {
      kind: 'potential-deadlock',
      severity: 'warning',
      message: `Potential deadlock: this run completed only because MPI buffered standard-mode sends. Without buffering (larger messages, another MPI library) ${ring.join(', ')} to post the receive${meanwhile}. Post the receives first with MPI_Irecv, or use MPI_Sendrecv or MPI_Isend.`,
      locations,
    };
  }
}
