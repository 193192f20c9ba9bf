/**
 * The buffered messages of one attached buffer that may still be in it, for bsend-space.ts: per receiving
 * rank, a min-heap on the time (that rank's own clock component) at which each message's receive completed.
 * A send whose vector clock has heard of that time finds the message gone; since a rank's clock only grows,
 * it stays gone for every later send. So each message is dropped once, and a send costs a look at each
 * receiving rank's earliest message instead of a scan of every pending one (a loop of a million Bsends).
 *
 * The clock run tells the receive's time when the receive runs, which may be after the message was added: a
 * message joins its receiver's heap then (until then it cannot have been received before any send that ran).
 */
export interface Entry {
  readonly receiver: number;
  /** Completion of its receive on the receiving rank's clock; Infinity while not known. */
  time: number;
  bytes: number;
  /** Counted no more (received before a later send, or withdrawn: MPI failed the send). */
  gone: boolean;
}

export class PendingSpace {
  private readonly heaps = new Map<number, Entry[]>();
  /** Bytes and number of the messages still counted. */
  bytes = 0;
  count = 0;

  add(receiver: number, bytes: number): Entry {
    this.bytes += bytes;
    this.count++;
    return { receiver, time: Infinity, bytes, gone: false };
  }

  /** The message's receive completed at `time` on its receiver's clock. */
  received(e: Entry, time: number): void {
    if (e.gone) return;
    e.time = time;
    let h = this.heaps.get(e.receiver);
    if (h === undefined) this.heaps.set(e.receiver, (h = []));
    h.push(e);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if ((h[parent] as Entry).time <= (h[i] as Entry).time) break;
      [h[parent], h[i]] = [h[i] as Entry, h[parent] as Entry];
      i = parent;
    }
  }

  /** The message no longer counts (its send failed). */
  withdraw(e: Entry): void {
    if (e.gone) return;
    e.gone = true;
    this.bytes -= e.bytes;
    this.count--;
  }

  /** Drop the messages whose receive the vector clock `at` has heard of. */
  prune(at: Int32Array): void {
    for (const [receiver, h] of this.heaps) {
      const now = at[receiver] ?? 0;
      while (h.length > 0 && (h[0] as Entry).time <= now) {
        const gone = h[0] as Entry;
        const last = h.pop() as Entry;
        if (h.length > 0) siftDown(h, last);
        this.withdraw(gone);
      }
    }
  }
}

/** Puts `e` at the root of `h` (whose root was just removed) and restores the heap order. */
function siftDown(h: Entry[], e: Entry): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= h.length) break;
    const r = l + 1;
    const child = r < h.length && (h[r] as Entry).time < (h[l] as Entry).time ? r : l;
    if ((h[child] as Entry).time >= e.time) break;
    h[i] = h[child] as Entry;
    i = child;
  }
  h[i] = e;
}
