import { Growable } from './growable';
import { refreshEndMax } from './search';
import { sortTail } from './sort-tail';

/**
 * One rank's spans as struct-of-arrays columns, sorted by start. MPI calls of one thread never nest, so
 * spans arrive in start order; a batch that breaks the order (several threads) is merged in by sortTail.
 * endMax (the running maximum of end) lets binary searches find every span overlapping a time window.
 */
export class Lane {
  readonly start = new Growable();
  readonly end = new Growable();
  readonly fn = new Growable();
  readonly site = new Growable();
  readonly comm = new Growable();
  /**
   * For a collective call: its instance on its communicator (the k-th collective this rank made on it, so
   * the k-th of every member is the same operation, as MPI orders collectives); -1 for other calls.
   */
  readonly coll = new Growable();
  /** endMax[i] = max(end[0..i]): non-decreasing, for visibleRange. */
  readonly endMax = new Growable();
  maxDuration = 0;
  /** Rows before this index are in start order. */
  private sortedUpTo = 0;

  get length(): number {
    return this.start.length;
  }

  push(start: number, end: number, fn: number, site: number, comm: number, coll = -1): void {
    this.start.push(start);
    this.end.push(end);
    this.fn.push(fn);
    this.site.push(site);
    this.comm.push(comm);
    this.coll.push(coll);
    if (end - start > this.maxDuration) this.maxDuration = end - start;
  }

  /** Restores start order after a batch (no-op in the common case). */
  settle(): void {
    const from = sortTail(
      this.start,
      [this.start, this.end, this.fn, this.site, this.comm, this.coll],
      this.sortedUpTo,
    );
    refreshEndMax(this.end, this.endMax, Math.min(from, this.endMax.length));
    this.sortedUpTo = this.length;
  }
}
