/**
 * Findings the engine marks as one across ranks (EngineFinding.merge): a later rank's part, which came after the
 * session had taken the first, joins the first finding's locations instead of standing alone — when its message
 * and its resolved call site are the first one's (the same call, the same check, the same argument). The live
 * session and `mpiscope report` use it alike, so a report lists every rank whatever the streams' timing.
 */
import type { Finding, Location } from './session-api';

export class RankMerge {
  /** Merge key → index of its first finding in the list. */
  private readonly first = new Map<string, number>();

  /**
   * Appends `f` to `list`, or adds its locations to the earlier finding with the same key: then returns that
   * finding as it is now (replaced in `list`) and the locations it gained.
   */
  add(
    list: Finding[],
    f: Finding,
    key: string | undefined,
  ): { readonly finding: Finding; readonly added: readonly Location[] } | undefined {
    const at = key === undefined ? undefined : this.first.get(key);
    const prior = at === undefined ? undefined : list[at];
    if (at === undefined || prior === undefined || !sameCall(prior, f)) {
      if (key !== undefined && at === undefined) this.first.set(key, list.length);
      list.push(f);
      return undefined;
    }
    const added = f.locations.filter((l) => !prior.locations.some((p) => p.rank === l.rank));
    const finding = { ...prior, locations: [...prior.locations, ...added].sort((a, b) => a.rank - b.rank) };
    list[at] = finding;
    return { finding, added };
  }
}

function sameCall(a: Finding, b: Finding): boolean {
  const [x] = a.locations;
  return (
    a.kind === b.kind &&
    a.severity === b.severity &&
    a.message === b.message &&
    x !== undefined &&
    b.locations.every((l) => l.file === x.file && l.line === x.line && l.function === x.function)
  );
}
