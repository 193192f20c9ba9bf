/**
 * Per-rank findings merged across ranks: the same defect at the same call site on several ranks is one
 * finding with a location per rank (test/programs/README.md). A finding already handed to the session cannot
 * take more locations, and the ranks' streams arrive with any lag, so a rank's violation seen early could only
 * become a second finding when another rank's arrives later. These findings are therefore held and grouped
 * when released, once: at the end of the run, or when a deadlock is found (the session then ends the job
 * without finish()). Grouping then also has every SITE record, which is what tells two ranks' return
 * addresses apart or equal (call-sites.ts).
 */
import type { CallSites } from './call-sites';
import type { EngineFinding, RawLocation } from './types';
import { addTo } from './group-by';

/** The finding for these ranks (sorted) and locations (in rank order). */
type Make = (ranks: readonly number[], locations: readonly RawLocation[]) => EngineFinding;

interface Held {
  /** What the defect is, apart from where: the same key at the same sites merges. */
  readonly key: string;
  readonly rank: number;
  /** The locations; their sites are the "where". */
  readonly locations: readonly RawLocation[];
  readonly make: Make;
}

export class HeldFindings {
  private held: Held[] = [];

  add(key: string, rank: number, locations: readonly RawLocation[], make: Make): void {
    this.held.push({ key, rank, locations, make });
  }

  /** Every held finding, merged across ranks, once; later additions start new ones. */
  release(sites: CallSites): EngineFinding[] {
    const groups = new Map<string, Held[]>();
    for (const h of this.held) {
      const where = h.locations.map((l) => sites.key(l.rank, l.site)).join('|');
      const k = `${h.key}|${where}`;
      addTo(groups, k, h);
    }
    this.held = [];
    return [...groups.values()].map((g) => {
      const sorted = [...g].sort((a, b) => a.rank - b.rank);
      const first = sorted[0] as Held;
      return first.make(
        [...new Set(sorted.map((h) => h.rank))],
        sorted.flatMap((h) => h.locations),
      );
    });
  }
}
