/**
 * Which shard owns what: an ordered pair of world ranks (the matching's checks of messages from i to j) and
 * a communicator (its collectives' checks), by a hash, so that rings (i → i+1), stencils and all-to-all
 * patterns spread over the shards instead of landing on one. A pure function of the pair or the
 * communicator's global identity (`CommInfo.key`), which every shard derives alike from the creating calls and
 * COMM records (every shard is sent those).
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

export function shardOfPair(src: number, dst: number, shards: number): number {
  return mix(Math.imul(src, 0x9e3779b1) ^ mix(dst + 1)) % shards;
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
