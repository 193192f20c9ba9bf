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
 * How the causal runs hold a step: its kind as a small integer beside what it is about (the operation of a post
 * or wait, the collective instance of the others), in two parallel arrays per rank, never as a `Step` object.
 * A post and a wait were an object each (`{ k, op }`, about 9% of the bytes the engine allocated per call in
 * the throughput bench); `Step` is built only where a finding needs one (`stepOf`).
 */
export const POST = 0;
export const WAIT = 1;
export const COLL = 2;
export const ISTART = 3;
export const IDONE = 4;
export type StepKind = typeof POST | typeof WAIT | typeof COLL | typeof ISTART | typeof IDONE;

/** A collective step's instance (for istart / idone, `site` 0 and `call` ''): one shape for all three kinds. */
export interface CollStep {
  readonly comm: CommInfo;
  readonly index: number;
  readonly site: number;
  readonly call: string;
}

/**
 * A collective instance's key in the causal runs' maps (members arrived, started, completed): a number, not the
 * string `${comm.id}:${index}` each run built for every member's step of every collective (~5% of `mpiscope
 * report` of a ScaLAPACK run, string building and hashing in CausalRun.blocked). A small integer while the
 * communicator's id and the instance's index are small (no allocation), else a double above every small
 * integer's value (exact: id < 2^20, index < 2^32, far below 2^53); the string only beyond that.
 */
export type InstanceKey = number | string;

export function instanceKey(comm: CommInfo, index: number): InstanceKey {
  const id = comm.id;
  if (id < 64 && index < 1 << 24) return index * 64 + id;
  if (id < 1 << 20 && index < 2 ** 32) return 2 ** 31 + id * 2 ** 32 + index;
  return `${id}:${index}`;
}

/** What a step is about: the operation for POST and WAIT, the instance for the collective kinds. */
export type StepItem = P2pOp | CollStep;

/**
 * A rank's steps not run yet, oldest first: a ring of slots, each step's kind in a byte array and its item in a
 * parallel array, doubled when full. Steps run soon after they arrive, so the ring stays at what is pending at
 * once and nothing is allocated per step (an array compacted by moving its tail and shrinking its length was
 * trimmed by V8 and grown again, which allocated as much as the step objects this replaces).
 */
export class StepRing {
  private kinds = new Uint8Array(16);
  private items: (StepItem | undefined)[] = new Array<StepItem | undefined>(16).fill(undefined);
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(kind: StepKind, item: StepItem): void {
    if (this.count === this.items.length) this.grow();
    const at = (this.head + this.count) & (this.items.length - 1);
    this.kinds[at] = kind;
    this.items[at] = item;
    this.count++;
  }

  /** The oldest step's kind; meaningful only when size > 0. */
  firstKind(): StepKind {
    return this.kinds[this.head] as StepKind;
  }

  /** The oldest step's item; undefined when empty. */
  firstItem(): StepItem | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  /** Drops the oldest step. */
  shift(): void {
    if (this.count === 0) return;
    this.items[this.head] = undefined; // not kept alive by the ring
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
  }

  /** Keeps the oldest `n` steps only. */
  truncate(n: number): void {
    const mask = this.items.length - 1;
    for (let i = n; i < this.count; i++) this.items[(this.head + i) & mask] = undefined;
    if (n < this.count) this.count = n;
  }

  private grow(): void {
    const n = this.items.length;
    const kinds = new Uint8Array(n * 2);
    const items = new Array<StepItem | undefined>(n * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & (n - 1);
      kinds[i] = this.kinds[from] as number;
      items[i] = this.items[from];
    }
    this.kinds = kinds;
    this.items = items;
    this.head = 0;
  }
}

/** The step object of a (kind, item) pair, for the few places that describe a step (findings). */
export function stepOf(kind: StepKind, item: StepItem): Step {
  switch (kind) {
    case POST:
      return { k: 'post', op: item as P2pOp };
    case WAIT:
      return { k: 'wait', op: item as P2pOp };
    case COLL: {
      const c = item as CollStep;
      return { k: 'coll', comm: c.comm, index: c.index, site: c.site, call: c.call };
    }
    default: {
      const c = item as CollStep;
      return { k: kind === ISTART ? 'istart' : 'idone', comm: c.comm, index: c.index };
    }
  }
}

/**
 * Send ↔ receive, as matched in the run. Kept on the operations (`P2pOp.peer`): a pair is forgotten with its
 * operations, once neither the matcher, a rank's requests, a step not run yet nor a check holds them.
 */
export interface PeerOf {
  get(op: P2pOp): P2pOp | undefined;
  has(op: P2pOp): boolean;
}
