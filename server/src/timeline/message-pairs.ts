/** One side of a message, as the model saw it; times are already on the job axis. */
export interface SendSide {
  readonly src: number;
  readonly dst: number;
  readonly comm: number;
  readonly tag: number;
  readonly time: number;
}

export interface RecvSide {
  readonly src: number;
  readonly dst: number;
  readonly comm: number;
  /** The actual tag (from the COMPLETE record, never ANY_TAG). */
  readonly tag: number;
  readonly time: number;
  readonly bytes: number;
}

export type PairListener = (send: SendSide, recv: RecvSide) => void;

interface Channel {
  sends: SendSide[];
  sendHead: number;
  recvs: RecvSide[];
  recvHead: number;
}

/**
 * Pairs sends with receives by MPI's non-overtaking rule: on one (communicator, source, destination, tag)
 * channel the n-th receive completed takes the n-th send posted. Receives carry their actual source and tag,
 * so this is exact, not a guess. Ranks' streams interleave arbitrarily, so either side may come first and
 * waits on its channel for the other.
 */
export class MessagePairs {
  private readonly channels = new Map<string, Channel>();

  constructor(private readonly onPair: PairListener) {}

  send(s: SendSide): void {
    const ch = this.channel(s.comm, s.src, s.dst, s.tag);
    if (ch.recvHead < ch.recvs.length) {
      const r = ch.recvs[ch.recvHead++] as RecvSide;
      this.compact(ch);
      this.onPair(s, r);
    } else ch.sends.push(s);
  }

  recv(r: RecvSide): void {
    const ch = this.channel(r.comm, r.src, r.dst, r.tag);
    if (ch.sendHead < ch.sends.length) {
      const s = ch.sends[ch.sendHead++] as SendSide;
      this.compact(ch);
      this.onPair(s, r);
    } else ch.recvs.push(r);
  }

  /** Sends still waiting for their receive (for the end-of-run picture). */
  get unmatchedSends(): number {
    let n = 0;
    for (const ch of this.channels.values()) n += ch.sends.length - ch.sendHead;
    return n;
  }

  private channel(comm: number, src: number, dst: number, tag: number): Channel {
    const key = `${comm}:${src}:${dst}:${tag}`;
    let ch = this.channels.get(key);
    if (ch === undefined) this.channels.set(key, (ch = { sends: [], sendHead: 0, recvs: [], recvHead: 0 }));
    return ch;
  }

  /** Drops consumed entries once they are half the queue, so memory holds only messages in flight. */
  private compact(ch: Channel): void {
    if (ch.sendHead > 32 && ch.sendHead * 2 > ch.sends.length) {
      ch.sends = ch.sends.slice(ch.sendHead);
      ch.sendHead = 0;
    }
    if (ch.recvHead > 32 && ch.recvHead * 2 > ch.recvs.length) {
      ch.recvs = ch.recvs.slice(ch.recvHead);
      ch.recvHead = 0;
    }
  }
}
