/**
 * What one engine owns when the analysis is split into shards (server/src/shards): the matching and
 * checks of messages per ordered pair of world ranks, the collective instances' checks per communicator.
 * Every shard keeps the rest of the model (ranks' calls and requests, communicators, datatypes) from the
 * same records in the same order, so an owner decides exactly what a single engine would have decided.
 */
export interface Ownership {
  /**
   * The global shard: keeps what needs the whole job (every channel's matching for the wait-for graph, the
   * replay and the end-of-run checks) and reports every finding outside pairs and communicators. An engine
   * that is not global reports only what its owned checks find.
   */
  readonly global: boolean;
  /** The messages from world rank `src` to world rank `dst` are matched and checked here. */
  pair(src: number, dst: number): boolean;
  /**
   * The collectives of the communicator with this global identity are checked here. `CommInfo.key`, not its
   * dense `id`: ids are numbered in the order an engine meets communicators, which differs between shards that
   * are fed different calls; the key is derived from the creating calls alone.
   */
  comm(key: string): boolean;
}

/** A lone engine owns everything. */
export const OWNS_ALL: Ownership = { global: true, pair: () => true, comm: () => true };
