/**
 * Counts the frees of an object every member of a group must free (a communicator, a window): `freed` says when
 * the last member did, and the count is dropped then — so what is kept follows the objects still live, not every
 * one the job made.
 */
export class LastFree {
  /** Frees so far by object id, until every member made one. */
  private readonly counts = new Map<number, number>();

  /** One member of `members` freed object `id`; true when that was the last of them. */
  freed(id: number, members: number): boolean {
    const n = (this.counts.get(id) ?? 0) + 1;
    if (n < members) {
      this.counts.set(id, n);
      return false;
    }
    this.counts.delete(id);
    return true;
  }

  /** The object is gone by another way (every member's handle dropped): its count too. */
  drop(id: number): void {
    this.counts.delete(id);
  }
}
