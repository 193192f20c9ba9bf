/**
 * buffer-overlap for sends whose request was freed while active (MPI_Isend, or MPI_Start of a persistent
 * send, then MPI_Request_free): MPI still sends the message, but the program can no longer wait for it, so it
 * may reuse the buffer only once something tells it the message was received (a reply from the receiver, a
 * barrier after the receive). A send MPI completed at once (MPICH does for small messages; the shim reports
 * it complete at creation) counts too when the program frees it: the program did not know, and in another
 * run or library the send is still active. A later receive of the same rank into that buffer is reported unless the
 * freed send's receive completed before the receive was posted, in happened-before order.
 *
 * The receiver's stream may reach the engine long after the sender's, so the candidates are collected when
 * the writing call is posted and decided with the run's vector clocks (causal-clocks.ts) when the clock run
 * reaches that posting. Happened-before there comes from received messages (matched probes included) and
 * collectives, blocking or not; a program that learns of the receive only from a plain MPI_Probe/MPI_Iprobe of
 * a message it never receives would be reported, but none of the MPI examples of MPI_Request_free does so. Writes by plain stores are the shim's send-buffer-modified, which
 * it cannot check for a freed request (the request is gone); they are not reported here.
 */
import type { CallSites } from '../model/call-sites';
import { completedBefore } from '../causal-order/causal-clocks';
import type { P2pOp, RecvOp, SendOp } from '../model/ops';
import type { PeerOf } from '../causal-order/steps';
import type { EngineFinding, RawLocation } from '../model/types';

/** A freed send and the bytes its buffer spans, [from, to). */
interface Freed {
  readonly send: SendOp;
  readonly from: number;
  readonly to: number;
}

interface Reuse {
  readonly send: SendOp;
  readonly write: RecvOp;
  readonly bytes: number;
}

/** Beyond this many candidates undecided at once the check stops collecting (memory stays bounded). */
export const MAX_CANDIDATES = 100_000;

/**
 * Freed sends remembered per rank, scanned at every receive: older ones are forgotten (a reuse of their buffer
 * goes unreported), and a send of the same buffer replaces the one before (a fire-and-forget loop is one entry).
 */
const MAX_FREED = 64;

/**
 * A candidate is decided when the clock run reaches the posting of its receive (causal-clocks.ts): the freed
 * send's receive completed before it, or it did not (then it cannot complete before it later). Kept: the
 * candidates not decided yet (their receive not reached), and the reported ones, one per pair of call sites.
 */
export class FreedSendReuse {
  private readonly freedBy = new Map<number, Freed[]>();
  /** Undecided candidates, by the receive that writes (weak: forgotten with a receive that never runs). */
  private readonly byWrite = new WeakMap<P2pOp, Reuse[]>();
  private undecided = 0;
  /** Reported candidates, in the order the writes ran. */
  private readonly reported: Reuse[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly peer: PeerOf) {}

  /**
   * The request of this send was freed (MPI_Request_free) before the program saw it complete: an active request,
   * or one MPI completed at once without the program knowing.
   */
  freed(send: SendOp, from: number, to: number): void {
    if (from !== from) return; // no known buffer
    const l = (this.freedBy.get(send.rank) ?? []).filter((s) => s.from !== from || s.to !== to);
    l.push({ send, from, to });
    if (l.length > MAX_FREED) l.shift();
    this.freedBy.set(send.rank, l);
  }

  /** A receive with a known buffer, [from, to), was posted: does it write into the buffer of a freed send of its rank? */
  check(write: RecvOp, from: number, to: number): void {
    const freed = this.freedBy.get(write.rank);
    if (freed === undefined) return;
    for (const { send, from: a, to: b } of freed) {
      if (from >= b || a >= to) continue;
      // Per pair of calls: a loop that does this every iteration is one defect.
      const key = `${write.rank}:${send.site}:${write.site}`;
      if (this.seen.has(key)) continue;
      if (this.undecided >= MAX_CANDIDATES) {
        this.truncated = true;
        continue;
      }
      this.seen.add(key);
      const l = this.byWrite.get(write);
      const c = { send, write, bytes: Math.min(b, to) - Math.max(a, from) };
      if (l === undefined) this.byWrite.set(write, [c]);
      else l.push(c);
      this.undecided++;
    }
  }

  /** Candidates beyond MAX_CANDIDATES were not kept: the check covers only the first ones. */
  truncated = false;

  /** The clock run reached the posting of a receive: decide its candidates. */
  onPosted(op: P2pOp, clock: Int32Array): void {
    // Every posting comes here: without a candidate, no WeakMap lookup.
    if (this.undecided !== 0) this.decideWrite(op, clock);
  }

  /** `onPosted` with candidates undecided (out of line: the clock run's step inlines only the test). */
  private decideWrite(op: P2pOp, clock: Int32Array): void {
    const l = this.byWrite.get(op);
    if (l === undefined) return;
    this.byWrite.delete(op);
    this.undecided -= l.length;
    for (const c of l) {
      const recv = this.peer.get(c.send);
      if (recv !== undefined && recv.kind !== 'send' && completedBefore(recv, clock)) continue;
      this.reported.push(c);
    }
  }

  findings(sites: CallSites): EngineFinding[] {
    const groups = new Map<string, { first: Reuse; received: boolean; locations: RawLocation[] }>();
    // In rank order (each rank's in its own order), whatever order the ranks' streams arrived in.
    for (const c of [...this.reported].sort((x, y) => x.send.rank - y.send.rank)) {
      const recv = this.peer.get(c.send);
      const rank = c.send.rank;
      const key = `${sites.key(rank, c.send.site)}|${sites.key(rank, c.write.site)}`;
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { first: c, received: recv !== undefined, locations: [] }));
      if (g.locations.some((l) => l.rank === rank)) continue;
      g.locations.push(
        {
          rank,
          site: c.send.site,
          call: c.send.fn.name,
          detail: `${c.send.fn.name} whose request was freed while active; the message is not known to be received`,
        },
        {
          rank,
          site: c.write.site,
          call: c.write.fn.name,
          detail: `${c.write.fn.name} writes ${c.bytes} bytes of that send's buffer`,
        },
      );
    }
    return [...groups.values()].map(({ first, received, locations }) => {
      const ranks = [...new Set(locations.map((l) => l.rank))];
      const who = ranks.length === 1 ? `Rank ${ranks[0]}` : `Ranks ${ranks.join(',')}`;
      const s = first.send.fn.name;
      return {
        kind: 'buffer-overlap',
        severity: 'error',
        message: `${who} free${ranks.length === 1 ? 's' : ''} the request of an active ${s} (MPI_Request_free) and then receive${ranks.length === 1 ? 's' : ''} into its buffer with ${first.write.fn.name}, ${received ? 'with nothing telling the rank that the message had been received first' : 'while the message is never received'}: the receive may overwrite data MPI is still sending. Wait for the send (MPI_Wait) instead of freeing its request, or reuse the buffer only after the receiver has answered.`,
        locations,
      };
    });
  }
}
