/**
 * buffer-overlap of the one kind whose harm can be decided: a blocking send reads memory that a pending receive
 * of its rank will write. MPI forbids any access to a pending receive's buffer (MPI-3.1 §3.7.2), so it is always
 * reported; but the result depends on timing only when the message that fills the receive could arrive while the
 * send still reads. When that message was sent after the send had been posted, in happened-before order (it was
 * sent by a rank that had heard of this send, through this send's own message or a later one), no data can reach
 * the receive's buffer before the send's data was taken: ScaLAPACK's BLACS do exactly this in their combine
 * operations (an MPI_Irecv of the answer into the buffer whose contribution MPI_Send then sends up the tree). That
 * case is a warning, the rest an error as before.
 *
 * The receive's match is known only when its rank's stream says so, and happened-before only when the clock run
 * (causal-clocks.ts) gets there, so the overlap is judged then: the send's own tick when the run reaches its
 * post, each send into a watched rank's component of the clock when the run reaches its post, the verdict when it
 * reaches the receive's completion. What the run never reached (clocks given up, a deadlock, the receive never
 * completed) is reported at the end as the error it was before this check existed.
 */
import type { ClockListener } from '../causal-order/causal-clocks';
import type { P2pOp, RecvOp, SendOp } from '../model/ops';
import type { EngineFinding, RawLocation } from '../model/types';
import { overlapError, overlapHead, type HoldFinding } from './overlap-finding';

/**
 * Beyond this many judgments waiting at once, an overlap of a pair of call sites that has one waiting already is not
 * judged (that one's verdict will come), and one of a pair that has none is reported at once as an error.
 */
export const MAX_WAITING = 4096;

interface Judgment {
  readonly send: SendOp;
  readonly recv: RecvOp;
  readonly bytes: number;
  /** The send's rank's component of its clock when the clock run posted the send; -1 until then. */
  tick: number;
  readonly key: string;
}

/** How the overlaps of one pair of sites were reported so far. */
const enum Seen {
  Warned = 1,
  Errored = 2,
}

export class RecvBufferReads implements ClockListener {
  private readonly byRecv = new Map<RecvOp, Judgment>();
  private readonly bySend = new Map<SendOp, Judgment>();
  /** Per rank with a watched receive: how many, and each send into it posted since, with that rank's component. */
  private readonly into = new Map<number, { watching: number; sends: Map<SendOp, number> }>();
  private readonly seen = new Map<string, Seen>();
  /** How many judgments wait, per pair of call sites. */
  private readonly waiting = new Map<string, number>();

  constructor(
    /** Whether the clock run is there to decide (vector clocks kept); read at each overlap. */
    private readonly clocksKept: () => boolean,
    private readonly report: (f: EngineFinding) => void,
    /** Warnings are held and merged across ranks (the same call sites on every rank: one finding). */
    private readonly hold: HoldFinding,
  ) {}

  /** A blocking send `send` reads `bytes` that the pending receive `recv` of its rank writes. */
  overlap(send: SendOp, recv: RecvOp, bytes: number): void {
    const key = `${send.rank}:${recv.site}:${send.site}`;
    if (this.seen.get(key) === Seen.Errored || this.byRecv.has(recv) || this.bySend.has(send)) return;
    const full = this.byRecv.size >= MAX_WAITING;
    if (full && this.waiting.has(key)) return;
    if (!this.clocksKept() || full) {
      this.decide({ send, recv, bytes, tick: -1, key }, undefined);
      return;
    }
    const j: Judgment = { send, recv, bytes, tick: -1, key };
    this.byRecv.set(recv, j);
    this.bySend.set(send, j);
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    let w = this.into.get(recv.rank);
    if (w === undefined) this.into.set(recv.rank, (w = { watching: 0, sends: new Map() }));
    w.watching++;
  }

  /**
   * Every post of the clock run comes here (and `received`, every receive), nearly always to nothing: the guard
   * here, the work out of line, so that the clock run's step inlines a few loads (engine README, `races64`).
   */
  posted(op: P2pOp, clock: Int32Array): void {
    if (op.kind !== 'send' || (this.bySend.size === 0 && this.into.size === 0)) return;
    this.postedSend(op, clock);
  }

  private postedSend(op: SendOp, clock: Int32Array): void {
    const j = this.bySend.get(op);
    if (j !== undefined) {
      j.tick = clock[op.rank] ?? 0;
      this.bySend.delete(op);
    }
    this.into.get(op.dest)?.sends.set(op, clock[op.dest] ?? 0);
  }

  received(op: RecvOp): void {
    if (this.into.size !== 0) this.receivedInto(op);
  }

  private receivedInto(op: RecvOp): void {
    const w = this.into.get(op.rank);
    if (w === undefined) return;
    const peer = op.peer;
    const heard = peer?.kind === 'send' ? w.sends.get(peer) : undefined;
    if (peer !== undefined) w.sends.delete(peer as SendOp);
    const j = this.byRecv.get(op);
    if (j === undefined) return;
    this.forget(j);
    // The message that filled the receive was posted by a rank that had heard of this send's post.
    const after = j.tick >= 0 && heard !== undefined && heard >= j.tick;
    this.decide(j, after ? (peer as SendOp) : undefined);
  }

  end(): void {
    this.finish();
  }

  /** Reports what was never decided (the clock run did not get there): as errors. */
  finish(): void {
    for (const j of [...this.byRecv.values()]) {
      this.forget(j);
      this.decide(j, undefined);
    }
  }

  private forget(j: Judgment): void {
    const n = (this.waiting.get(j.key) ?? 1) - 1;
    if (n <= 0) this.waiting.delete(j.key);
    else this.waiting.set(j.key, n);
    this.byRecv.delete(j.recv);
    this.bySend.delete(j.send);
    const w = this.into.get(j.recv.rank);
    if (w !== undefined && --w.watching <= 0) this.into.delete(j.recv.rank);
  }

  /** `filler`: the send that filled the receive, posted after this send in happened-before order; else timing decides. */
  private decide(j: Judgment, filler: SendOp | undefined): void {
    const was = this.seen.get(j.key);
    if (was === Seen.Errored || (filler !== undefined && was === Seen.Warned)) return;
    this.seen.set(j.key, filler === undefined ? Seen.Errored : Seen.Warned);
    const { send, recv, bytes } = j;
    const error = overlapError(send, recv, bytes);
    if (filler === undefined) {
      this.report(error);
      return;
    }
    const sentAfter: RawLocation = {
      rank: filler.rank,
      site: filler.site,
      call: filler.fn.name,
      detail: `${filler.fn.name} sent the message the ${recv.fn.name} took, after it had heard of rank ${send.rank}'s ${send.fn.name}`,
    };
    const one = `${overlapHead(send, recv, bytes)}. MPI forbids any access to a pending receive's buffer, but here the message that fills it (rank ${filler.rank}'s ${filler.fn.name}) was sent only after rank ${filler.rank} had heard of this send: it cannot arrive while the send reads. Post the ${recv.fn.name} after the ${send.fn.name}, or receive into another buffer.`;
    // The same three call sites on other ranks (a tree's every leaf): one finding, a location per rank.
    this.hold(
      `recv-buffer-read|${send.fn.name}|${recv.fn.name}|${filler.fn.name}`,
      send.rank,
      [...error.locations, sentAfter],
      (ranks, locations) => ({
        kind: 'buffer-overlap',
        severity: 'warning',
        message:
          ranks.length === 1
            ? one
            : `On ranks ${ranks.join(', ')}, an ${send.fn.name} reads bytes that its rank's pending ${recv.fn.name} (not yet completed) still writes. MPI forbids any access to a pending receive's buffer, but on each the message that fills it was sent only after its sender had heard of that ${send.fn.name}: it cannot arrive while the send reads. Post the ${recv.fn.name} after the ${send.fn.name}, or receive into another buffer.`,
        locations,
      }),
    );
  }
}
