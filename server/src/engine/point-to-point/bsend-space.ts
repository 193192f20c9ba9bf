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
 * run's vector clocks (causal-clocks.ts) at the end of the run, so the order in which the ranks' streams
 * reach the engine does not matter: a ping-pong that waits for the reply before sending again is ordered, a
 * loop of sends to a receiver that has not answered is not.
 *
 * A message that alone needs more than the whole buffer is the shim's own finding (bsend-buffer-too-small) and
 * takes no space here (MPI refused it or sent it unbuffered). A send MPI failed takes no space after its call.
 * One finding per call site, with the first overflowing send of each rank there.
 */
import type { CallSites } from '../model/call-sites';
import type { CausalClocks } from '../causal-order/causal-clocks';
import { PendingSpace } from './pending-space';
import type { Replay } from '../causal-order/replay';
import type { SendOp } from '../model/ops';
import type { BsendEvent, EngineFinding, CallEnter, RawLocation } from '../model/types';

/** A buffered send as it entered the buffer. */
interface Buffered {
  readonly op: SendOp;
  /** The call that put it in the buffer: the Bsend/Ibsend itself, or the MPI_Start of a Bsend_init request. */
  readonly by: CallEnter;
  /** Which attached buffer (counted per rank: every attach and detach starts a new one) and its size. */
  readonly buffer: number;
  readonly attached: number;
  withdrawn: boolean;
}

interface RankBuffer {
  attached: number;
  buffer: number;
  /** BSEND bytes by the seq of the call that computed them (Bsend, Ibsend, or Bsend_init for its Starts). */
  readonly bytes: Map<number, number>;
  readonly sends: Buffered[];
}

/** Beyond this many buffered sends in a run the check gives up (memory stays bounded, as the replay's). */
export const MAX_SENDS = 1_000_000;

export class BsendSpace {
  private readonly ranks = new Map<number, RankBuffer>();
  private readonly bySend = new Map<SendOp, Buffered>();
  private count = 0;
  private enabled = true;

  private of(rank: number): RankBuffer {
    let b = this.ranks.get(rank);
    if (b === undefined) this.ranks.set(rank, (b = { attached: 0, buffer: 0, bytes: new Map(), sends: [] }));
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
    if (this.enabled) this.of(e.rank).bytes.set(e.seq, e.bytes);
  }

  /** A buffered send was posted (by the call `by`: itself, or the Start of its persistent request). */
  posted(op: SendOp, by: CallEnter): void {
    if (!this.enabled) return;
    if (++this.count > MAX_SENDS) {
      this.enabled = false;
      this.ranks.clear();
      this.bySend.clear();
      return;
    }
    const b = this.of(op.rank);
    const s: Buffered = { op, by, buffer: b.buffer, attached: b.attached, withdrawn: false };
    b.sends.push(s);
    this.bySend.set(op, s);
  }

  /** The send's call returned an error: MPI did not take the message. */
  withdrawn(op: SendOp): void {
    const s = this.bySend.get(op);
    if (s !== undefined) s.withdrawn = true;
  }

  /** More than MAX_SENDS buffered sends: the space check gave up (and dropped what it held). */
  get gaveUp(): boolean {
    return !this.enabled;
  }

  /** Whether there is anything to decide at the end of the run. */
  get hasBufferedSends(): boolean {
    return this.bySend.size > 0;
  }

  /** At the end of the run: one finding per call site (the same site on several ranks merges, see call-sites.ts). */
  findings(replay: Replay, clocks: CausalClocks | undefined, sites: CallSites): EngineFinding[] {
    if (!this.enabled || clocks === undefined) return [];
    const bySite = new Map<string, { first: Overflow; locations: RawLocation[] }>();
    for (const [rank, b] of [...this.ranks].sort((x, y) => x[0] - y[0])) {
      const seen = new Set<number>();
      for (const o of overflows(b, replay, clocks)) {
        const site = o.send.by.site;
        if (seen.has(site)) continue;
        seen.add(site);
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
  readonly send: Buffered;
  readonly bytes: number;
  readonly need: number;
  readonly pending: number;
}

/** The buffered sends of one rank that did not fit, in the rank's order. */
function overflows(b: RankBuffer, replay: Replay, clocks: CausalClocks): Overflow[] {
  const out: Overflow[] = [];
  /** Earlier messages of the current buffer that may still be in it. */
  let pending = new PendingSpace();
  let buffer = -1;
  for (const s of b.sends) {
    if (s.buffer !== buffer) {
      buffer = s.buffer;
      pending = new PendingSpace();
    }
    const bytes = b.bytes.get(s.op.seq);
    // No size (an older shim, arguments MPI_Pack_size refused), or too large on its own (the shim's finding).
    if (bytes === undefined || bytes > s.attached) continue;
    // A send the causal order never reached (a run cut short) is not judged.
    const at = clocks.sentAt.get(s.op);
    if (at === undefined) continue;
    // A message received before this send was posted has left the buffer.
    pending.prune(at);
    const need = pending.bytes + bytes;
    if (need > s.attached) out.push({ send: s, bytes, need, pending: pending.count });
    if (s.withdrawn) continue;
    const recv = replay.peer.get(s.op);
    const time = recv !== undefined && recv.kind !== 'send' ? clocks.recvTime.get(recv) : undefined;
    pending.add(s.op.dest, time ?? Infinity, bytes);
  }
  return out;
}

function message(o: Overflow, locations: readonly RawLocation[]): string {
  const rank = o.send.op.rank;
  const call = o.send.by.fn.name;
  const others = locations.filter((l) => l.rank !== rank).map((l) => l.rank);
  const also =
    others.length === 0
      ? ''
      : ` (and at the same call on rank${others.length > 1 ? 's' : ''} ${others.join(',')})`;
  const msgs = `${o.pending} earlier buffered message${o.pending === 1 ? '' : 's'}`;
  return `Rank ${rank}'s ${call}${also} needs ${o.need} bytes of attached buffer: ${o.bytes} for its message (MPI_Pack_size + MPI_BSEND_OVERHEAD) and ${o.need - o.bytes} for ${msgs} not yet known to be received, which may still be in the buffer. Only ${o.send.attached} bytes are attached with MPI_Buffer_attach: when the receiver falls behind, MPI fails the send. Attach room for every buffered message that can be pending at once (the sum of their MPI_Pack_size + MPI_BSEND_OVERHEAD), or wait until the receiver has them (e.g. for its reply) before sending more.`;
}
