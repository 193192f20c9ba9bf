/**
 * Process groups per rank, as far as their calls tell: MPI_Comm_group gives the communicator's members,
 * MPI_Group_incl/excl pick from a group by the ranks the shim records, union/intersection/difference combine two
 * known groups. Groups made otherwise (range_incl/excl, whose ranges are not recorded; MPI_GROUP_EMPTY; groups of
 * calls not intercepted) are unknown, and whoever needs one stays silent. Used by generalized active target
 * synchronization (MPI_Win_post/MPI_Win_start name their peers by group).
 */
import type { CommRegistry } from './comms';
import { list, num, paramName } from './fn-roles';
import type { CallEnter, ExitView, Handle } from './types';

export class Groups {
  /** Members (world ranks, in group rank order) by rank and handle. */
  private readonly groups = new Map<number, Map<Handle, readonly number[]>>();

  constructor(private readonly comms: CommRegistry) {}

  /** The world ranks of a rank's group, or undefined when unknown. */
  members(rank: number, handle: Handle): readonly number[] | undefined {
    return this.groups.get(rank)?.get(handle);
  }

  /** A group-creating call (class group) returned. */
  onExit(e: ExitView, enter: CallEnter): void {
    if (e.returnCode !== 0) return;
    const name = paramName(e.fn, 'group_out');
    const h = name === undefined ? undefined : e.out(name);
    if (typeof h !== 'number' || h === 0) return;
    let m = this.groups.get(e.rank);
    if (m === undefined) this.groups.set(e.rank, (m = new Map<Handle, readonly number[]>()));
    const made = this.made(enter);
    if (made === undefined) m.delete(h);
    else m.set(h, made);
  }

  onFree(rank: number, handle: Handle): void {
    this.groups.get(rank)?.delete(handle);
  }

  private made(e: CallEnter): readonly number[] | undefined {
    if (e.fn.name === 'MPI_Comm_group') {
      const comm = this.comms.lookup(e.rank, num(e, 0, 'comm'));
      return comm.local?.get(e.rank) ?? comm.members;
    }
    const base = this.members(e.rank, num(e, 0, 'group'));
    if (base === undefined) return undefined;
    const other = this.members(e.rank, num(e, 0, 'group2'));
    switch (e.fn.name) {
      case 'MPI_Group_incl': {
        const picked = list(e, 'ranks').map((i) => base[i]);
        return picked.every((r) => r !== undefined) ? picked : undefined;
      }
      case 'MPI_Group_excl': {
        const out = new Set(list(e, 'ranks'));
        return base.filter((_, i) => !out.has(i));
      }
      case 'MPI_Group_union':
        return other === undefined ? undefined : [...base, ...other.filter((r) => !base.includes(r))];
      case 'MPI_Group_intersection':
        return other === undefined ? undefined : base.filter((r) => other.includes(r));
      case 'MPI_Group_difference':
        return other === undefined ? undefined : base.filter((r) => !other.includes(r));
      default:
        return undefined;
    }
  }
}
