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
  /**
   * Channels by tag, then by (communicator, source, destination) packed in one number: two numeric lookups
   * per message instead of a string built and hashed (a million-event trace pairs 160,000 messages, each
   * side looked up). A channel whose numbers do not fit the packing (see packed) is kept by a string key.
   */
  private readonly channels = new Map<number, Map<number, Channel>>();
  private readonly wide = new Map<string, Channel>();

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
    for (const byTag of this.channels.values())
      for (const ch of byTag.values()) n += ch.sends.length - ch.sendHead;
    for (const ch of this.wide.values()) n += ch.sends.length - ch.sendHead;
    return n;
  }

  private channel(comm: number, src: number, dst: number, tag: number): Channel {
    const key = packed(comm, src, dst);
    if (key < 0) {
      const wideKey = `${comm}:${src}:${dst}:${tag}`;
      let ch = this.wide.get(wideKey);
      if (ch === undefined) this.wide.set(wideKey, (ch = newChannel()));
      return ch;
    }
    let byTag = this.channels.get(tag);
    if (byTag === undefined) this.channels.set(tag, (byTag = new Map<number, Channel>()));
    let ch = byTag.get(key);
    if (ch === undefined) byTag.set(key, (ch = newChannel()));
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

function newChannel(): Channel {
  return { sends: [], sendHead: 0, recvs: [], recvHead: 0 };
}

/**
 * (communicator id, source, destination) as one exact integer below 2^53: ids and ranks from -1 (unknown)
 * up, the communicator below 2^11 - 1 and the ranks below 2^21 - 1; -1 when they are not (kept by string).
 */
function packed(comm: number, src: number, dst: number): number {
  const c = comm + 1;
  const s = src + 1;
  const d = dst + 1;
  if (!(c >= 0 && c < 2 ** 11 && s >= 0 && s < 2 ** 21 && d >= 0 && d < 2 ** 21)) return -1;
  if (!Number.isInteger(c) || !Number.isInteger(s) || !Number.isInteger(d)) return -1;
  return (c * 2 ** 21 + s) * 2 ** 21 + d;
}
