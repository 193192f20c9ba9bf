/**
 * Which shard owns what: each world rank has a home shard (a hash of the rank, so that neighbouring ranks
 * land far apart), an ordered pair of world ranks (the matching's checks of messages from i to j) belongs to
 * the home of its receiver j, and a communicator (its collectives' checks) to a shard by a hash of its
 * global identity (`CommInfo.key`, which every shard derives alike from the creating calls and COMM records:
 * every shard is sent those). Rings (i → i+1), stencils and all-to-all patterns spread over the shards as
 * their receivers do.
 *
 * Why the receiver's home: every channel into a rank then lives on one shard, with every receive the rank
 * posts, in its posting order. A wildcard receive (MPI_ANY_SOURCE), whose pair is known only when it
 * completes, goes to that one shard instead of every shard, and a receive that completes without a status
 * (MPI_ERR_TRUNCATE on a wildcard receive) takes the oldest send its envelope accepts among every send to its
 * rank there, exactly as a lone engine decides it. The price: a rank that receives from every other (the root
 * of a hand-written gather) has all its channels on one shard; its receives are one thread's in the program too.
 */
import type { Ownership } from '../engine/model/ownership';

/** A 32-bit integer mix (the finalizer of MurmurHash3): neighbouring keys land far apart. */
function mix(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The home shard of a world rank: the owner of every channel into it. */
export function homeOf(rank: number, shards: number): number {
  return mix(Math.imul(rank + 1, 0x9e3779b1)) % shards;
}

/** The owner of the messages from world rank `src` to world rank `dst`: the receiver's home. */
export function shardOfPair(_src: number, dst: number, shards: number): number {
  return homeOf(dst, shards);
}

/** FNV-1a over the key's UTF-16 units, then mixed: a communicator's key is a few dozen characters. */
export function shardOfComm(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return mix(h ^ 0x5bd1e995) % shards;
}

/** What shard `index` of `shards` owns: its pairs and communicators, nothing global. */
export function shardOwnership(index: number, shards: number): Ownership {
  return {
    global: false,
    pair: (src, dst) => shardOfPair(src, dst, shards) === index,
    comm: (key) => shardOfComm(key, shards) === index,
  };
}

/**
 * What shard 0 owns beside K - 1 others: its pairs and communicators, and the global questions (the wait-for
 * graph, the replay and what is decided over it, leaks, call order, every rank's own calls). It is sent every
 * call; the coordinator keeps no model of its own (route-model.ts).
 */
export function globalShardOwnership(shards: number): Ownership {
  return { ...shardOwnership(0, shards), global: true };
}

/**
 * The whole model and the global questions, no pair or communicator checks: the global part alone, beside K
 * owners (the unit tests' split of one engine's findings; the threads use globalShardOwnership).
 */
export const GLOBAL_ONLY: Ownership = { global: true, pair: () => false, comm: () => false };
