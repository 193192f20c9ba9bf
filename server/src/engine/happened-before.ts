/**
 * Happened-before over a run: each rank's recorded steps (replay.ts) executed in causal order with vector
 * clocks: a receive after the send it took, a collective once every member arrived (it joins their clocks,
 * arrivals included). Step i of a rank sets that rank's own component to i + 1, so "rank b knows of rank a's
 * k-th step" is clock_b[a] >= k, and "b knows of something a did after its first k steps" is clock_b[a] > k. Used by the message-race check and by the one-sided race check (passive target).
 */
import type { P2pOp } from './ops';
import type { Replay, Step } from './replay';

/** Called after a rank executed its step i, with its clock (owned by the run: copy what you keep). */
export type StepVisitor = (rank: number, i: number, step: Step, clock: Int32Array) => void;

/** Runs the steps; returns each executed send's clock at posting. Ranks stuck (a deadlock) stop where they are. */
export function runCausally(replay: Replay, n: number, visit: StepVisitor): Map<P2pOp, Int32Array> {
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);
  const vc = new Map<number, Int32Array>(ranks.map((r) => [r, new Int32Array(n)]));
  const sentAt = new Map<P2pOp, Int32Array>();
  const pos = new Map<number, number>(ranks.map((r) => [r, 0]));
  const arrived = new Map<string, number[]>();
  const here = new Set<number>();
  const joins = new Map<string, { readonly clock: Int32Array; left: number }>();
  const clock = (r: number) => vc.get(r) as Int32Array;
  const merge = (into: Int32Array, from: Int32Array) => {
    for (let i = 0; i < into.length; i++) if ((from[i] ?? 0) > (into[i] ?? 0)) into[i] = from[i] ?? 0;
  };
  // A receive waits until its send has been executed; a collective until all members arrived.
  const can = (r: number, s: Step): boolean => {
    if (s.k === 'post') return true;
    if (s.k === 'wait') {
      if (s.op.kind === 'send') return true;
      const p = replay.peer.get(s.op);
      return p === undefined || sentAt.has(p);
    }
    const key = `${s.comm.id}:${s.index}`;
    if (!here.has(r)) {
      // Arriving is the step's event: the other members learn of it (and of everything before it) in the join.
      const c = clock(r);
      c[r] = (c[r] ?? 0) + 1;
      let l = arrived.get(key);
      if (l === undefined) arrived.set(key, (l = []));
      l.push(r);
      here.add(r);
    }
    const who = arrived.get(key) ?? [];
    if (who.length < s.comm.size) return false;
    // The join is taken once, when the last member arrives: the others are all still waiting at this step then.
    // Taken later, it would carry what members did after the collective back into it.
    let join = joins.get(key);
    if (join === undefined) {
      const j = new Int32Array(n);
      for (const m of who) merge(j, clock(m));
      joins.set(key, (join = { clock: j, left: who.length }));
    }
    merge(clock(r), join.clock);
    if (--join.left === 0) {
      joins.delete(key);
      arrived.delete(key);
    }
    return true;
  };
  for (let progress = true; progress;) {
    progress = false;
    for (const r of ranks) {
      const steps = replay.steps.get(r) ?? [];
      let i = pos.get(r) ?? 0;
      const c = clock(r);
      while (i < steps.length) {
        const s = steps[i] as Step;
        if (!can(r, s)) break;
        here.delete(r);
        if (s.k !== 'coll') c[r] = (c[r] ?? 0) + 1;
        if (s.k === 'post' && s.op.kind === 'send') sentAt.set(s.op, c.slice());
        if (s.k === 'wait' && s.op.kind !== 'send') {
          const p = replay.peer.get(s.op);
          const at = p === undefined ? undefined : sentAt.get(p);
          if (at !== undefined) merge(c, at);
        }
        visit(r, i, s, c);
        i++;
        progress = true;
      }
      pos.set(r, i);
    }
  }
  return sentAt;
}

/**
 * The clocks of ranks at chosen points: `at` maps a rank to step counts k (the rank's clock once it executed k
 * steps; k = 0 is before any). Points a rank never reached (stuck in a deadlock) are absent from the result.
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
  runCausally(replay, n, (r, i, _s, c) => keep(r, i + 1, c));
  return out;
}
