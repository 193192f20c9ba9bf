import {
  CallClass,
  isTimelineMessage,
  type OpenCall,
  type TimelineData,
  type TimelineFinding,
  type TimelineFunction,
  type TimelineSite,
} from '../../../server/src/timeline/timeline-protocol';
import { unpackBlock } from '../../../server/src/timeline/packed-columns';
import { Growable } from './growable';
import { Lane } from './lane';
import { fineBuckets, LodPyramid } from './lod';
import { lowerBound, refreshEndMax, upperBound } from './search';
import { sortTail } from './sort-tail';

/** Messages as columns, sorted by send time (arrows are searched by their tail). */
export class MessageTable {
  readonly src = new Growable();
  readonly sendTime = new Growable();
  readonly dst = new Growable();
  readonly recvTime = new Growable();
  readonly bytes = new Growable();
  readonly tag = new Growable();
  /** max(sendTime, recvTime): where the arrow ends in time, whichever way it points. */
  readonly late = new Growable();
  /** Running maximum of `late`, for visibleRange. */
  readonly endMax = new Growable();
  maxDuration = 0;
  private sortedUpTo = 0;

  get length(): number {
    return this.src.length;
  }

  push(src: number, sendTime: number, dst: number, recvTime: number, bytes: number, tag: number): void {
    this.src.push(src);
    this.sendTime.push(sendTime);
    this.dst.push(dst);
    this.recvTime.push(recvTime);
    this.bytes.push(bytes);
    this.tag.push(tag);
    this.late.push(Math.max(sendTime, recvTime));
    const d = Math.abs(recvTime - sendTime);
    if (d > this.maxDuration) this.maxDuration = d;
  }

  /** Messages are paired in receive order, so a batch is rarely in send order: merge it in by send time. */
  settle(): void {
    const cols = [this.src, this.sendTime, this.dst, this.recvTime, this.bytes, this.tag, this.late];
    const from = sortTail(this.sendTime, cols, this.sortedUpTo);
    refreshEndMax(this.late, this.endMax, Math.min(from, this.endMax.length));
    this.sortedUpTo = this.length;
  }
}

/**
 * Everything the webview knows about the job, built from TimelineMessages. Components read it directly
 * (typed arrays, no copies) and re-render when `version` changes.
 */
export class TimelineStore {
  ranks = 0;
  program = '';
  now = 0;
  ended = false;
  lanes: Lane[] = [];
  messages = new MessageTable();
  /** Per-lane summary by time bucket and call class, for frames whose calls are narrower than a pixel. */
  lod = new LodPyramid(fineBuckets(1));
  readonly functions = new Map<number, TimelineFunction>();
  readonly sites = new Map<number, TimelineSite>();
  findings: TimelineFinding[] = [];
  open: OpenCall[] = [];
  /** Bytes sent from rank i to rank j at [i * ranks + j]. */
  matrix = new Float64Array(0);
  /** Bumped on every change; views compare it to know when to redraw. */
  version = 0;
  /** The job comes from a trace (TimelineReset.replay): its batches come as fast as they are decoded. */
  replay = false;
  /** The last data batch's seq, to notice a gap (a lost batch means the picture is incomplete). */
  lastSeq = -1;
  gaps = 0;
  private readonly listeners = new Set<() => void>();
  /** Collectives seen per rank and communicator, to number each call's instance (Lane.coll). */
  private collCount = new Map<number, number>();

  /** Applies one message from the host; anything that is not a TimelineMessage is ignored. */
  apply(message: unknown): boolean {
    if (!isTimelineMessage(message)) return false;
    if (message.type === 'reset') {
      this.reset(message.ranks, message.program);
      this.replay = message.replay === true;
    } else {
      this.data(message);
    }
    this.version++;
    for (const l of this.listeners) l();
    return true;
  }

  /**
   * While a trace loads, views draw its progress every 400 ms rather than at every batch; the frame with the
   * whole job comes at once (the last batch ends it). A live job's batches (every 100 ms) are each drawn.
   */
  get changeInterval(): number {
    return this.replay && !this.ended ? 400 : 0;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Time extent of everything known: [0, now], never empty. */
  get extent(): [number, number] {
    return [0, Math.max(this.now, 1)];
  }

  get spanCount(): number {
    return this.lanes.reduce((n, l) => n + l.length, 0);
  }

  /** Function ids whose name contains `text` (case-insensitive, with or without the MPI_ prefix). */
  functionsMatching(text: string): Set<number> {
    const q = text.trim().toLowerCase().replace(/^mpi_/, '');
    const out = new Set<number>();
    if (q === '') return out;
    for (const f of this.functions.values()) if (f.name.toLowerCase().includes(q)) out.add(f.id);
    return out;
  }

  /**
   * How many calls have one of these functions, the calls still in progress included (a scan of the fn
   * columns: no index to keep up).
   */
  countCalls(fns: ReadonlySet<number>): number {
    if (fns.size === 0) return 0;
    let n = this.open.filter((o) => fns.has(o.fn)).length;
    for (const lane of this.lanes) {
      const f = lane.fn.values;
      for (let i = 0; i < f.length; i++) if (fns.has(f[i] as number)) n++;
    }
    return n;
  }

  /**
   * The next call (by start, after `t`; before it when `dir` is -1) with one of these functions, over every
   * rank: for the search's next/previous. Each lane is searched from the binary-searched position outwards.
   */
  nextCall(fns: ReadonlySet<number>, t: number, dir: 1 | -1): { rank: number; index: number } | undefined {
    let best: { rank: number; index: number; start: number } | undefined;
    this.lanes.forEach((lane, rank) => {
      const starts = lane.start.values;
      const f = lane.fn.values;
      if (dir === 1) {
        for (let i = upperBound(starts, lane.length, t); i < lane.length; i++) {
          const s = starts[i] as number;
          if (best !== undefined && s >= best.start) break;
          if (fns.has(f[i] as number)) {
            best = { rank, index: i, start: s };
            break;
          }
        }
      } else {
        for (let i = lowerBound(starts, lane.length, t) - 1; i >= 0; i--) {
          const s = starts[i] as number;
          if (best !== undefined && s <= best.start) break;
          if (fns.has(f[i] as number)) {
            best = { rank, index: i, start: s };
            break;
          }
        }
      }
    });
    // Calls in progress (a blocked receive) are found too, as their lane's index -1 (SpanRef's open call).
    for (const o of this.open) {
      if (!fns.has(o.fn)) continue;
      const after = dir === 1 ? o.start > t : o.start < t;
      const better = best === undefined || (dir === 1 ? o.start < best.start : o.start > best.start);
      if (after && better) best = { rank: o.rank, index: -1, start: o.start };
    }
    return best === undefined ? undefined : { rank: best.rank, index: best.index };
  }

  functionName(fn: number): string {
    return this.functions.get(fn)?.name ?? `function ${fn}`;
  }

  private reset(ranks: number, program: string): void {
    this.ranks = 0;
    this.program = program;
    this.now = 0;
    this.ended = false;
    this.lanes = [];
    this.messages = new MessageTable();
    this.lod = new LodPyramid(fineBuckets(ranks));
    this.functions.clear();
    this.sites.clear();
    this.findings = [];
    this.open = [];
    this.matrix = new Float64Array(0);
    this.lastSeq = -1;
    this.gaps = 0;
    this.collCount = new Map();
    this.grow(ranks);
  }

  private grow(ranks: number): void {
    if (ranks <= this.ranks) return;
    while (this.lanes.length < ranks) this.lanes.push(new Lane());
    this.lod.grow(ranks);
    const m = new Float64Array(ranks * ranks);
    for (let i = 0; i < this.ranks; i++) {
      for (let j = 0; j < this.ranks; j++) m[i * ranks + j] = this.matrix[i * this.ranks + j] ?? 0;
    }
    this.matrix = m;
    this.ranks = ranks;
  }

  private data(d: TimelineData): void {
    if (this.lastSeq >= 0 && d.seq !== this.lastSeq + 1) this.gaps++;
    this.lastSeq = d.seq;
    this.grow(d.ranks);
    this.now = Math.max(this.now, d.now);
    this.ended = d.ended;
    for (const f of d.functions) this.functions.set(f.id, f);
    for (const s of d.sites) this.sites.set(s.id, s);
    // A trace editor's batch comes packed (one ArrayBuffer, its columns as narrow as their values allow).
    const cols = d.packed !== undefined ? unpackBlock(new Uint8Array(d.packed), 0) : d;
    const sp = cols.spans;
    const touched = new Set<Lane>();
    let latest = this.now;
    for (const e of sp.end) if (e > latest) latest = e;
    this.lod.cover(latest);
    // Per row: the class of its function from an array by id (a Map lookup per call was a tenth of the
    // ingest), and its lane marked touched once per run of rows of one rank.
    const clsOf: number[] = [];
    for (const f of this.functions.values()) if (f.id >= 0 && f.id < 65536) clsOf[f.id] = f.cls;
    let lastLane: Lane | undefined;
    for (let i = 0; i < sp.rank.length; i++) {
      const rank = sp.rank[i] ?? 0;
      if (rank >= this.ranks) this.grow(rank + 1);
      const lane = this.lanes[rank];
      if (lane === undefined) continue;
      const fn = sp.fn[i] ?? 0;
      const comm = sp.comm[i] ?? -1;
      let coll = -1;
      const cls = clsOf[fn] ?? this.functions.get(fn)?.cls ?? 0;
      if (comm >= 0 && cls === CallClass.collective) {
        // Calls of a rank come in start order (one thread), so counting numbers its collectives in order.
        const key = comm * 65536 + rank;
        coll = this.collCount.get(key) ?? 0;
        this.collCount.set(key, coll + 1);
      }
      const start = sp.start[i] ?? 0;
      const end = sp.end[i] ?? 0;
      lane.push(start, end, fn, sp.site[i] ?? -1, comm, coll);
      this.lod.add(rank, start, end, cls);
      if (lane !== lastLane) {
        touched.add(lane);
        lastLane = lane;
      }
    }
    for (const lane of touched) lane.settle();
    const m = cols.messages;
    for (let i = 0; i < m.src.length; i++) {
      const src = m.src[i] ?? 0;
      const dst = m.dst[i] ?? 0;
      const bytes = m.bytes[i] ?? 0;
      this.messages.push(src, m.sendTime[i] ?? 0, dst, m.recvTime[i] ?? 0, bytes, m.tag[i] ?? 0);
      if (src >= 0 && dst >= 0 && src < this.ranks && dst < this.ranks) {
        const k = src * this.ranks + dst;
        this.matrix[k] = (this.matrix[k] ?? 0) + bytes;
      }
    }
    this.messages.settle();
    // A new array, never a push: lit re-renders a child only when a property changes identity, so the
    // findings list (given store.findings) would keep showing the findings of its first render.
    if (d.findings.length > 0) this.findings = [...this.findings, ...d.findings];
    this.open = d.open;
  }
}
