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
 * Queues by tag with a one-entry cache of the last tag found: a channel mostly carries one tag, and a message asked
 * two or three of these per post and per completion (with the channel's own lookup, ~5% of
 * bench/engine-throughput's warm profile). Queues are never deleted, so a cached queue stays the tag's; the Map
 * keeps its order (the order of `unmatched()`).
 */
class TagQueues<T> {
  readonly byTag = new Map<number, Fifo<T>>();
  private tag = NaN;
  private last: Fifo<T> | undefined = undefined;

  /** The tag's queue; made when `make`, else undefined when there is none. */
  of(tag: number, make: boolean): Fifo<T> | undefined {
    if (tag === this.tag) return this.last;
    let q = this.byTag.get(tag);
    if (q === undefined) {
      if (!make) return undefined;
      this.byTag.set(tag, (q = new Fifo()));
    }
    this.tag = tag;
    this.last = q;
    return q;
  }
}

/** The queues of one (communicator, source, destination), by tag. */
class Channel {
  /** Sends not matched yet. */
  readonly sends = new TagQueues<SendOp>();
  /** Receives completed before their send was seen. */
  readonly early = new TagQueues<RecvOp>();
  /** Receives posted with this exact source and tag, not yet completed, in posting order. */
  readonly posted = new TagQueues<RecvOp>();

  constructor(
    readonly comm: CommInfo,
    readonly src: number,
    readonly dst: number,
  ) {}
}

/**
 * What hears of every match: an object with a method, not a closure, so that the function called is the same in
 * every engine of a process (code the JIT compiled for the first engine called that engine's closure by identity;
 * the next engine's closure was another target: a deopt and a recompilation of the callers, `--trace-deopt`'s
 * `wrong call target`).
 */
export interface MatchListener {
  matched(send: SendOp, recv: RecvOp): void;
}

const RANK_SPACE = 65536;

/** Slots of `Matcher.recent` (a power of two: indices are masked). */
const RECENT_CHANNELS = 256;

export class Matcher {
  private readonly channels = new Map<number, Channel>();
  /**
   * The channels last looked up, by a hash of (communicator, source, destination), in front of `channels`: every
   * send, receive post and completion looks up its channel, and the Map's lookup was ~2% of the warm engine
   * (bench/engine-throughput; a line of `channel` the hottest of the profile). A slot holds the last channel
   * that hashed there; channels are never dropped, so a slot's channel stays the Map's.
   */
  private readonly recent: (Channel | undefined)[] = new Array<Channel | undefined>(RECENT_CHANNELS).fill(
    undefined,
  );

  constructor(private readonly listener: MatchListener) {}

  private channel(comm: CommInfo, src: number, dst: number): Channel {
    const slot = (Math.imul(src, 61) + dst + Math.imul(comm.id, 131)) & (RECENT_CHANNELS - 1);
    const near = this.recent[slot];
    if (near !== undefined && near.src === src && near.dst === dst && near.comm === comm) return near;
    const key = (comm.id * RANK_SPACE + src) * RANK_SPACE + dst;
    let ch = this.channels.get(key);
    if (ch === undefined) {
      ch = new Channel(comm, src, dst);
      this.channels.set(key, ch);
    }
    this.recent[slot] = ch;
    return ch;
  }

  /** A send was posted (its message now exists). */
  post(send: SendOp): void {
    const ch = this.channel(send.comm, send.rank, send.dest);
    const recv = ch.early.of(send.tag, false)?.shift();
    if (recv !== undefined) {
      this.match(send, recv);
      return;
    }
    (ch.sends.of(send.tag, true) as Fifo<SendOp>).push(send);
  }

  /** A receive was posted with an exact source (world rank) and tag: it takes that channel's messages in turn. */
  postRecv(recv: RecvOp, srcWorld: number): void {
    const ch = this.channel(recv.comm, srcWorld, recv.rank);
    (ch.posted.of(recv.tag, true) as Fifo<RecvOp>).push(recv);
  }

  /** A receive (or matched probe) completed with this actual source (world rank) and tag. */
  complete(recv: RecvOp, srcWorld: number, tag: number): void {
    const ch = this.channel(recv.comm, srcWorld, recv.rank);
    // Non-overtaking holds for receives too: a receive posted earlier on this channel with this exact
    // envelope took an earlier message, even if the program has not completed it yet (or never does, as a
    // request overwritten before its Wait). Match those first, or every later message shifts by one.
    const posted = ch.posted.of(tag, false);
    for (let head = posted?.peek(); head !== undefined && head.order <= recv.order; head = posted?.peek()) {
      posted?.shift();
      if (head === recv || head.done) continue;
      head.done = true;
      this.take(ch, head, tag);
    }
    this.take(ch, recv, tag);
  }

  private take(ch: Channel, recv: RecvOp, tag: number): void {
    const send = ch.sends.of(tag, false)?.shift();
    if (send !== undefined) {
      this.match(send, recv);
      return;
    }
    (ch.early.of(tag, true) as Fifo<RecvOp>).push(recv);
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
      ?.sends.byTag.get(send.tag)
      ?.remove((s) => s === send);
  }

  private match(send: SendOp, recv: RecvOp): void {
    send.matched = true;
    this.listener.matched(send, recv);
  }

  /** Every send not yet received, oldest first per channel (deadlock and end-of-run questions only). */
  *unmatched(): Generator<SendOp> {
    for (const ch of this.channels.values()) for (const q of ch.sends.byTag.values()) yield* q;
  }

  /** Unmatched sends to one rank. */
  *unmatchedTo(dst: number): Generator<SendOp> {
    for (const ch of this.channels.values())
      if (ch.dst === dst) for (const q of ch.sends.byTag.values()) yield* q;
  }
}
