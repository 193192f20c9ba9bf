/**
 * Happened-before over the whole run: vector clocks computed by executing every rank's replay steps in a
 * causal order (a receive after the send it took; a collective once every member arrived, joining their
 * clocks; the completion of a nonblocking collective once every member started it, taking their clocks at
 * the start). Every collective counts as synchronizing, although MPI promises that only of barriers: that
 * errs towards "ordered", which for the checks that use this means saying nothing. Computed once at the end of the run and shared by the checks that ask "was this known then?"
 * (message races, buffered-send space, freed-send reuse, one-sided races).
 */
import { runCausally } from './causal-order';
import type { P2pOp, RecvOp } from '../model/ops';
import type { Replay, Step } from './replay';

/** Vector clocks cost a copy per send: beyond this many ranks the checks that need them are skipped. */
export const MAX_RANKS = 512;

export interface CausalClocks {
  /** Each send's vector clock when it was posted (a copy). */
  readonly sentAt: ReadonlyMap<P2pOp, Int32Array>;
  /** The same for the receives a check asked for (`watch`). */
  readonly postedAt: ReadonlyMap<P2pOp, Int32Array>;
  /** Each completed receive: its own rank's clock component at completion. */
  readonly recvTime: ReadonlyMap<RecvOp, number>;
  /** Each completed receive: the index of its completion among its rank's steps. */
  readonly recvOrder: ReadonlyMap<RecvOp, number>;
}

/** Called after a rank ran its step i, with its clock (owned by the run: copy what you keep). */
export type ClockVisitor = (rank: number, i: number, step: Step, clock: Int32Array) => void;

/**
 * Runs the steps in causal order with vector clocks of `n` components. Step i of a rank sets that rank's own
 * component to i + 1, so "rank b knows of rank a's k-th step" is clock_b[a] >= k. A collective's step is its
 * arrival: the members' joined clock, taken once when the last member arrives, includes every arrival.
 * Returns each send's clock at posting.
 */
export function runWithClocks(replay: Replay, n: number, visit?: ClockVisitor): Map<P2pOp, Int32Array> {
  const vc = new Map<number, Int32Array>([...replay.steps.keys()].map((r) => [r, new Int32Array(n)]));
  const sentAt = new Map<P2pOp, Int32Array>();
  /** Nonblocking collective instances: the clock of each member that started it. */
  const started = new Map<string, Int32Array[]>();
  const clock = (r: number) => vc.get(r) as Int32Array;
  const merge = (into: Int32Array, from: Int32Array) => {
    for (let i = 0; i < into.length; i++) if ((from[i] ?? 0) > (into[i] ?? 0)) into[i] = from[i] ?? 0;
  };
  runCausally(replay, false, {
    collective(members) {
      const joined = new Int32Array(n);
      for (const m of members) {
        const c = clock(m);
        c[m] = (c[m] ?? 0) + 1;
        merge(joined, c);
      }
      for (const m of members) merge(clock(m), joined);
    },
    step(r, s, i) {
      const c = clock(r);
      if (s.k !== 'coll') c[r] = (c[r] ?? 0) + 1;
      if (s.k === 'istart') {
        const key = `${s.comm.id}:${s.index}`;
        const l = started.get(key);
        if (l === undefined) started.set(key, [c.slice()]);
        else l.push(c.slice());
      } else if (s.k === 'idone') {
        for (const at of started.get(`${s.comm.id}:${s.index}`) ?? []) merge(c, at);
      } else if (s.k === 'post' && s.op.kind === 'send') {
        sentAt.set(s.op, c.slice());
      } else if (s.k === 'wait' && s.op.kind !== 'send') {
        const p = replay.peer.get(s.op);
        const at = p === undefined ? undefined : sentAt.get(p);
        if (at !== undefined) merge(c, at);
      }
      visit?.(r, i, s, c);
    },
  });
  return sentAt;
}

/** `watch`: receives whose vector clock at posting a check needs (sends always have theirs). */
export function causalClocks(
  replay: Replay,
  worldSize: number,
  watch: ReadonlySet<P2pOp> = new Set(),
): CausalClocks | undefined {
  if (!replay.enabled || worldSize > MAX_RANKS) return undefined;
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);
  const n = Math.max(worldSize, (ranks[ranks.length - 1] ?? 0) + 1);
  const postedAt = new Map<P2pOp, Int32Array>();
  const recvTime = new Map<RecvOp, number>();
  const recvOrder = new Map<RecvOp, number>();
  const sentAt = runWithClocks(replay, n, (r, i, s, c) => {
    if (s.k === 'post' && s.op.kind !== 'send' && watch.has(s.op)) postedAt.set(s.op, c.slice());
    else if (s.k === 'wait' && s.op.kind !== 'send') {
      recvTime.set(s.op, c[r] ?? 0);
      recvOrder.set(s.op, i);
    }
  });
  return { sentAt, postedAt, recvTime, recvOrder };
}

/**
 * The clocks of ranks at chosen points: `at` maps a rank to step counts k (the rank's clock once it ran k
 * steps; k = 0 is before any). Points a rank never reached (stuck in a deadlock) are absent from the result.
 * For the one-sided race check (passive target), where "b knows of something a did after its first k steps"
 * is clock_b[a] > k.
 */
export function clocksAt(
  replay: Replay,
  n: number,
  at: ReadonlyMap<number, ReadonlySet<number>>,
): Map<number, Map<number, Int32Array>> {
  const out = new Map<number, Map<number, Int32Array>>();
  const keep = (r: number, k: number, c: Int32Array) => {
    if (at.get(r)?.has(k) !== true) return;
    let m = out.get(r);
    if (m === undefined) out.set(r, (m = new Map<number, Int32Array>()));
    m.set(k, c.slice());
  };
  for (const r of at.keys()) keep(r, 0, new Int32Array(n));
  runWithClocks(replay, n, (r, i, _s, c) => keep(r, i + 1, c));
  return out;
}

/**
 * The completion of `recv` happened before the posting of `op` (a send, or a watched receive, whose rank had
 * heard, through messages and collectives, of the receive having completed). False when either was never
 * executed.
 */
export function completedBefore(c: CausalClocks, recv: RecvOp, op: P2pOp): boolean {
  const at = c.sentAt.get(op) ?? c.postedAt.get(op);
  const t = c.recvTime.get(recv);
  return at !== undefined && t !== undefined && (at[recv.rank] ?? 0) >= t;
}
