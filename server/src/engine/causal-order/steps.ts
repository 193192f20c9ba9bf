/**
 * The recorded run as the causal-order analyses see it: each rank's blocking steps in its call order, and
 * the real matching. `Replay` (replay.ts) records them and runs them as they come (causal-order.ts).
 */
import type { CommInfo } from '../model/comms';
import type { P2pOp } from '../model/ops';

export type Step =
  | { readonly k: 'post'; readonly op: P2pOp }
  | { readonly k: 'wait'; readonly op: P2pOp }
  /** `site`, `call`: where the rank entered it (the potential-deadlock finding names every stuck rank's line). */
  | {
      readonly k: 'coll';
      readonly comm: CommInfo;
      readonly index: number;
      readonly site: number;
      readonly call: string;
    }
  /**
   * A nonblocking collective started, and its request completed. They order nothing in the synchronous replay
   * (a member may start it and wait for it much later); happened-before uses them (causal-clocks.ts).
   */
  | { readonly k: 'istart' | 'idone'; readonly comm: CommInfo; readonly index: number };

/**
 * Send ↔ receive, as matched in the run. Kept on the operations (`P2pOp.peer`): a pair is forgotten with its
 * operations, once neither the matcher, a rank's requests, a step not run yet nor a check holds them.
 */
export interface PeerOf {
  get(op: P2pOp): P2pOp | undefined;
  has(op: P2pOp): boolean;
}
