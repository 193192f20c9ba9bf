import type { BacktraceReply } from './held-ack';

/**
 * Backtraces of ranks blocked inside MPI, asked of their shims (a `backtrace` control message) when the
 * debugger shows their stacks. One request per rank at a time; the answer is kept until the rank moves on
 * (forget), so a debugger that asks for the same stack again does not interrupt the rank again.
 */
export class BlockedBacktraces {
  private readonly pending = new Map<number, ((reply: BacktraceReply) => void)[]>();
  private readonly answers = new Map<number, BacktraceReply>();

  /** @param send asks the rank; false when it is not connected. */
  constructor(
    private readonly send: (rank: number) => boolean,
    private readonly timeoutMs = 2000,
  ) {}

  request(rank: number): Promise<BacktraceReply> {
    const known = this.answers.get(rank);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const waiting = this.pending.get(rank);
      if (waiting !== undefined) {
        waiting.push(resolve);
        return;
      }
      if (!this.send(rank)) {
        resolve({ error: 'the rank is not connected' });
        return;
      }
      this.pending.set(rank, [resolve]);
      // The shim answers within its own 1 s bound; this one covers a shim that never answers at all.
      setTimeout(() => this.settle(rank, { error: 'the rank did not answer' }), this.timeoutMs);
    });
  }

  /** The rank's answer arrived. */
  answered(rank: number, reply: BacktraceReply): void {
    if (!('error' in reply)) this.answers.set(rank, reply);
    this.settle(rank, reply);
  }

  /** The rank's state changed (or it closed): its stack is no longer the one we have. */
  forget(rank: number): void {
    this.answers.delete(rank);
    this.settle(rank, { error: 'the rank moved on' });
  }

  private settle(rank: number, reply: BacktraceReply): void {
    const waiting = this.pending.get(rank);
    this.pending.delete(rank);
    for (const resolve of waiting ?? []) resolve(reply);
  }
}
