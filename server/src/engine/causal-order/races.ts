/**
 * Message races: a wildcard receive (MPI_ANY_SOURCE) whose message could have come from another sender,
 * because that other send was concurrent with the receive (not caused by it). Happened-before comes from
 * the run's vector clocks (causal-clocks.ts). Reported as the first race of each rank, as DESIGN.md asks.
 *
 * Decided as the clock run goes, so that nothing of the run is kept but what is undecided: a wildcard receive
 * opens when it completes, with each other sender's latest sends to its rank (all concurrent with it); the
 * sender's later sends join while they are concurrent (the sender had not heard of the receive: a prefix of its
 * sends, since its clock only grows). The receive is decided once every other rank has heard of it (no
 * concurrent send can come any more) and each candidate's own receive is known (a rival must have been
 * received later by the same rank); at the end of the run, with what is known. Per sender, the last
 * RIVAL_WINDOW concurrent sends are looked at: the ones still in flight when it chose.
 *
 * What is kept follows what can still change a verdict, not how many receives ran (`opened`): wildcard receives
 * of a rank between two moments its clock left it (a send, a collective) are heard of together by every other
 * rank, so each sender's concurrent sends, and its window, are the same for all of them, for the rest of the run.
 * Among those of one envelope (communicator, tag, call site) a later one whose every possible rival would also
 * be a rival of an earlier one still undecided can never be the rank's first race, and is not kept: a master
 * that receives from MPI_ANY_SOURCE without sending keeps two or three, not one per receive.
 *
 * A master that answers each receive (its clock leaves it between any two) while some rank never hears of them
 * is cut every so often (`summarize`): what a rank can ever know of the master's component is what some rank
 * knows now, what a message in flight or a nonblocking collective started carries (`ClockRun.heldOf`: the
 * master's own messages by their clock's row, copied anew after each wildcard receive, `fresh`), or a value it
 * has not reached yet. Receives between two such values are heard
 * of together by every rank from now on; for the ranks that already heard of one, their concurrent sends are
 * known, and once none of them can be its rival, the earlier receives of its envelope stand for it as above. So
 * what is kept follows the messages in flight and the ranks, not how many receives ran.
 */
import type { EngineFinding, RaceReplay } from '../model/types';
import { signatureMismatch } from '../model/datatypes';
import { describeOp } from '../model/describe';
import type { ClockListener, ClockRun } from './causal-clocks';
import type { P2pOp, RecvOp, SendOp } from '../model/ops';
import type { PeerOf } from './steps';
import { ANY_SOURCE, ANY_TAG } from '../model/types';

/**
 * How many of each sender's concurrent sends are looked at as rivals of a wildcard receive: the latest ones,
 * which are the ones still in flight when it chose. Bounds the check on long runs of many wildcard receives.
 * A power of two (SendWindow masks its indices with it).
 */
const RIVAL_WINDOW = 64;

/**
 * Wildcard receives of one rank undecided at once (some other rank has not heard of them yet) that no earlier
 * one stands for (`opened`, `summarize`): between two of them lies a value of the rank's clock component that
 * some rank holds or a message in flight carries, so this grows with what is pending and with the ranks, not with
 * how long the job ran. Beyond it the rank's later wildcard receives are not checked, and the check is named as
 * skipped for them.
 */
export const MAX_OPEN = 4096;

/** Receives kept as the ones that can stand for later ones (`RankRaces.group`): a bound on the search. */
const MAX_GROUP = 32;

/** Of one envelope in `RankRaces.group`, the receives a later one is compared with (`covered`). */
const MAX_COVER = 8;

/**
 * Wildcard receives opened on a rank between two summaries at least (`MessageRaces.summarize`); more when it kept
 * more, or looked at more held values: each summary costs what it looks at, spread over as many receives.
 */
const MIN_SUMMARY = 64;

/** Ranks whose races are found by index (`MessageRaces.dense`); the rest through the Map only. */
const DENSE_RANKS = 4096;

interface Wild {
  readonly recv: RecvOp;
  readonly took: SendOp;
  /** The receiving rank's own clock component at completion, and its step index. */
  readonly time: number;
  readonly order: number;
  /** Per other sender, its latest sends to this rank concurrent with the receive (at most RIVAL_WINDOW). */
  readonly windows: Map<number, SendOp[]>;
  /** Senders whose later sends are no longer concurrent (they heard of the receive). */
  readonly closed: Set<number>;
  /** The length in bytes of the message taken. */
  readonly tookBytes: number;
  /** Undecided (in `RankRaces.open`): only then can it stand for a later receive. */
  open: boolean;
  /** Senders that heard of it and none of whose concurrent sends is its rival (`closedPart`). */
  clean: Set<number> | undefined;
}

interface RankRaces {
  /** Each sender's latest sends to this rank (at most RIVAL_WINDOW), in the sender's order; by world rank. */
  recent: (SendWindow | undefined)[];
  /** Undecided wildcard receives, in the rank's order. */
  open: Wild[];
  /** The rank's first race: no later receive of it is looked at. */
  found: EngineFinding | undefined;
  /**
   * The open receives that completed since the rank's clock last left it (at most MAX_GROUP), and that moment
   * (`ClockRun.left`): every rank hears of them at once, so an earlier one can stand for a later one (`opened`).
   */
  group: Wild[];
  groupLeft: number;
  /** Wildcard receives opened since the last `summarize`, and how many open at which it runs next. */
  since: number;
  summarizeAfter: number;
  /** An open receive has a rival for sure (`summarize`): no later receive of the rank can be its first race. */
  raced: boolean;
}

/**
 * A sender's latest sends to one rank (at most RIVAL_WINDOW), oldest first: a ring. Every send of the run goes
 * through one; an array pushed and shifted (V8 moves or trims it at each shift) was 5-7% of the engine's time.
 */
class SendWindow {
  private readonly slots: (SendOp | undefined)[] = new Array<SendOp | undefined>(RIVAL_WINDOW).fill(
    undefined,
  );
  private head = 0;
  private count = 0;

  push(s: SendOp): void {
    if (this.count < RIVAL_WINDOW) this.slots[(this.head + this.count++) & (RIVAL_WINDOW - 1)] = s;
    else {
      this.slots[this.head] = s;
      this.head = (this.head + 1) & (RIVAL_WINDOW - 1);
    }
  }

  /** The sends, oldest first. */
  toArray(): SendOp[] {
    const out = new Array<SendOp>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.slots[(this.head + i) & (RIVAL_WINDOW - 1)] as SendOp;
    return out;
  }
}

const bytesOf = (s: SendOp): number => s.count * (s.dtype?.size ?? 1);

/**
 * Whether every send that could be a rival of a receive that took `took` (`tookBytes` long) is also a rival of
 * one of `group`, earlier receives of the same envelope whose senders' windows are the same (`opened`). A rival
 * is a send of a rank x other than the one taken from; unless its receive's call site differs from the wildcard
 * receive's, its (tag, length) p differs from the message taken. It escapes the group if each receive of the group
 * took x's message, or a message with p: looked for among the group's ranks and (tag, length) pairs, and a rank or
 * pair none of them has (undefined here; a site that differs is such a pair).
 */
function covered(group: readonly Wild[], took: SendOp, tookBytes: number): boolean {
  const xs: (number | undefined)[] = [undefined];
  const ps: (Wild | undefined)[] = [undefined];
  for (const a of group) {
    if (a.took.rank !== took.rank && !xs.includes(a.took.rank)) xs.push(a.took.rank);
    const pair = (b: Wild | undefined) =>
      b !== undefined && b.took.tag === a.took.tag && b.tookBytes === a.tookBytes;
    if ((a.took.tag !== took.tag || a.tookBytes !== tookBytes) && !ps.some(pair)) ps.push(a);
  }
  for (const x of xs)
    for (const p of ps) {
      const hit = (a: Wild) =>
        a.took.rank === x || (p !== undefined && a.took.tag === p.took.tag && a.tookBytes === p.tookBytes);
      if (group.every(hit)) return false;
    }
  return true;
}

const pushWindow = (l: SendOp[], s: SendOp): void => {
  l.push(s);
  if (l.length > RIVAL_WINDOW) l.shift();
};

/**
 * Each other sender's latest sends to the rank, for a wildcard receive that took one of `tookFrom`'s. Not in
 * `received`: its callback captured `took`, and so `received` allocated a context at every receive, wildcard or
 * not; here only wildcard receives make one.
 */
function concurrentSends(rr: RankRaces, tookFrom: number): Map<number, SendOp[]> {
  const windows = new Map<number, SendOp[]>();
  // forEach, not a loop to its length: `recent` is sparse (by world rank), and only its senders are visited.
  rr.recent.forEach((l, sender) => {
    if (l !== undefined && sender !== tookFrom) windows.set(sender, l.toArray());
  });
  return windows;
}

const NONE = 0;
const RACE = 1;
const UNKNOWN = 2;

/**
 * Whether the send `s` (received by `other`, if known), in a window of `w`, is its rival for sure (RACE), cannot
 * be (NONE) or not known yet (UNKNOWN): `rivals`' test, where anything not known is UNKNOWN.
 */
function rivalry(r: number, w: Wild, s: SendOp, other: P2pOp | undefined): number {
  if (s.comm !== w.recv.comm) return NONE;
  if (w.recv.tag !== ANY_TAG && s.tag !== w.recv.tag) return NONE;
  if (other === undefined) return UNKNOWN;
  if (other.rank !== r) return NONE;
  const order = other.doneIndex;
  if (order !== undefined && order <= w.order) return NONE;
  if (s.tag === w.took.tag && bytesOf(s) === w.tookBytes && other.site === w.recv.site) return NONE;
  return order === undefined ? UNKNOWN : RACE;
}

export class MessageRaces implements ClockListener {
  /** By world rank (a Map: a destination comes from a communicator's members, not from a rank we heard). */
  private readonly ranks = new Map<number, RankRaces>();
  /**
   * The same for ranks below DENSE_RANKS, by index: every send posted looks up its destination here (the Map's
   * lookup was a third of `posted`). Bounded, because a corrupt stream can name a rank of 2^40.
   */
  private readonly dense: (RankRaces | undefined)[] = [];
  /** Wildcard receives not checked because MAX_OPEN were undecided on their rank. */
  unchecked = 0;

  /** `clocks`: the clock run this listens to (a getter: the replay drops it when it gives up). */
  constructor(
    private readonly peer: PeerOf,
    private readonly run: () => ClockRun | undefined,
  ) {}

  private of(rank: number): RankRaces {
    const near = rank < DENSE_RANKS ? this.dense[rank] : undefined;
    return near !== undefined ? near : this.ofFar(rank);
  }

  /** `of` for a rank not in `dense` yet, or beyond it: made on first use. */
  private ofFar(rank: number): RankRaces {
    let rr = this.ranks.get(rank);
    if (rr === undefined)
      this.ranks.set(
        rank,
        (rr = {
          recent: [],
          open: [],
          found: undefined,
          group: [],
          groupLeft: -1,
          since: 0,
          summarizeAfter: MIN_SUMMARY,
          raced: false,
        }),
      );
    if (rank >= 0 && rank < DENSE_RANKS && (rank | 0) === rank) {
      while (this.dense.length <= rank) this.dense.push(undefined);
      this.dense[rank] = rr;
    }
    return rr;
  }

  /**
   * Every send the clock run posts comes here: kept small, the rest out of line (`window`, `joinOpen`). The
   * whole loop over open receives in this method cost ~2% of the warm engine's instructions although it nearly
   * never runs (callgrind, bench/engine-throughput's job): it kept the clock run's step from inlining it.
   */
  posted(op: P2pOp, clock: Int32Array): void {
    if (op.kind !== 'send') return;
    const rr = this.of(op.dest);
    if (rr.found !== undefined) return;
    const l = rr.recent[op.rank];
    if (l !== undefined) l.push(op);
    else this.window(rr, op);
    if (rr.open.length !== 0) this.joinOpen(rr, op, clock);
  }

  /** The sender's first send to the rank: its window. */
  private window(rr: RankRaces, op: SendOp): void {
    const l = new SendWindow();
    rr.recent[op.rank] = l;
    l.push(op);
  }

  /** A send joins the windows of the rank's undecided wildcard receives it is concurrent with. */
  private joinOpen(rr: RankRaces, op: SendOp, clock: Int32Array): void {
    const open = rr.open;
    for (let i = 0; i < open.length; i++) {
      const w = open[i] as Wild;
      if (op.rank === w.took.rank || w.closed.has(op.rank)) continue;
      if ((clock[op.dest] ?? 0) >= w.time) {
        w.closed.add(op.rank);
        continue;
      }
      const win = w.windows.get(op.rank);
      if (win === undefined) w.windows.set(op.rank, [op]);
      else pushWindow(win, op);
    }
  }

  received(op: RecvOp, time: number, index: number): void {
    const rr = this.of(op.rank);
    if (rr.found !== undefined) return;
    if (op.source === ANY_SOURCE) this.opened(rr, op, time, index);
    // Most receives find nothing undecided on their rank.
    if (rr.open.length > 0) this.decide(op.rank, rr, false);
  }

  /**
   * A wildcard receive completed: it opens, with the other senders' windows — unless earlier open receives
   * stand for it. Those of `group` completed since the rank's clock last left it: another rank's clock can hold
   * no value of the rank's component between them and this one, so each rank hears of all of them at once, and
   * each sender's concurrent sends (a prefix of its sends) are the same for them all, for the rest of the run.
   * Of the same envelope, a rival of this receive (a send of that prefix in the window, received after it) is
   * then received after them too, and is a rival of one of them unless it escapes each (`covered`): then this
   * receive has a race only if one of them, earlier, has one, so it is never the rank's first race and is not
   * kept (decided, it would block the receives after it until it is: without it they may be decided sooner,
   * never otherwise).
   */
  private opened(rr: RankRaces, op: RecvOp, time: number, index: number): void {
    if (rr.raced) return;
    const took = this.peer.get(op);
    if (took?.kind !== 'send') return;
    // The rank's sends after this receive carry a clock copied after it (`ClockRun.heldOf` sees their rows).
    this.run()?.fresh(op.rank);
    const tookBytes = bytesOf(took);
    const left = this.run()?.left(op.rank);
    if (left === undefined || left !== rr.groupLeft) {
      rr.group = [];
      rr.groupLeft = left ?? -1;
    } else if (rr.group.length > 0) {
      const same = rr.group.filter(
        (a) => a.open && a.recv.comm === op.comm && a.recv.tag === op.tag && a.recv.site === op.site,
      );
      if (same.length > 0 && covered(same, took, tookBytes)) return;
    }
    if (++rr.since >= rr.summarizeAfter || (rr.open.length >= MAX_OPEN && rr.since >= MIN_SUMMARY)) {
      this.summarize(op.rank, rr);
      if (rr.raced) return;
    }
    if (rr.open.length >= MAX_OPEN) this.unchecked++;
    else {
      // Every send already run is concurrent with this receive: no rank could have heard of it yet.
      const windows = concurrentSends(rr, took.rank);
      const w: Wild = {
        recv: op,
        took,
        time,
        order: index,
        windows,
        closed: new Set(),
        tookBytes,
        open: true,
        clean: undefined,
      };
      rr.open.push(w);
      if (left !== undefined && rr.group.length < MAX_GROUP) {
        const n = rr.group.reduce(
          (k, a) => (a.recv.comm === op.comm && a.recv.tag === op.tag && a.recv.site === op.site ? k + 1 : k),
          0,
        );
        if (n < MAX_COVER) rr.group.push(w);
      }
    }
  }

  /**
   * The rank's open receives cut to those that can still be its first race (see the header): the others are
   * dropped, not decided. Receives between two values of the rank's component that some rank holds or could
   * still take (`ClockRun.heldOf`) are heard of together by every rank from
   * now on; of those, a receive none of whose senders that heard of it sent it a rival (`closedPart`) can only
   * have rivals from the senders that did not, whose sends are then the same for all of them: an earlier one of
   * its envelope stands for it as in `opened` (`covered`). A receive with a sure rival ends the search: no later
   * one can be first.
   */
  private summarize(r: number, rr: RankRaces): void {
    rr.since = 0;
    const run = this.run();
    const open = rr.open;
    if (run === undefined || open.length === 0) return;
    const first = (open[0] as Wild).time;
    const held: number[] = [];
    const looked = run.heldOf(r, first, held);
    held.sort((a, b) => a - b);
    const kept: Wild[] = [];
    let group: Wild[] = [];
    let seg = -1;
    let h = 0;
    for (const w of open) {
      if (rr.raced) {
        w.open = false;
        continue;
      }
      // The segment: how many held values are below the receive's time (a value v splits two receives when
      // the earlier's time <= v < the later's: a rank holding v heard of the one and not of the other).
      while (h < held.length && (held[h] as number) < w.time) h++;
      if (h !== seg) {
        seg = h;
        group = [];
      }
      const part = this.closedPart(r, w, run);
      if (part === RACE) {
        kept.push(w);
        rr.raced = true;
        continue;
      }
      const same = group.filter(
        (a) => a.recv.comm === w.recv.comm && a.recv.tag === w.recv.tag && a.recv.site === w.recv.site,
      );
      if (part === NONE && same.length > 0 && covered(same, w.took, w.tookBytes)) {
        w.open = false;
        continue;
      }
      kept.push(w);
      if (same.length < MAX_COVER && group.length < MAX_GROUP) group.push(w);
    }
    rr.open = kept;
    rr.group = rr.group.filter((a) => a.open);
    rr.summarizeAfter = Math.max(MIN_SUMMARY, kept.length, Math.ceil(looked / 4));
  }

  /**
   * What the senders that heard of the receive (their clock's component of the rank at its time or beyond) do to
   * it: their concurrent sends are all known (a prefix of their sends ended when they heard), so whether one of
   * them is a rival is known once its receive is: RACE if one is for sure, NONE if none can be, else UNKNOWN.
   */
  private closedPart(r: number, w: Wild, run: ClockRun): number {
    let part = NONE;
    for (const [q, win] of w.windows) {
      if (w.clean?.has(q) === true) continue;
      if ((run.clock(q)[r] ?? 0) < w.time) continue;
      let sure = NONE;
      for (const s of win) {
        const v = rivalry(r, w, s, this.peer.get(s));
        if (v === RACE) return RACE;
        if (v === UNKNOWN) sure = UNKNOWN;
      }
      if (sure === NONE) (w.clean ??= new Set()).add(q);
      else part = UNKNOWN;
    }
    return part;
  }

  progress(): void {
    for (const [rank, rr] of this.ranks) this.decide(rank, rr, false);
  }

  end(): void {
    for (const [rank, rr] of this.ranks) this.decide(rank, rr, true);
  }

  /** The first race of each rank, in rank order (complete after the clock run ended). */
  findings(): EngineFinding[] {
    return [...this.ranks]
      .sort((a, b) => a[0] - b[0])
      .flatMap(([, rr]) => (rr.found === undefined ? [] : [rr.found]));
  }

  /** Decides the rank's open receives in order, as far as they can be (all of them at the end). */
  private decide(rank: number, rr: RankRaces, final: boolean): void {
    while (rr.found === undefined && rr.open.length > 0) {
      const w = rr.open[0] as Wild;
      const rivals = this.rivals(rank, w, final);
      if (rivals === undefined) return;
      rr.open.shift();
      w.open = false;
      if (rivals.length > 0) {
        rr.found = finding(rank, w, rivals);
        for (const o of rr.open) o.open = false;
        rr.open = [];
        rr.recent = [];
        rr.group = [];
      }
    }
  }

  /** The receive's rivals; undefined while a concurrent send may still come, or a candidate's receive is unknown. */
  private rivals(r: number, w: Wild, final: boolean): SendOp[] | undefined {
    const clocks = this.run();
    if (clocks === undefined) return [];
    if (!final) {
      // Every other rank must have heard of the receive: until then it may still send concurrently.
      for (let q = 0; q < clocks.size; q++) {
        if (q === w.took.rank || q === r || w.closed.has(q)) continue;
        if ((clocks.clock(q)[r] ?? 0) < w.time) return undefined;
        w.closed.add(q);
      }
    }
    const rivals: SendOp[] = [];
    for (const sender of [...w.windows.keys()].sort((a, b) => a - b)) {
      for (const s of w.windows.get(sender) ?? []) {
        if (s.comm !== w.recv.comm) continue;
        if (w.recv.tag !== ANY_TAG && s.tag !== w.recv.tag) continue;
        // The rival must have been available: received later by this rank (a send never received is an
        // unmatched message, not a race).
        const other = this.peer.get(s);
        if (other === undefined) {
          if (final) continue;
          return undefined;
        }
        if (other.rank !== r) continue;
        // A receive that never completed in the causal order (its rank stuck) counts as later.
        const order = other.doneIndex;
        if (order === undefined && !final) return undefined;
        if (order !== undefined && order <= w.order) continue;
        // Observable: interchangeable messages (same tag and length, taken by the same call) are no race.
        if (s.tag !== w.took.tag || bytesOf(s) !== w.tookBytes || other.site !== w.recv.site) rivals.push(s);
      }
    }
    return rivals;
  }
}

/**
 * What the receive does with a rival's message instead, when the recorded calls decide it: a message longer
 * than the receive buffer is truncated (MPI_ERR_TRUNCATE, fatal by default), and a different type signature is
 * a type mismatch. Undefined when only a rerun can tell (what the program then does with the data).
 */
export function predictOther(recv: RecvOp, s: SendOp): string | undefined {
  if (recv.kind !== 'recv') return undefined;
  const bytes = s.count * (s.dtype?.size ?? 0);
  const room = recv.count * (recv.dtype?.size ?? 0);
  if (s.dtype !== undefined && recv.dtype !== undefined && bytes > room)
    return `truncation: its ${bytes} bytes exceed the ${room} the receive holds (count-mismatch; MPI_ERR_TRUNCATE)`;
  if (s.dtype !== undefined && recv.dtype !== undefined) {
    const m = signatureMismatch(s.dtype, s.count, recv.dtype, recv.count);
    if (m !== undefined) return `type mismatch: ${m.sent} sent, ${m.received} received (type-mismatch)`;
  }
  return undefined;
}

/** The replay handle of the finding: the receive by (rank, k-th wildcard receive) and its senders. */
function raceReplay(r: number, w: Wild, rivals: readonly SendOp[]): RaceReplay | undefined {
  const k = w.recv.wildcard;
  if (k === undefined) return undefined;
  const alternatives = [...new Set(rivals.map((s) => s.rank))];
  const predicted = alternatives.flatMap((sender) => {
    const first = rivals.find((s) => s.rank === sender) as SendOp;
    const outcome = predictOther(w.recv, first);
    return outcome === undefined ? [] : [{ sender, outcome }];
  });
  return {
    id: `${r}.${k}.${alternatives[0] ?? w.took.rank}`,
    rank: r,
    wildcard: k,
    took: w.took.rank,
    alternatives,
    ...(predicted.length > 0 ? { predicted } : {}),
  };
}

function finding(r: number, w: Wild, rivals: readonly SendOp[]): EngineFinding {
  const { recv, took } = w;
  const rival = rivals[0] as SendOp;
  const race = raceReplay(r, w, rivals);
  const said = race?.predicted?.find((p) => p.sender === rival.rank);
  const other =
    said !== undefined
      ? ` Taking rank ${rival.rank}'s message instead is decided by the recorded calls: ${said.outcome}.`
      : race !== undefined
        ? ` To see what the other message does: mpiscope run --replay-race ${race.id} with the same job.`
        : '';
  return {
    kind: 'message-race',
    severity: 'warning',
    message: `Rank ${r}'s ${recv.fn.name} from any rank took the message of rank ${took.rank}, but rank ${rival.rank}'s ${rival.fn.name} could have arrived first: the outcome depends on timing. Receive from a specific rank, or make the sends ordered (e.g. a token).${other}`,
    ...(race !== undefined ? { race } : {}),
    locations: [
      {
        rank: r,
        site: recv.site,
        call: recv.fn.name,
        detail: `${describeOp(recv)}: took rank ${took.rank}'s message`,
      },
      {
        rank: took.rank,
        site: took.site,
        call: took.fn.name,
        detail: `${describeOp(took)}: the message taken`,
      },
      ...rivals.map((s) => ({
        rank: s.rank,
        site: s.site,
        call: s.fn.name,
        detail: `${describeOp(s)}: could have been taken instead`,
      })),
    ],
  };
}
