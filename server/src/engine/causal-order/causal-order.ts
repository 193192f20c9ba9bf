/**
 * Runs the ranks' recorded steps (replay.ts) in an order where every step comes after its causes: a wait for
 * a receive after the post of the send it took, a collective after every member arrived at it, and — when
 * sends are synchronous — a wait for a send after the post of its receive. Nonblocking collectives: in the
 * happened-before run (sends not synchronous) a member's completion comes after every member's start; the
 * zero-buffering replay orders nothing by them (a member may start one and complete it much later). Each rank runs until it blocks
 * and is woken by the step that releases it, so the cost is linear in the steps (a round-robin over the
 * ranks costs a pass over every rank for each few steps of a tightly coupled run).
 */
import type { P2pOp } from '../model/ops';
import type { RecordedSteps, Step } from './steps';

export interface CausalVisitor {
  /** A step runs; `index` is its position in its rank's list. */
  step?(rank: number, step: Step, index: number): void;
  /** Every member of a collective instance has arrived (before any of them runs the step). */
  collective?(members: readonly number[]): void;
}

export interface CausalEnd {
  /** Each rank's position when nothing more can run: its list's length, or the step it is stuck at. */
  readonly at: Map<number, number>;
  /** The operations whose post ran. */
  readonly posted: ReadonlySet<P2pOp>;
}

export function runCausally(
  replay: RecordedSteps,
  synchronousSends: boolean,
  visit: CausalVisitor = {},
): CausalEnd {
  const ranks = [...replay.steps.keys()].sort((a, b) => a - b);
  const pos = new Map<number, number>(ranks.map((r) => [r, 0]));
  const posted = new Set<P2pOp>();
  const waitingFor = new Map<P2pOp, number[]>();
  /** Collective instance → the members that arrived (until all did). */
  const arrived = new Map<string, number[]>();
  /** Collective instances every member reached → members still to run the step. */
  const open = new Map<string, number>();
  /** Nonblocking collective instance → members that started it, and the ranks waiting to complete it. */
  const started = new Map<string, number>();
  const waitingStart = new Map<string, number[]>();
  const ready = [...ranks].reverse();
  /** Rank r blocks until `key` happens (always true: it is blocked). */
  const park = <K>(waiting: Map<K, number[]>, key: K, r: number): true => {
    const l = waiting.get(key);
    if (l === undefined) waiting.set(key, [r]);
    else l.push(r);
    return true;
  };
  /** `key` happened: the ranks blocked on it can run again. */
  const wake = <K>(waiting: Map<K, number[]>, key: K): void => {
    const l = waiting.get(key);
    if (l === undefined) return;
    waiting.delete(key);
    ready.push(...l);
  };

  const blocked = (r: number, s: Step): boolean => {
    if (s.k === 'post') return false;
    if (s.k === 'wait') {
      if (s.op.kind === 'send' && !synchronousSends) return false;
      const p = replay.peer.get(s.op);
      if (p === undefined || posted.has(p)) return false;
      return park(waitingFor, p, r);
    }
    if (s.k === 'istart') return false;
    const key = `${s.comm.id}:${s.index}`;
    if (s.k === 'idone') {
      if (synchronousSends || (started.get(key) ?? 0) >= s.comm.size) return false;
      return park(waitingStart, key, r);
    }
    const left = open.get(key);
    if (left !== undefined) {
      if (left <= 1) open.delete(key);
      else open.set(key, left - 1);
      return false;
    }
    let who = arrived.get(key);
    if (who === undefined) arrived.set(key, (who = []));
    who.push(r);
    if (who.length < s.comm.size) return true;
    arrived.delete(key);
    visit.collective?.(who);
    if (who.length > 1) open.set(key, who.length - 1);
    for (const m of who) if (m !== r) ready.push(m);
    return false;
  };

  for (let r = ready.pop(); r !== undefined; r = ready.pop()) {
    const steps = replay.steps.get(r) ?? [];
    let i = pos.get(r) ?? 0;
    while (i < steps.length) {
      const s = steps[i] as Step;
      if (blocked(r, s)) break;
      visit.step?.(r, s, i);
      if (s.k === 'post') {
        posted.add(s.op);
        wake(waitingFor, s.op);
      } else if (s.k === 'istart') {
        const key = `${s.comm.id}:${s.index}`;
        const count = (started.get(key) ?? 0) + 1;
        started.set(key, count);
        if (count >= s.comm.size) wake(waitingStart, key);
      }
      i++;
    }
    pos.set(r, i);
  }
  return { at: pos, posted };
}
