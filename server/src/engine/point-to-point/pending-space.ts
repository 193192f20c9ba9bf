/**
 * The buffered messages of one attached buffer that may still be in it, for bsend-space.ts: per receiving
 * rank, a min-heap on the time (that rank's own clock component) at which each message's receive completed.
 * A send whose vector clock has heard of that time finds the message gone; since a rank's clock only grows,
 * it stays gone for every later send. So each message is dropped once, and a send costs a look at each
 * receiving rank's earliest message instead of a scan of every pending one (a loop of a million Bsends).
 */
interface Entry {
  /** Completion of its receive on the receiving rank's clock; Infinity when never received. */
  readonly time: number;
  readonly bytes: number;
}

export class PendingSpace {
  private readonly heaps = new Map<number, Entry[]>();
  /** Bytes and number of the messages still counted. */
  bytes = 0;
  count = 0;

  add(receiver: number, time: number, bytes: number): void {
    let h = this.heaps.get(receiver);
    if (h === undefined) this.heaps.set(receiver, (h = []));
    h.push({ time, bytes });
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if ((h[parent] as Entry).time <= (h[i] as Entry).time) break;
      [h[parent], h[i]] = [h[i] as Entry, h[parent] as Entry];
      i = parent;
    }
    this.bytes += bytes;
    this.count++;
  }

  /** Drop the messages whose receive the vector clock `at` has heard of. */
  prune(at: Int32Array): void {
    for (const [receiver, h] of this.heaps) {
      const now = at[receiver] ?? 0;
      while (h.length > 0 && (h[0] as Entry).time <= now) {
        const gone = h[0] as Entry;
        const last = h.pop() as Entry;
        if (h.length > 0) siftDown(h, last);
        this.bytes -= gone.bytes;
        this.count--;
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
