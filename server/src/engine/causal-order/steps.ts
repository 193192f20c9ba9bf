/**
 * The recorded run as the causal-order analyses see it: each rank's blocking steps in its call order, and
 * the real matching. `Replay` (replay.ts) records them and runs them as they come (causal-order.ts).
 */
import type { CommInfo } from '../model/comms';
import type { P2pOp } from '../model/ops';

export type Step =
  | { readonly k: 'post'; readonly op: P2pOp }
  | { readonly k: 'wait'; readonly op: P2pOp }
  | { readonly k: 'coll'; readonly comm: CommInfo; readonly index: number }
  /**
   * A nonblocking collective started, and its request completed. They order nothing in the synchronous replay
   * (a member may start it and wait for it much later); happened-before uses them (causal-clocks.ts).
   */
  | { readonly k: 'istart' | 'idone'; readonly comm: CommInfo; readonly index: number };

/**
 * Send ↔ receive, as matched in the run. Weak (a WeakMap): a pair is forgotten with its operations, once
 * neither the matcher, a rank's requests nor a step not run yet holds them.
 */
export interface PeerOf {
  get(op: P2pOp): P2pOp | undefined;
  has(op: P2pOp): boolean;
}
