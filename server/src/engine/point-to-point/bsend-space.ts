/**
 * invalid-argument: buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Start of an MPI_Bsend_init request) that
 * together need more space than the buffer attached with MPI_Buffer_attach.
 *
 * A buffered message takes MPI_Pack_size + MPI_BSEND_OVERHEAD bytes of the attached buffer (the shim reports
 * the exact figure in a BSEND record) from its send until MPI has transmitted it. When that is, no process
 * can see; what is certain is that it has left the buffer once its receive completed. So at each buffered
 * send, every earlier buffered message of the rank (since the buffer was attached: MPI_Buffer_detach waits
 * until all have left) whose receive did not *happen before* this send may still be in the buffer, and the
 * program is only correct if the buffer holds all of them and this one. Happened-before is decided with the
 * run's vector clocks (causal-clocks.ts) as the clock run reaches each send, so the order in which the ranks'
 * streams reach the engine does not matter: a ping-pong that waits for the reply before sending again is ordered, a
 * loop of sends to a receiver that has not answered is not.
 *
 * A message that alone needs more than the whole buffer is the shim's own finding (bsend-buffer-too-small) and
 * takes no space here (MPI refused it or sent it unbuffered). A send MPI failed takes no space after its call.
 * One finding per call site, with the first overflowing send of each rank there.
 */
import type { CallSites } from '../model/call-sites';
import { PendingSpace, type Entry } from './pending-space';
import type { PeerOf } from '../causal-order/steps';
import { sendMode, type P2pOp, type RecvOp, type SendOp } from '../model/ops';
import type { BsendEvent, EngineFinding, CallEnter, RawLocation } from '../model/types';

/** A buffered send as it entered the buffer. */
interface Buffered {
  /** The call that put it in the buffer: the Bsend/Ibsend itself, or the MPI_Start of a Bsend_init request. */
  readonly by: CallEnter;
  /** Which attached buffer (counted per rank: every attach and detach starts a new one) and its size. */
  readonly buffer: number;
  readonly attached: number;
  withdrawn: boolean;
  /** Its place among the pending messages, once the clock run reached its send. */
  entry?: Entry;
}

interface RankBuffer {
  attached: number;
  buffer: number;
  /** BSEND bytes by the seq of the call that computed them (Bsend, Ibsend, or Bsend_init for its Starts). */
  readonly bytes: Map<number, number>;
  /** The messages of the buffer the clock run is at (`at`) that may still be in it. */
  at: number;
  pending: PendingSpace;
  /** The first overflowing send at each call site, in the rank's order. */
  readonly overflows: Map<number, Overflow>;
}

/**
 * Beyond this many buffered sends whose size waits to be used (the clock run is behind, or cannot run), the
 * check gives up (memory stays bounded, as the replay's).
 */
export const MAX_SENDS = 1_000_000;

/**
 * Decided as the clock run reaches each buffered send (causal-clocks.ts): the messages of earlier sends whose
 * receive had not happened before it are the ones pending then; a message leaves the count once a send has
 * heard of its receive. What is kept is the messages pending and the first overflow per call site.
 */
export class BsendSpace {
  private readonly ranks = new Map<number, RankBuffer>();
  /** Weak: a send is forgotten with its operation. */
  private readonly bySend = new WeakMap<P2pOp, Buffered>();
  private held = 0;
  private enabled = true;
  /** Buffered sends were posted (the check needs the clock run). */
  any = false;

  constructor(private readonly peer: PeerOf) {}

  private of(rank: number): RankBuffer {
    let b = this.ranks.get(rank);
    if (b === undefined)
      this.ranks.set(
        rank,
        (b = {
          attached: 0,
          buffer: 0,
          bytes: new Map(),
          at: -1,
          pending: new PendingSpace(),
          overflows: new Map(),
        }),
      );
    return b;
  }

  /** MPI_Buffer_attach returned successfully with this size. */
  attach(rank: number, size: number): void {
    const b = this.of(rank);
    b.attached = size;
    b.buffer++;
  }

  /** MPI_Buffer_detach returned: every buffered message has left the buffer, and the buffer is gone. */
  detach(rank: number): void {
    const b = this.of(rank);
    b.attached = 0;
    b.buffer++;
  }

  onBsend(e: BsendEvent): void {
    if (!this.enabled) return;
    this.of(e.rank).bytes.set(e.seq, e.bytes);
    if (++this.held > MAX_SENDS) {
      this.enabled = false;
      this.ranks.clear();
    }
  }

  /** A buffered send was posted (by the call `by`: itself, or the Start of its persistent request). */
  posted(op: SendOp, by: CallEnter): void {
    if (!this.enabled) return;
    this.any = true;
    const b = this.of(op.rank);
    // Kept past the call's ring slot: the call is not reused for a later one (model/rank-track.ts Call).
    by.keepWords();
    this.bySend.set(op, { by, buffer: b.buffer, attached: b.attached, withdrawn: false });
  }

  /** The send's call returned an error: MPI did not take the message. */
  withdrawn(op: SendOp): void {
    const s = this.bySend.get(op);
    if (s === undefined) return;
    s.withdrawn = true;
    if (s.entry !== undefined) this.ranks.get(op.rank)?.pending.withdraw(s.entry);
  }

  /** More than MAX_SENDS buffered sends waited: the space check gave up (and dropped what it held). */
  get gaveUp(): boolean {
    return !this.enabled;
  }

  /** The clock run reached a buffered send: does it fit with the messages that may still be pending? */
  onPosted(op: P2pOp, clock: Int32Array): void {
    if (op.kind !== 'send' || !this.any || !this.enabled || sendMode(op) !== 'buffered') return;
    this.postedBuffered(op, clock);
  }

  /** `onPosted` of a buffered send (out of line: the clock run's step inlines only the test). */
  private postedBuffered(op: SendOp, clock: Int32Array): void {
    const s = this.bySend.get(op);
    const b = this.ranks.get(op.rank);
    if (s === undefined || b === undefined) return;
    if (s.buffer !== b.at) {
      b.at = s.buffer;
      b.pending = new PendingSpace();
    }
    const bytes = b.bytes.get(op.seq);
    // The size of a Bsend or Ibsend serves once; a Bsend_init's serves every Start of its request.
    if (bytes !== undefined && s.by.seq === op.seq) {
      b.bytes.delete(op.seq);
      this.held--;
    }
    // No size (an older shim, arguments MPI_Pack_size refused), or too large on its own (the shim's finding).
    if (bytes === undefined || bytes > s.attached) return;
    // A message received before this send was posted has left the buffer.
    b.pending.prune(clock);
    const need = b.pending.bytes + bytes;
    if (need > s.attached && !b.overflows.has(s.by.site))
      b.overflows.set(s.by.site, { rank: op.rank, send: s, bytes, need, pending: b.pending.count });
    if (s.withdrawn) return;
    s.entry = b.pending.add(op.dest, bytes);
  }

  /** The clock run reached a receive: if it took a buffered message, that message's time is known. */
  onReceived(recv: RecvOp, time: number): void {
    // Every receive comes here: without a buffered send, nothing to look up.
    if (this.any) this.receivedBuffered(recv, time);
  }

  private receivedBuffered(recv: RecvOp, time: number): void {
    const send = this.peer.get(recv);
    const s = send === undefined ? undefined : this.bySend.get(send);
    if (s?.entry === undefined || send === undefined) return;
    const b = this.ranks.get(send.rank);
    if (b !== undefined && b.at === s.buffer) b.pending.received(s.entry, time);
  }

  /** At the end of the run: one finding per call site (the same site on several ranks merges, see call-sites.ts). */
  findings(sites: CallSites): EngineFinding[] {
    if (!this.enabled) return [];
    const bySite = new Map<string, { first: Overflow; locations: RawLocation[] }>();
    for (const [rank, b] of [...this.ranks].sort((x, y) => x[0] - y[0])) {
      for (const [site, o] of b.overflows) {
        const location: RawLocation = {
          rank,
          site,
          call: o.send.by.fn.name,
          detail: `${o.send.by.fn.name} needs ${o.need} bytes with ${o.pending} message${o.pending === 1 ? '' : 's'} pending, ${o.send.attached} attached`,
        };
        const group = bySite.get(sites.key(rank, site));
        if (group === undefined) bySite.set(sites.key(rank, site), { first: o, locations: [location] });
        else group.locations.push(location);
      }
    }
    return [...bySite.values()].map(({ first, locations }) => ({
      kind: 'invalid-argument',
      severity: 'error',
      message: message(first, locations),
      locations,
    }));
  }
}

interface Overflow {
  readonly rank: number;
  readonly send: Buffered;
  readonly bytes: number;
  readonly need: number;
  readonly pending: number;
}

function message(o: Overflow, locations: readonly RawLocation[]): string {
  const rank = o.rank;
  const call = o.send.by.fn.name;
  const others = locations.filter((l) => l.rank !== rank).map((l) => l.rank);
  const also =
    others.length === 0
      ? ''
      : ` (and at the same call on rank${others.length > 1 ? 's' : ''} ${others.join(',')})`;
  const msgs = `${o.pending} earlier buffered message${o.pending === 1 ? '' : 's'}`;
  return `Rank ${rank}'s ${call}${also} needs ${o.need} bytes of attached buffer: ${o.bytes} for its message (MPI_Pack_size + MPI_BSEND_OVERHEAD) and ${o.need - o.bytes} for ${msgs} not yet known to be received, which may still be in the buffer. Only ${o.send.attached} bytes are attached with MPI_Buffer_attach: when the receiver falls behind, MPI fails the send. Attach room for every buffered message that can be pending at once (the sum of their MPI_Pack_size + MPI_BSEND_OVERHEAD), or wait until the receiver has them (e.g. for its reply) before sending more.`;
}
