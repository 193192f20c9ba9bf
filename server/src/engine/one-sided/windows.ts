/**
 * One-sided communication windows across ranks. Like communicators, each rank knows a window by its own handle;
 * the global identity of a window is (the communicator it was created on, the index of the creating call among
 * that rank's window-creating calls on it): every member computes the same one. A window keeps each member's
 * displacement unit (the target's unit scales target_disp) and size, and a communicator-like group of its own, on which
 * MPI_Win_fence and MPI_Win_free are sequenced as collectives.
 */
import type { CommInfo, CommRegistry } from '../model/comms';
import type { Handle } from '../model/types';

export interface WinInfo {
  /** Small dense id. */
  readonly id: number;
  /** Its global identity (the communicator's key and the creation's index), its key in the registry. */
  readonly key: string;
  readonly name: string;
  readonly comm: CommInfo;
  /** The window's group, for its collectives (fence, free); same members as comm. */
  readonly group: CommInfo;
  /** Displacement unit by world rank, as each member passed it at creation (1 for dynamic windows). */
  readonly dispUnit: Map<number, number>;
  /** Size in bytes by world rank, as each member passed it at creation; none for dynamic windows (memory attached later). */
  readonly size: Map<number, number>;
  /**
   * Made by MPI_Win_allocate_shared: the members may load and store each other's segments directly (the memcheck
   * mode sends those accesses, named by segment, before each MPI call whatever the epoch).
   */
  readonly shared: boolean;
}

export class WindowRegistry {
  private readonly byKey = new Map<string, WinInfo>();
  private readonly handles = new Map<number, Map<Handle, WinInfo>>();
  private readonly counts = new Map<string, number>();
  /** Creating calls entered and not yet returned, by rank and seq. */
  private readonly pending = new Map<string, WinInfo>();
  private nextId = 0;

  constructor(private readonly comms: CommRegistry) {}

  /** A rank entered a window-creating call on `comm`: the window it will get. */
  onCreate(
    rank: number,
    seq: number,
    comm: CommInfo,
    dispUnit: number,
    shared = false,
    size: number | undefined = undefined,
  ): WinInfo {
    const k = `${rank}:${comm.id}`;
    const index = this.counts.get(k) ?? 0;
    this.counts.set(k, index + 1);
    const key = `${comm.key}/win${index}`;
    let win = this.byKey.get(key);
    if (win === undefined) {
      const name = `window ${index + 1} of ${comm.name}`;
      win = {
        id: this.nextId++,
        key,
        name,
        comm,
        group: this.comms.derived(comm, `win${index}`, name),
        dispUnit: new Map(),
        size: new Map(),
        shared,
      };
      this.byKey.set(key, win);
    }
    win.dispUnit.set(rank, dispUnit > 0 ? dispUnit : 1);
    if (size !== undefined && size >= 0) win.size.set(rank, size);
    this.pending.set(`${rank}:${seq}`, win);
    return win;
  }

  /** The creating call returned: bind the rank's handle (0 when it failed). */
  onCreated(rank: number, seq: number, handle: Handle): WinInfo | undefined {
    const win = this.pending.get(`${rank}:${seq}`);
    this.pending.delete(`${rank}:${seq}`);
    if (win === undefined || handle === 0) return undefined;
    let m = this.handles.get(rank);
    if (m === undefined) this.handles.set(rank, (m = new Map<Handle, WinInfo>()));
    m.set(handle, win);
    return win;
  }

  /** The window a rank means by this handle, or undefined when it never saw it created. */
  lookup(rank: number, handle: Handle): WinInfo | undefined {
    return this.handles.get(rank)?.get(handle);
  }

  onFree(rank: number, handle: Handle): void {
    this.handles.get(rank)?.delete(handle);
  }

  /** Every member freed the window: its key is never made again (a creation's index grows). */
  forget(win: WinInfo): void {
    if (this.byKey.get(win.key) === win) this.byKey.delete(win.key);
  }
}
