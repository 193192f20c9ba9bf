/**
 * Findings from several shards, merged into the order one engine alone gives, whatever the number of shards
 * and however their threads were scheduled. Every shard sees the same stream of items (frames, ends of
 * connections) and takes its findings after each item, tagged with the item's position; a finding is
 * released once every shard has passed its position, in the order (position, content). A lone engine's
 * findings go through the same merge, so the report is the same byte for byte for any number of shards.
 */
import type { EngineFinding } from '../engine/model/types';

interface Tagged {
  readonly item: number;
  readonly key: string;
  readonly finding: EngineFinding;
}

/** A finding's content as one string: the order among findings of one item, and of the end-of-run ones. */
export function findingKey(f: EngineFinding): string {
  const where = f.locations.map((l) => `${l.rank}\u0001${l.site}\u0001${l.call}\u0001${l.detail}`);
  return `${f.kind}\u0000${f.severity}\u0000${f.message}\u0000${where.join('\u0002')}`;
}

function byPositionThenContent(a: Tagged, b: Tagged): number {
  if (a.item !== b.item) return a.item - b.item;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Findings in content order (the end-of-run findings, which have no position in the stream). */
export function inContentOrder(found: readonly EngineFinding[]): EngineFinding[] {
  return found
    .map((finding) => ({ item: 0, key: findingKey(finding), finding }))
    .sort(byPositionThenContent)
    .map((t) => t.finding);
}

export class FindingMerge {
  private waiting: Tagged[] = [];
  /** Per source (shard), the number of items it has fully taken findings of. */
  private readonly passed: number[];

  constructor(sources: number) {
    this.passed = new Array<number>(sources).fill(0);
  }

  /** Source `source` found these after item `item` (0-based position in the stream). */
  add(source: number, item: number, found: readonly EngineFinding[]): void {
    for (const finding of found) this.waiting.push({ item, key: findingKey(finding), finding });
  }

  /** Source `source` has taken the findings of its first `items` items. */
  progress(source: number, items: number): void {
    const p = this.passed[source];
    if (p !== undefined && items > p) this.passed[source] = items;
  }

  /** Findings every source has passed, in order. */
  release(): EngineFinding[] {
    if (this.waiting.length === 0) return [];
    const upTo = Math.min(...this.passed);
    const ready = this.waiting.filter((t) => t.item < upTo);
    if (ready.length === 0) return [];
    this.waiting = this.waiting.filter((t) => t.item >= upTo);
    return ready.sort(byPositionThenContent).map((t) => t.finding);
  }

  /** Everything still waiting, in order (every source has finished). */
  releaseAll(): EngineFinding[] {
    const all = this.waiting.sort(byPositionThenContent).map((t) => t.finding);
    this.waiting = [];
    return all;
  }
}
