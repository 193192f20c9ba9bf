/**
 * Message matching per MPI's non-overtaking rule. The shim reports the actual source and tag of every
 * completed receive, so the engine does not guess: the receive took the oldest unmatched send on the
 * channel (communicator, source, destination, tag). Ranks' streams arrive interleaved arbitrarily, so a
 * receive may complete before its send is seen; it then waits on the channel for that send.
 * Matched sends are dropped: memory holds only messages in flight.
 */
import type { CommInfo } from '../model/comms';
import { Fifo } from '../model/fifo';
import type { RecvOp, SendOp } from '../model/ops';

/**
 * The queues of one (communicator, source, destination), by tag. Each of the three Maps has a one-entry cache of
 * the last tag found in it: a channel mostly carries one tag, and a message asked two or three of these Maps per
 * post and per completion (with the channel's own lookup, ~5% of bench/engine-throughput's warm profile). Queues
 * are never deleted from the Maps, so a cached queue stays the tag's; the Maps keep their order (the order of
 * `unmatched()`).
 */
class Channel {
  readonly sends = new Map<number, Fifo<SendOp>>();
  readonly early = new Map<number, Fifo<RecvOp>>();
  /** Receives posted with this exact source and tag, not yet completed, in posting order. */
  readonly posted = new Map<number, Fifo<RecvOp>>();
  private sendTag = NaN;
  private sendQ: Fifo<SendOp> | undefined = undefined;
  private earlyTag = NaN;
  private earlyQ: Fifo<RecvOp> | undefined = undefined;
  private postedTag = NaN;
  private postedQ: Fifo<RecvOp> | undefined = undefined;

  constructor(
    readonly comm: CommInfo,
    readonly src: number,
    readonly dst: number,
  ) {}

  /** The tag's queue of unmatched sends; made when `make`, else undefined when there is none. */
  sendsOf(tag: number, make: boolean): Fifo<SendOp> | undefined {
    if (tag === this.sendTag) return this.sendQ;
    let q = this.sends.get(tag);
    if (q === undefined) {
      if (!make) return undefined;
      this.sends.set(tag, (q = new Fifo()));
    }
    this.sendTag = tag;
    this.sendQ = q;
    return q;
  }

  /** The tag's queue of receives completed before their send was seen. */
  earlyOf(tag: number, make: boolean): Fifo<RecvOp> | undefined {
    if (tag === this.earlyTag) return this.earlyQ;
    let q = this.early.get(tag);
    if (q === undefined) {
      if (!make) return undefined;
      this.early.set(tag, (q = new Fifo()));
    }
    this.earlyTag = tag;
    this.earlyQ = q;
    return q;
  }

  /** The tag's queue of posted receives (see `posted`). */
  postedOf(tag: number, make: boolean): Fifo<RecvOp> | undefined {
    if (tag === this.postedTag) return this.postedQ;
    let q = this.posted.get(tag);
    if (q === undefined) {
      if (!make) return undefined;
      this.posted.set(tag, (q = new Fifo()));
    }
    this.postedTag = tag;
    this.postedQ = q;
    return q;
  }
}

export type MatchListener = (send: SendOp, recv: RecvOp) => void;

const RANK_SPACE = 65536;

export class Matcher {
  private readonly channels = new Map<number, Channel>();

  constructor(private readonly onMatch: MatchListener) {}

  private channel(comm: CommInfo, src: number, dst: number): Channel {
    const key = (comm.id * RANK_SPACE + src) * RANK_SPACE + dst;
    let ch = this.channels.get(key);
    if (ch === undefined) {
      ch = new Channel(comm, src, dst);
      this.channels.set(key, ch);
    }
    return ch;
  }

  /** A send was posted (its message now exists). */
  post(send: SendOp): void {
    const ch = this.channel(send.comm, send.rank, send.dest);
    const recv = ch.earlyOf(send.tag, false)?.shift();
    if (recv !== undefined) {
      this.match(send, recv);
      return;
    }
    (ch.sendsOf(send.tag, true) as Fifo<SendOp>).push(send);
  }

  /** A receive was posted with an exact source (world rank) and tag: it takes that channel's messages in turn. */
  postRecv(recv: RecvOp, srcWorld: number): void {
    const ch = this.channel(recv.comm, srcWorld, recv.rank);
    (ch.postedOf(recv.tag, true) as Fifo<RecvOp>).push(recv);
  }

  /** A receive (or matched probe) completed with this actual source (world rank) and tag. */
  complete(recv: RecvOp, srcWorld: number, tag: number): void {
    const ch = this.channel(recv.comm, srcWorld, recv.rank);
    // Non-overtaking holds for receives too: a receive posted earlier on this channel with this exact
    // envelope took an earlier message, even if the program has not completed it yet (or never does, as a
    // request overwritten before its Wait). Match those first, or every later message shifts by one.
    const posted = ch.postedOf(tag, false);
    for (let head = posted?.peek(); head !== undefined && head.order <= recv.order; head = posted?.peek()) {
      posted?.shift();
      if (head === recv || head.done) continue;
      head.done = true;
      this.take(ch, head, tag);
    }
    this.take(ch, recv, tag);
  }

  private take(ch: Channel, recv: RecvOp, tag: number): void {
    const send = ch.sendsOf(tag, false)?.shift();
    if (send !== undefined) {
      this.match(send, recv);
      return;
    }
    (ch.earlyOf(tag, true) as Fifo<RecvOp>).push(recv);
  }

  /** A receive completed but its status was not reported: take the oldest send its envelope accepts. */
  completeByEnvelope(recv: RecvOp, srcWorld: number | undefined, tag: number): boolean {
    let best: SendOp | undefined;
    for (const s of this.unmatchedTo(recv.rank)) {
      if (s.comm !== recv.comm || (srcWorld !== undefined && s.rank !== srcWorld)) continue;
      if (tag >= 0 && s.tag !== tag) continue;
      if (best === undefined || s.order < best.order) best = s;
    }
    if (best !== undefined) {
      this.complete(recv, best.rank, best.tag);
      return true;
    }
    // The send is not seen yet (the sender's stream lags): with a full envelope the receive waits for it
    // on its channel like any early receive; with a wildcard nothing says which message it took.
    if (srcWorld === undefined || tag < 0) return false;
    this.complete(recv, srcWorld, tag);
    return true;
  }

  /** A cancelled send leaves its channel. */
  cancel(send: SendOp): void {
    this.channels
      .get((send.comm.id * RANK_SPACE + send.rank) * RANK_SPACE + send.dest)
      ?.sends.get(send.tag)
      ?.remove((s) => s === send);
  }

  private match(send: SendOp, recv: RecvOp): void {
    send.matched = true;
    this.onMatch(send, recv);
  }

  /** Every send not yet received, oldest first per channel (deadlock and end-of-run questions only). */
  *unmatched(): Generator<SendOp> {
    for (const ch of this.channels.values()) for (const q of ch.sends.values()) yield* q;
  }

  /** Unmatched sends to one rank. */
  *unmatchedTo(dst: number): Generator<SendOp> {
    for (const ch of this.channels.values()) if (ch.dst === dst) for (const q of ch.sends.values()) yield* q;
  }
}
