import type { CommEvent, Handle } from '../engine/model/types';

interface CommEntry {
  readonly id: number;
  /** World ranks of the members, in communicator rank order (the remote group's for an intercommunicator). */
  readonly peers: readonly number[];
}

/**
 * Gives each communicator one id shared by all its ranks. Handles differ per process, so the identity is
 * the membership: the k-th communicator a rank learns with a given member list is the k-th one every other
 * member learns, because communicators are created collectively and in the same order by their members.
 */
export class CommIds {
  private readonly byRank = new Map<number, Map<Handle, CommEntry>>();
  /** membership key → ids in creation order. */
  private readonly ids = new Map<string, number[]>();
  /** (rank, membership key) → how many the rank has seen. */
  private readonly seen = new Map<string, number>();
  private next = 0;

  add(e: CommEvent): void {
    const key = `${e.isInter ? 'i' : ''}${e.members.join(',')}|${e.remoteMembers.join(',')}`;
    const rankKey = `${e.rank}#${key}`;
    const k = this.seen.get(rankKey) ?? 0;
    this.seen.set(rankKey, k + 1);
    let list = this.ids.get(key);
    if (list === undefined) this.ids.set(key, (list = []));
    while (list.length <= k) list.push(this.next++);
    let handles = this.byRank.get(e.rank);
    if (handles === undefined) this.byRank.set(e.rank, (handles = new Map<Handle, CommEntry>()));
    handles.set(e.comm, { id: list[k] ?? -1, peers: e.isInter ? e.remoteMembers : e.members });
  }

  /** Shared id of the rank's communicator handle, -1 when the handle was never announced. */
  id(rank: number, handle: Handle): number {
    return this.byRank.get(rank)?.get(handle)?.id ?? -1;
  }

  /**
   * World rank of a peer given as a rank in the communicator. Without a COMM record for the handle the
   * communicator is taken to be the world, so synthetic and truncated streams still draw arrows.
   */
  world(rank: number, handle: Handle, peer: number): number {
    const c = this.byRank.get(rank)?.get(handle);
    if (c === undefined) return peer;
    return c.peers[peer] ?? -1;
  }
}
