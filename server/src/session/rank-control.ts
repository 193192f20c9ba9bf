import type { HeldAck } from './held-ack';

/** The control messages the analyzer sends to a rank (native-shim/spec/records.json "control"). */
export type ControlMessage =
  | { readonly type: 'pause' }
  | { readonly type: 'continue' }
  | { readonly type: 'breakpoints'; readonly functions: readonly string[] }
  | { readonly type: 'terminate' }
  /** The stack of the rank's thread blocked inside MPI (answered with a `backtrace` text). */
  | { readonly type: 'backtrace' };

/** Sends one message to one rank; false when that rank is not connected. */
export type SendControl = (rank: number, message: ControlMessage) => boolean;

/**
 * The debugger's hold on the job: whether it is paused, which MPI functions are breakpoints, and which ranks
 * are held where. A breakpoint in one rank holds every rank (each at its next MPI call), as the debug adapter
 * promises; a rank that connects late gets the current state; an acknowledgement that crossed a `continue`
 * on the wire is dropped, since that rank was released.
 *
 * A breakpoint whose hits are judged first (a condition on the call's arguments or a hit count) holds only
 * the rank that hit it: the debugger reads the call and either releases that rank (release) or holds the job
 * (pause). A false condition then costs the job nothing but that rank's wait, never a stop of every rank.
 */
export class RankControl {
  private paused = false;
  private breakpoints: readonly string[];
  /** Breakpoints whose hits hold only the hitting rank until the debugger judged them. */
  private judged: ReadonlySet<string>;
  /** Per rank, the `continue` messages sent to it: acknowledgements carry the count the rank had seen. */
  private readonly continuesSent = new Map<number, number>();
  private readonly held = new Map<number, HeldAck>();

  constructor(
    private readonly ranks: number,
    private readonly send: SendControl,
    initialBreakpoints: readonly string[] = [],
    initialJudged: readonly string[] = [],
  ) {
    this.breakpoints = [...initialBreakpoints];
    this.judged = new Set(initialJudged);
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /**
   * A debugger may wait on a rank's acknowledgement: the job is paused, a rank is held, or breakpoints are set
   * (any call may hit one). The session then reads each frame as it arrives (RankServerOptions.promptly).
   */
  get interactive(): boolean {
    return this.paused || this.held.size > 0 || this.breakpoints.length > 0;
  }

  pause(): void {
    this.paused = true;
    this.broadcast({ type: 'pause' });
  }

  resume(): void {
    this.paused = false;
    this.held.clear();
    for (let r = 0; r < this.ranks; r++) {
      if (this.send(r, { type: 'continue' })) this.continuesSent.set(r, (this.continuesSent.get(r) ?? 0) + 1);
    }
  }

  /**
   * One rank runs to its next MPI call while the others stay held: `continue` releases its held thread (the
   * shim lets a thread go on each `continue` it counts, even when a `pause` follows at once) and `pause` holds
   * it again at its next call. The job as a whole stays paused.
   */
  step(rank: number): void {
    this.held.delete(rank);
    if (this.send(rank, { type: 'continue' }))
      this.continuesSent.set(rank, (this.continuesSent.get(rank) ?? 0) + 1);
    this.send(rank, { type: 'pause' });
  }

  /** The breakpoints (replacing the previous set); those also in `judged` hold only the hitting rank. */
  breakOn(functions: readonly string[], judged: readonly string[] = []): void {
    this.breakpoints = [...functions];
    this.judged = new Set(judged);
    this.broadcast({ type: 'breakpoints', functions: this.breakpoints });
  }

  /**
   * Lets one held rank go on, the others as they are: a judged breakpoint whose hit did not stop. (The shim
   * counts each `continue`, so one that crosses a later pause on the wire releases only the call it was for.)
   */
  release(rank: number): void {
    this.held.delete(rank);
    if (this.send(rank, { type: 'continue' }))
      this.continuesSent.set(rank, (this.continuesSent.get(rank) ?? 0) + 1);
  }

  terminate(): void {
    this.broadcast({ type: 'terminate' });
  }

  /**
   * A rank said hello. Control messages sent before could not reach it: it gets the breakpoints (its
   * launch-time MPISCOPE_BREAK may be out of date) and, when the job is paused, the pause.
   */
  connected(rank: number): void {
    this.send(rank, { type: 'breakpoints', functions: this.breakpoints });
    if (this.paused) this.send(rank, { type: 'pause' });
  }

  closed(rank: number): void {
    this.held.delete(rank);
  }

  /** A rank's `paused` acknowledgement; returns it when it is news (not stale), after acting on it. */
  acknowledged(rank: number, ack: HeldAck): HeldAck | undefined {
    if (ack.continues < (this.continuesSent.get(rank) ?? 0)) return undefined;
    // The first rank to reach a breakpoint holds the others at their next MPI call, unless the hit is judged
    // first (the debugger pauses the job if it stops there).
    if (ack.reason === 'breakpoint' && !this.paused && !this.judged.has(ack.function)) this.pause();
    this.held.set(rank, ack);
    return ack;
  }

  /** Where the rank is held, until the next resume. */
  heldAt(rank: number): HeldAck | undefined {
    return this.held.get(rank);
  }

  private broadcast(message: ControlMessage): void {
    for (let r = 0; r < this.ranks; r++) this.send(r, message);
  }
}
