/**
 * Everything the engine knows, shared by its handlers (one object, so the hot path does no lookups of its
 * own). Only the root of the engine (engine.ts, calls.ts) sees this class; checks are given it through the
 * narrower interfaces they declare (CheckContext in model/check-context.ts and its extensions).
 */
import { CommRegistry } from './model/comms';
import { Matcher, type MatchListener } from './point-to-point/matching';
import { RankTrack } from './model/rank-track';
import { Resources } from './lifecycle/resources';
import { Datatypes } from './model/datatypes';
import { Groups } from './model/groups';
import { Replay } from './causal-order/replay';
import { BsendSpace } from './point-to-point/bsend-space';
import { HeldFindings } from './model/held-findings';
import { CallSites } from './model/call-sites';
import { FreedSendReuse } from './point-to-point/freed-send-reuse';
import { RecvBufferReads } from './point-to-point/recv-buffer-read';
import { RecvOverlaps } from './point-to-point/recv-overlap';
import { MessageRaces } from './causal-order/races';
import { RmaTracker } from './one-sided/rma';
import { WindowRegistry } from './one-sided/windows';
import type { CheckContext } from './model/check-context';
import { OWNS_ALL, type Ownership } from './model/ownership';
import type { EngineFinding } from './model/types';
import { objectArray } from './model/elements';
import type { P2pOp, RecvOp, SendOp } from './model/ops';
import type { ClockListener } from './causal-order/causal-clocks';

export interface EngineOptions {
  /** Number of ranks in the job (MPI_COMM_WORLD's size), when known before the first event. */
  readonly ranks?: number;
  /** The replay's memory bound, in blocking steps (default 2,000,000); beyond it its checks are skipped. */
  readonly replaySteps?: number;
  /** The one-sided accesses kept per epoch (default 200,000); beyond, rma-race is named as partial. */
  readonly rmaAccesses?: number;
  /**
   * This engine is one shard of several (server/src/shards): the pairs and communicators whose checks it
   * runs, and whether it is the global shard. Absent: it owns everything.
   */
  readonly owns?: Ownership;
}

export type MatchHook = MatchListener;

export class EngineState implements CheckContext, MatchListener {
  readonly comms: CommRegistry;
  readonly matcher: Matcher;
  readonly tracks: RankTrack[] = objectArray();
  readonly findings: EngineFinding[] = objectArray();
  readonly resources = new Resources();
  readonly dtypes = new Datatypes();
  readonly replay: Replay;
  /** Buffered sends and the attached buffer: the space check, decided as the clock run goes. */
  readonly bsend: BsendSpace;
  /** Per-rank findings merged across ranks, released at the end of the run or at a deadlock. */
  readonly held = new HeldFindings();
  /** Which return addresses of different ranks are the same call site (from SITE records). */
  readonly sites = new CallSites();
  /** Receives into the buffer of a send whose request was freed while active, decided as the clock run goes. */
  readonly freedSends: FreedSendReuse;
  /** Blocking sends reading a pending receive's buffer, judged with happened-before. */
  readonly recvReads: RecvBufferReads;
  /** Two pending receives into the same bytes, judged once both have their messages. */
  readonly recvOverlaps: RecvOverlaps;
  /** Wildcard receives whose message another concurrent send could have been, decided as the clock run goes. */
  readonly races: MessageRaces;
  readonly windows: WindowRegistry;
  readonly groups: Groups;
  readonly rma: RmaTracker;
  /** Checks that want to see every match (type and count checks). */
  readonly matchHooks: MatchHook[] = [];
  /** Records lost in transit: findings that depend on completeness are softened. */
  lost = 0;
  worldSize: number;
  readonly owns: Ownership;
  /** Inside an owned check (asOwner): a shard that is not global reports only there. */
  private owning = 0;

  constructor(options: EngineOptions) {
    this.worldSize = options.ranks ?? 0;
    const owns = (this.owns = options.owns ?? OWNS_ALL);
    this.replay = new Replay(this.worldSize, options.replaySteps);
    this.rma = new RmaTracker(options.rmaAccesses);
    // Only the global shard replays the run (potential deadlocks, races, buffered-send space).
    if (!owns.global) this.replay.enabled = false;
    const peer = this.replay.peer;
    this.bsend = new BsendSpace(peer);
    this.freedSends = new FreedSendReuse(peer);
    this.races = new MessageRaces(peer, () => this.replay.clocks);
    const hold = this.held.add.bind(this.held);
    this.recvReads = new RecvBufferReads(
      () => this.replay.enabled && this.replay.clocks !== undefined,
      (f) => this.report(f),
      hold,
    );
    this.recvOverlaps = new RecvOverlaps((f) => this.report(f), hold);
    const clocks = this.replay.clocks;
    // The checks built on happened-before hear of each step as the clock run reaches it.
    // One listener that calls each check by name: a loop over the four (three shapes) made the clock run's
    // call sites polymorphic, at every step.
    if (clocks !== undefined)
      clocks.listener = new ClockChecks(this.races, this.recvReads, this.bsend, this.freedSends);
    this.comms = new CommRegistry(this.worldSize);
    this.windows = new WindowRegistry(this.comms);
    this.groups = new Groups(this.comms);
    // A shard matches every channel it is sent. Every receive goes to its rank's home shard with every send
    // into that rank, so a receive completed without a status (MPI_ERR_TRUNCATE on a wildcard receive,
    // records lost), which takes the oldest send its envelope accepts on any channel, is paired there as one
    // engine pairs it (ARCHITECTURE.md, "Shards"). The checks of a matched message run in the shard that
    // owns its pair.
    this.matcher = new Matcher(this);
    for (let r = 0; r < this.worldSize; r++) this.tracks.push(new RankTrack(r));
  }

  /** A send and its receive were matched (the matcher's listener). */
  matched(s: SendOp, r: RecvOp): void {
    this.replay.matched(s, r);
    this.recvOverlaps.matched(s, r);
    if (this.matchHooks.length === 0 || !this.owns.pair(s.rank, r.rank)) return;
    // asOwner's bracket written out: a closure per matched message was the most allocated object left.
    this.owning++;
    try {
      for (let i = 0; i < this.matchHooks.length; i++) (this.matchHooks[i] as MatchListener).matched(s, r);
    } finally {
      this.owning--;
    }
  }

  track(rank: number): RankTrack {
    const t = this.tracks[rank];
    if (t !== undefined) return t;
    // A rank beyond the announced size: grow (the job's size was not known, or a COMM record told us).
    while (this.tracks.length <= rank) this.tracks.push(new RankTrack(this.tracks.length));
    this.worldSize = this.tracks.length;
    this.comms.setWorldSize(this.worldSize);
    return this.track(rank);
  }

  report(f: EngineFinding): void {
    // A shard that is not global computes the rest of the model only to run its owned checks; the global
    // shard reports what that rest finds, once.
    if (!this.owns.global && this.owning === 0) return;
    this.findings.push(f);
  }

  /**
   * Findings that wait for more ranks before the session takes them (reportWhen): in reporting order, each with
   * the test that says it is complete.
   */
  private readonly ripening: { readonly finding: EngineFinding; readonly ripe: () => boolean }[] = [];

  /** Checks the shim stopped running, by id, and the ranks where it did (Engine.skippedChecks names them). */
  readonly shimChecksOff = new Map<string, Set<number>>();

  /** Bounds of the engine that made a check partial, by id (Engine.skippedChecks names them). */
  readonly boundsReached = new Set<string>();

  boundReached(id: string): void {
    this.boundsReached.add(id);
  }

  shimCheckOff(check: string, rank: number): void {
    let ranks = this.shimChecksOff.get(check);
    if (ranks === undefined) this.shimChecksOff.set(check, (ranks = new Set()));
    ranks.add(rank);
  }

  reportWhen(f: EngineFinding, ripe: () => boolean): void {
    if (!this.owns.global && this.owning === 0) return;
    if (ripe()) this.findings.push(f);
    else this.ripening.push({ finding: f, ripe });
  }

  /** Moves the findings that are complete (all of them with `all`) to those the session takes next. */
  ripen(all: boolean): void {
    if (this.ripening.length === 0) return;
    let kept = 0;
    for (const r of this.ripening) {
      if (all || r.ripe()) this.findings.push(r.finding);
      else this.ripening[kept++] = r;
    }
    this.ripening.length = kept;
  }

  asOwner(check: () => void): void {
    this.owning++;
    try {
      check();
    } finally {
      this.owning--;
    }
  }

  isPending(f: EngineFinding): boolean {
    return this.findings.includes(f) || this.ripening.some((r) => r.finding === f);
  }

  private readonly memories = new Map<string, unknown>();

  memory<T>(check: string, make: () => T): T {
    if (this.memories.has(check)) return this.memories.get(check) as T;
    const m = make();
    this.memories.set(check, m);
    return m;
  }
}

/** The checks built on happened-before, in the order they hear of each step of the clock run. */
class ClockChecks implements ClockListener {
  constructor(
    private readonly races: MessageRaces,
    private readonly recvReads: RecvBufferReads,
    private readonly bsend: BsendSpace,
    private readonly freedSends: FreedSendReuse,
  ) {}

  posted(op: P2pOp, clock: Int32Array): void {
    this.races.posted(op, clock);
    this.recvReads.posted(op, clock);
    this.bsend.onPosted(op, clock);
    this.freedSends.onPosted(op, clock);
  }

  received(op: RecvOp, time: number, index: number): void {
    this.races.received(op, time, index);
    this.recvReads.received(op);
    this.bsend.onReceived(op, time);
  }

  progress(): void {
    this.races.progress();
  }

  end(): void {
    this.races.end();
    this.recvReads.end();
  }
}
