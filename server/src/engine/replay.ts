/**
 * Potential deadlocks: a run that completed may still hang where MPI does not buffer standard-mode sends
 * (larger messages, another library). The engine keeps each rank's blocking steps with the real matching,
 * then replays them with every standard send synchronous (it completes only once its receive is posted).
 * If the replay gets stuck on such sends, the run completed only thanks to buffering.
 */
import type { CommInfo } from './comms';
import { describeOp } from './describe';
import type { EngineFinding, RawLocation } from './types';
import type { P2pOp, RecvOp, SendOp } from './ops';

export type Step =
  | { readonly k: 'post'; readonly op: P2pOp }
  | { readonly k: 'wait'; readonly op: P2pOp }
  | { readonly k: 'coll'; readonly comm: CommInfo; readonly index: number };

/** Beyond this many steps the replay is given up (memory stays bounded on long runs). */
const MAX_STEPS = 2_000_000;

export class Replay {
  /** Each rank's steps in its call order (read by the race check too). */
  readonly steps = new Map<number, Step[]>();
  /** Send ↔ receive, as matched in the run. */
  readonly peer = new Map<P2pOp, P2pOp>();
  private count = 0;
  enabled = true;

  private add(rank: number, step: Step): void {
    if (!this.enabled) return;
    if (++this.count > MAX_STEPS) {
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

  matched(s: SendOp, r: RecvOp): void {
    if (!this.enabled) return;
    this.peer.set(s, r);
    this.peer.set(r, s);
  }

  /** Replays with synchronous standard sends; a finding when that gets stuck on them. */
  run(): EngineFinding | undefined {
    if (!this.enabled) return undefined;
    const ranks = [...this.steps.keys()].sort((a, b) => a - b);
    const pos = new Map<number, number>(ranks.map((r) => [r, 0]));
    const posted = new Set<P2pOp>();
    const arrived = new Map<string, number>();
    const here = new Map<number, boolean>(); // arrived at its current collective step already
    const can = (rank: number, s: Step): boolean => {
      if (s.k === 'post') return true;
      if (s.k === 'wait') {
        const p = this.peer.get(s.op);
        return p === undefined || posted.has(p);
      }
      const key = `${s.comm.id}:${s.index}`;
      if (here.get(rank) !== true) {
        arrived.set(key, (arrived.get(key) ?? 0) + 1);
        here.set(rank, true);
      }
      return (arrived.get(key) ?? 0) >= s.comm.size;
    };
    for (let progress = true; progress;) {
      progress = false;
      for (const r of ranks) {
        const steps = this.steps.get(r) ?? [];
        let i = pos.get(r) ?? 0;
        while (i < steps.length) {
          const s = steps[i] as Step;
          if (!can(r, s)) break;
          if (s.k === 'post') posted.add(s.op);
          here.set(r, false);
          i++;
          progress = true;
        }
        pos.set(r, i);
      }
    }
    const stuck = ranks
      .map((r) => ({ r, s: this.steps.get(r)?.[pos.get(r) ?? 0] }))
      .filter((x): x is { r: number; s: Step } => x.s !== undefined);
    const sends = stuck.filter(
      (x) => x.s.k === 'wait' && x.s.op.kind === 'send' && x.s.op.mode === 'standard',
    );
    if (sends.length === 0) return undefined;
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
    return {
      kind: 'potential-deadlock',
      severity: 'warning',
      message: `Potential deadlock: this run completed only because MPI buffered standard-mode sends. Without buffering (larger messages, another MPI library) ${ring.join(', ')} to post the receive. Post the receives first with MPI_Irecv, or use MPI_Sendrecv or MPI_Isend.`,
      locations,
    };
  }
}
