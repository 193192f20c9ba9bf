/**
 * One-sided calls for engine tests, as the shim records them (see engine-dsl.ts for the rest). Window handles
 * differ per rank, as in real jobs; predefined ops are announced the way the shim does at MPI_Init.
 */
import { INT, Job, type Rank } from './engine-dsl';
import { functionNamed } from '../../server/src/protocol/spec';

/** Op handles (announced by announceOps with their mpi-api.json op ids). */
export const SUM = 0x3002;
export const MAX = 0x3000;
export const REPLACE = 0x300c;
export const NO_OP = 0x300d;
export const EXCLUSIVE = 1;
export const SHARED = 2;
/** A vector type: 2 blocks of 1 int, stride 2 ints (size 8, extent 12), announced by announceVector. */
export const VECTOR = 0x4001;
/** The same vector with its layout sent (blocks of 4 bytes at offsets 0 and 8), as the shim does when it can. */
export const VECTOR_LAID_OUT = 0x4002;

export interface Access {
  disp?: number;
  count?: number;
  type?: number;
  site?: number;
}

export class Rma {
  private readonly win: number;
  private groups = 0;
  constructor(
    readonly r: Rank,
    readonly index = 0,
  ) {
    this.win = 0x9000 + 0x100 * r.rank + index;
  }

  /** Predefined ops as the shim describes them at MPI_Init. */
  static announceOps(r: Rank): void {
    for (const [op, id] of [
      [MAX, 0],
      [SUM, 2],
      [REPLACE, 12],
      [NO_OP, 13],
    ] as const)
      r.events.push({ type: 'op', rank: r.rank, seq: 0, time: 0, op, predefined: id, commute: true });
  }

  static announceVector(r: Rank): void {
    const vector = {
      type: 'datatype' as const,
      rank: r.rank,
      seq: 0,
      time: 0,
      datatype: VECTOR,
      size: 8,
      lb: 0,
      extent: 12,
      trueLb: 0,
      trueExtent: 12,
      committed: true,
      signature: [[6, 2]] as [number, number][],
    };
    r.events.push(vector, {
      ...vector,
      datatype: VECTOR_LAID_OUT,
      layout: [
        [0, 4],
        [8, 4],
      ],
    });
  }

  /** The window's part on this rank: `size` bytes (400 unless given). */
  create(dispUnit = 4, o: { site?: number; fn?: string; size?: number } = {}): this {
    const comm = this.r.handle('world');
    const fn = o.fn ?? 'MPI_Win_create';
    const size = o.size ?? 400;
    const args: Record<string, number> =
      fn === 'MPI_Win_allocate' || fn === 'MPI_Win_allocate_shared'
        ? { size, disp_unit: dispUnit, info: 0, comm, baseptr: 0x100, win: 0 }
        : { base: 0x100, size, disp_unit: dispUnit, info: 0, comm, win: 0 };
    this.r.call(fn, args, o.site !== undefined ? { site: o.site } : {}, [], { win: this.win });
    return this;
  }

  free(o: { hang?: boolean } = {}): this {
    this.r.call('MPI_Win_free', { win: this.win }, o);
    return this;
  }

  fence(o: { hang?: boolean; site?: number; assert?: number } = {}): this {
    this.r.call('MPI_Win_fence', { assert: o.assert ?? 0, win: this.win }, o);
    return this;
  }

  private target(fn: string, rank: number, a: Access, extra: Record<string, number> = {}): this {
    const args: Record<string, number> = {
      origin_addr: 0x2000,
      origin_count: a.count ?? 1,
      origin_datatype: a.type ?? INT,
      target_rank: rank,
      target_disp: a.disp ?? 0,
      target_count: a.count ?? 1,
      target_datatype: a.type ?? INT,
      ...extra,
      win: this.win,
    };
    this.r.call(fn, args, a.site !== undefined ? { site: a.site } : {});
    return this;
  }

  put(rank: number, a: Access = {}): this {
    return this.target('MPI_Put', rank, a);
  }

  get(rank: number, a: Access = {}): this {
    return this.target('MPI_Get', rank, a);
  }

  accumulate(rank: number, op: number, a: Access = {}): this {
    return this.target('MPI_Accumulate', rank, a, { op });
  }

  fetchAndOp(rank: number, op: number, a: Access = {}): this {
    this.r.call(
      'MPI_Fetch_and_op',
      {
        origin_addr: 0x2000,
        result_addr: 0x3000,
        datatype: a.type ?? INT,
        target_rank: rank,
        target_disp: a.disp ?? 0,
        op,
        win: this.win,
      },
      a.site !== undefined ? { site: a.site } : {},
    );
    return this;
  }

  lock(type: number, rank: number): this {
    this.r.call('MPI_Win_lock', { lock_type: type, rank, assert: 0, win: this.win });
    return this;
  }

  unlock(rank: number): this {
    this.r.call('MPI_Win_unlock', { rank, win: this.win });
    return this;
  }

  lockAll(): this {
    this.r.call('MPI_Win_lock_all', { assert: 0, win: this.win });
    return this;
  }

  unlockAll(): this {
    this.r.call('MPI_Win_unlock_all', { win: this.win });
    return this;
  }

  flush(rank: number): this {
    this.r.call('MPI_Win_flush', { rank, win: this.win });
    return this;
  }

  /** MPI_Comm_group of MPI_COMM_WORLD, then MPI_Group_incl of `ranks`: the new group's handle. */
  group(ranks: readonly number[]): number {
    const world = 0x6000 + 0x100 * this.r.rank + this.groups++;
    const handle = 0x6000 + 0x100 * this.r.rank + this.groups++;
    this.r.call('MPI_Comm_group', { comm: this.r.handle('world'), group: 0 }, {}, [], { group: world });
    this.r.call('MPI_Group_incl', { group: world, n: ranks.length, ranks: [...ranks], newgroup: 0 }, {}, [], {
      newgroup: handle,
    });
    this.r.call('MPI_Group_free', { group: world });
    return handle;
  }

  /** Win_post / Win_start to these ranks through a group made for the call and freed after it (as MPI allows). */
  postTo(ranks: readonly number[]): this {
    const g = this.group(ranks);
    this.post(g).r.call('MPI_Group_free', { group: g });
    return this;
  }

  startTo(ranks: readonly number[]): this {
    const g = this.group(ranks);
    this.start(g).r.call('MPI_Group_free', { group: g });
    return this;
  }

  /** Win_start on a group handle (default: one the engine never saw made). */
  start(group = 0x77, o: { hang?: boolean } = {}): this {
    this.r.call('MPI_Win_start', { group, assert: 0, win: this.win }, o);
    return this;
  }

  post(group: number): this {
    this.r.call('MPI_Win_post', { group, assert: 0, win: this.win });
    return this;
  }

  wait(o: { hang?: boolean } = {}): this {
    this.r.call('MPI_Win_wait', { win: this.win }, o);
    return this;
  }

  complete(o: { hang?: boolean } = {}): this {
    this.r.call('MPI_Win_complete', { win: this.win }, o);
    return this;
  }

  /** MPI_Win_test returning `flag` (1: the exposure epoch ended). */
  test(flag: 0 | 1): this {
    this.r.call('MPI_Win_test', { win: this.win, flag: 0 }, {}, [], { flag });
    return this;
  }

  /**
   * The memcheck shim's record of this rank's own load or store of its window memory (bytes [offset, offset +
   * length)) in an epoch: fence epochs k > 0, the exposure epoch of the k-th post -k; sent at `fn`'s ENTER.
   */
  localAccess(o: {
    offset: number;
    length: number;
    store: boolean;
    epoch: number;
    site: number;
    fn: string;
    /** A shared window: the rank (in the window's communicator) whose segment was touched, when not its own. */
    segment?: number;
    /** Atomic loads or stores (the length's bit 31). */
    atomic?: boolean;
  }): this {
    this.r.events.push({
      type: 'shim-finding',
      rank: this.r.rank,
      seq: 5000 + this.r.events.length,
      time: 0,
      fn: functionNamed(o.fn),
      site: o.site,
      check: 'window-local-access',
      message: '',
      param: o.segment ?? -1,
      values: [
        this.win,
        o.offset,
        o.length + (o.atomic === true ? 2 ** 31 : 0) + (o.store ? 2 ** 32 : 0) + o.epoch * 2 ** 33,
      ],
    });
    return this;
  }
}

/** Every rank's window helper, with ops (and the vector type) announced. */
export function windows(ranks: readonly Rank[]): Rma[] {
  return ranks.map((r) => {
    Rma.announceOps(r);
    Rma.announceVector(r);
    return new Rma(r);
  });
}

/** A job of `n` ranks with one window over them (`windows`), created on every rank: the RMA tests' start. */
export function rmaJob(n: number): { job: Job; w: Rma[] } {
  const job = new Job(n);
  const w = windows(job.ranks);
  for (const x of w) x.create();
  return { job, w };
}

/** The RMA tests' end: every rank frees its window and finalizes. */
export function endRmaJob(job: Job, w: Rma[]): void {
  for (const x of w) x.free();
  for (const r of job.ranks) r.finalize();
}
