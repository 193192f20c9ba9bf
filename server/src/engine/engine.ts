/**
 * The engine: decoded events in, findings out. Pure (no clock, no I/O); see README.md for the model.
 */
import { messageQueues, type MessageQueues } from './point-to-point/message-queues';
import { onComplete, onEnter, onExit } from './calls';
import { checkOpenCollectives } from './collectives/collectives';
import { deadlockFinding } from './deadlock/deadlock-report';
import type { Engine, EngineRouting } from './engine-api';
import { EngineState, type EngineOptions } from './engine-state';
import { unmatchedFindings } from './point-to-point/unmatched';
import type { EngineFinding, RankEvent, RankState, SkippedCheck } from './model/types';
import { buildWaitGraph, isBlockingClass } from './deadlock/wait-graph';
import { describeOp } from './model/describe';
import { peerWorld } from './model/comms';
import { installP2pChecks } from './point-to-point/p2p-checks';
import { MAX_RANKS } from './causal-order/causal-clocks';
import { MAX_OPEN } from './causal-order/races';
import { MAX_STEPS } from './causal-order/replay';
import { MAX_SENDS } from './point-to-point/bsend-space';
import { MAX_PAIRS as RMA_MAX_PAIRS } from './one-sided/rma-races';
import { MAX_MEMBERS as COLL_MAX_MEMBERS } from './collectives/coll-pairs';
import { MAX_CANDIDATES } from './point-to-point/freed-send-reuse';
import { SHIM_CHECKS_OFF, shimFinding } from './lifecycle/shim-findings';
import { appendEvent } from '../protocol/append-event';
import { eventAt } from '../protocol/build-event';
import { RecordColumns } from '../protocol/columns';
import { RankDecoder } from '../protocol/decoder';
import { KIND } from '../protocol/spec';
import { CompleteRow, enterOf, ExitRow } from './call-rows';
import { localWindowAccess } from './lifecycle/memory-access';
import { WordBatch } from './model/rank-track';
import { objectArray } from './model/elements';

export type { EngineOptions } from './engine-state';

function optional<T>(x: T | undefined): T[] {
  return x === undefined ? [] : [x];
}

class MpiEngine implements Engine, EngineRouting {
  private readonly st: EngineState;
  private finished = false;
  /** A deadlock ended the run: what was in flight then was not "never received", it was stuck. */
  private deadlocked = false;
  /** Threads of a rank were in MPI at once: the zero-buffering replay was not run (see finish()). */
  private concurrentRanks: number[] = [];

  private readonly replaySteps: number;

  constructor(options: EngineOptions) {
    this.st = new EngineState(options);
    this.replaySteps = options.replaySteps ?? MAX_STEPS;
    installP2pChecks(this.st);
  }

  /** Per rank: a call may straddle two frames. */
  private readonly decoders: RankDecoder[] = objectArray();
  /** Rows of the frame being fed (pushRecords), and of one pushed event (push); reused. */
  private readonly batch = new RecordColumns(1024);
  private readonly one = new RecordColumns(4);

  peerWorld(rank: number, comm: number, peer: number): number | undefined {
    const info = this.st.comms.known(rank, comm);
    return info === undefined ? undefined : peerWorld(info, rank, peer);
  }

  commKey(rank: number, comm: number): string | undefined {
    return this.st.comms.known(rank, comm)?.key;
  }

  pushRecords(rank: number, frame: Uint8Array): void {
    const decoder = (this.decoders[rank] ??= new RankDecoder(rank));
    const batch = this.batch;
    batch.clear();
    decoder.decodeInto(frame, batch);
    this.pushColumns(batch, 0, batch.length);
  }

  push(e: RankEvent): void {
    const one = this.one;
    one.clear();
    appendEvent(one, e);
    this.pushColumns(one, 0, 1);
  }

  private readonly exitRow = new ExitRow();
  private readonly completeRow = new CompleteRow();

  /** Ranks whose calls this batch entered (usually one: a frame is one rank's). */
  private readonly touched: number[] = [];

  pushColumns(cols: RecordColumns, from = 0, to = cols.length): void {
    const st = this.st;
    const kinds = cols.kind;
    // The calls entered read their words in these columns until the batch is over (model/rank-track.ts Call).
    const batch = new WordBatch();
    const touched = this.touched;
    let last = -1;
    try {
      for (let row = from; row < to; row++) {
        const kind = kinds[row];
        // The kinds every MPI call makes are read in place; the rest (descriptions of communicators, types,
        // ops, call sites; the shim's findings; END, LOST) are a few per run or per new handle, and take the
        // event form their registries keep.
        if (kind === KIND.ENTER) {
          const call = enterOf(cols, row, batch, st.tracks);
          if (call.rank !== last) {
            last = call.rank;
            if (!touched.includes(last)) touched.push(last);
          }
          onEnter(st, call);
        } else if (kind === KIND.EXIT) onExit(st, this.exitRow.at(cols, row));
        else if (kind === KIND.COMPLETE) onComplete(st, this.completeRow.at(cols, row));
        else if (kind === KIND.DTYPE) st.dtypes.onDatatypeRow(cols, row);
        else if (kind !== KIND.CLOCK) this.pushEvent(eventAt(cols, row));
      }
    } finally {
      // The caller reuses the columns: the calls still in flight copy their words; the others' are gone.
      for (const rank of touched) st.tracks[rank]?.keepWordsInFlight();
      touched.length = 0;
      batch.over = true;
    }
  }

  private pushEvent(e: RankEvent): void {
    const st = this.st;
    switch (e.type) {
      case 'comm':
        st.track(e.rank).started = true;
        st.comms.onComm(e);
        break;
      case 'end': {
        const t = st.track(e.rank);
        t.started = true;
        t.ended = e.how;
        // The END record counts every record the shim dropped, LOST records included (those can be dropped too).
        if (e.dropped > t.lost) {
          st.lost += e.dropped - t.lost;
          t.lost = e.dropped;
        }
        break;
      }
      case 'shim-finding':
        // The memcheck mode's record of a rank's own loads and stores of its window memory in an epoch.
        if (e.check === 'window-local-access') st.rma.onLocalAccess(st, localWindowAccess(e), e.fn);
        else shimFinding(st, e);
        break;
      case 'op':
        st.dtypes.onOp(e);
        break;
      case 'lost':
        st.lost += e.count;
        st.track(e.rank).lost += e.count;
        break;
      case 'bsend':
        st.bsend.onBsend(e);
        break;
      case 'site':
        st.sites.onSite(e);
        break;
      default:
        // Clock records are for the session (timeline), not for the analysis.
        break;
    }
  }

  takeFindings(): EngineFinding[] {
    this.st.ripen(this.finished || this.deadlocked);
    const found = this.st.findings.splice(0);
    if (this.st.lost === 0) return found;
    // A rank that lost records may have lost a call (its collectives then pair with the wrong ones) or a
    // completion: what is found about it is not certain. The LOST record follows the records after the gap in
    // the same frame at the latest, and the session takes findings after each frame.
    return found.filter((f) => !f.locations.some((l) => (this.st.tracks[l.rank]?.lost ?? 0) > 0));
  }

  findDeadlock(): EngineFinding | undefined {
    const f = deadlockFinding(this.st, buildWaitGraph(this.st));
    if (f !== undefined) {
      this.deadlocked = true;
      // The job ends here without finish(): what was held for merging across ranks is as complete as it gets.
      this.releaseHeld();
    }
    return f;
  }

  releaseHeld(): void {
    this.st.ripen(true);
    for (const held of this.st.held.release(this.st.sites)) this.st.report(held);
    // One-sided epoch rules broken so far, which may be why the job hangs (a graph deadlock, or a hang inside the
    // MPI library such as a fence or MPI_Win_free with an exposure epoch open): the job ends without finish().
    for (const e of this.st.rma.releasedOnDeadlock()) this.st.report(e);
  }

  finish(): EngineFinding[] {
    if (this.finished) return [];
    this.finished = true;
    const st = this.st;
    const completed = !this.deadlocked && st.tracks.every((t) => t.ended === 'finalized');
    // With records lost, a message received or a request completed may look pending: the checks of what was
    // left over at the end (and the replay of every rank's steps) would report what did not happen.
    const whole = st.lost === 0;
    // The zero-buffering replay runs each rank's calls in the order they came, as one thread: a rank whose
    // threads were in MPI at once has no such order (one thread's blocked send does not stop the other).
    const sequential = st.tracks.every((t) => !t.concurrent);
    if (completed && whole && !sequential)
      this.concurrentRanks = st.tracks.filter((t) => t.concurrent).map((t) => t.rank);
    checkOpenCollectives(st, !completed);
    // A shard that is not global has only its owned checks to give (the open collectives above).
    if (!st.owns.global) return this.takeFindings();
    // The causal runs have run every step as it came; what waited for a match that never came runs now.
    st.replay.end();
    // Two receives into one buffer whose messages never both came, and reads of pending receives' buffers the
    // clock run did not decide (clocks given up, a receive never done): the errors they were.
    st.recvOverlaps.finish();
    st.recvReads.finish();
    // After a deadlock what was in flight was stuck, and with records lost a receive may be missing: the checks
    // decided over happened-before say nothing then (lost records could hide a receive: no guessing).
    const ordered = !this.deadlocked && whole && st.replay.enabled;
    return [
      ...this.takeFindings(),
      ...(this.deadlocked || !whole ? [] : unmatchedFindings(st)),
      ...(completed && sequential && whole ? optional(st.replay.run()) : []),
      ...(ordered ? st.races.findings() : []),
      ...(ordered ? st.bsend.findings(st.sites) : []),
      ...(ordered ? st.freedSends.findings(st.sites) : []),
      ...st.rma.finish(st),
      ...(whole ? st.resources.leaks(st) : []),
      ...st.resources.callOrder(st),
      ...st.held.release(st.sites),
    ];
  }

  lostRecords(): number {
    return this.st.lost;
  }

  skippedChecks(): SkippedCheck[] {
    const st = this.st;
    const out: SkippedCheck[] = [];
    const n = (x: number) => x.toLocaleString('en-US');
    if (st.lost > 0)
      out.push({
        cause: 'lost-records',
        checks: [
          'unmatched-message',
          'message-mismatch',
          'resource-leak',
          'potential-deadlock',
          'message-race',
          'invalid-argument (buffered-send space)',
          'buffer-overlap (ranks that lost records)',
        ],
        reason: `${n(st.lost)} records were lost (a shim's ring stayed full): a completed operation could look pending.`,
      });
    if (!st.replay.enabled)
      out.push({
        cause: 'bound',
        checks: [
          'potential-deadlock',
          'message-race',
          'invalid-argument (buffered-send space)',
          'freed-send reuse',
          'rma-race (passive target, different origins)',
        ],
        reason: `more than ${n(this.replaySteps)} blocking steps were waiting at once to be replayed (a rank far behind the others, or waits whose match had not arrived), the bound of the analyzer's replay memory.`,
      });
    else if (st.worldSize > MAX_RANKS)
      out.push({
        cause: 'bound',
        checks: ['message-race', 'invalid-argument (buffered-send space)', 'freed-send reuse'],
        reason: `the job has ${n(st.worldSize)} ranks; the vector clocks these checks need are kept up to ${n(MAX_RANKS)}.`,
      });
    if (st.races.unchecked > 0 && st.replay.enabled)
      out.push({
        cause: 'bound',
        checks: ['message-race (later wildcard receives)'],
        reason: `${n(st.races.unchecked)} wildcard receives were not checked: ${n(MAX_OPEN)} of a rank's were undecided at once, each one some rank could still hear of apart from the others (through a message in flight or what a rank knows now).`,
      });
    if (st.bsend.gaveUp)
      out.push({
        cause: 'bound',
        checks: ['invalid-argument (buffered-send space)'],
        reason: `more than ${n(MAX_SENDS)} buffered sends were waiting at once for the space check, the bound of its memory.`,
      });
    if (st.freedSends.truncated)
      out.push({
        cause: 'bound',
        checks: ['freed-send reuse (beyond the first candidates)'],
        reason: `more than ${n(MAX_CANDIDATES)} receives into buffers of freed sends: only the first were decided.`,
      });
    if (st.rma.passiveUnordered && st.replay.enabled)
      out.push({
        cause: 'bound',
        checks: ['rma-race (passive target, different origins)'],
        reason: 'too many passive-target accesses to order them by vector clocks.',
      });
    if (st.boundsReached.has('coll-pairs'))
      out.push({
        cause: 'bound',
        checks: ['count-mismatch and type-mismatch (pairs of allgather(v) and alltoall(v/w))'],
        reason: `a communicator of more than ${n(COLL_MAX_MEMBERS)} members made an all-to-all collective: its pairs of members (the square of its size) were not compared, the bound of that check's cost.`,
      });
    if (st.rma.partial)
      out.push({
        cause: 'bound',
        checks: ['rma-race (accesses or pairs past the bound)'],
        reason: `an epoch (or the passive-target accesses of the run) held more than ${n(st.rma.maxAccesses)} one-sided accesses, or their race search more than ${n(RMA_MAX_PAIRS)} pairs to compare: the analyzer kept and compared only the first.`,
      });
    for (const [check, off] of SHIM_CHECKS_OFF) {
      const on = st.shimChecksOff.get(check);
      if (on === undefined) continue;
      const ranks = [...on].sort((a, b) => a - b);
      out.push({
        cause: 'bound',
        checks: [off.checks],
        reason: `on rank${ranks.length === 1 ? '' : 's'} ${ranks.join(', ')} ${off.reason}`,
      });
    }
    if (this.concurrentRanks.length > 0)
      out.push({
        cause: 'threads',
        checks: ['potential-deadlock'],
        reason: `rank${this.concurrentRanks.length === 1 ? '' : 's'} ${this.concurrentRanks.join(', ')} called MPI from several threads at once: their calls have no single order to replay.`,
      });
    return out;
  }

  messageQueues(): MessageQueues {
    return messageQueues(this.st);
  }

  rankStates(): RankState[] {
    return this.st.tracks.map((t): RankState => {
      if (t.ended !== undefined)
        return { rank: t.rank, state: t.ended === 'finalized' ? 'finalized' : 'ended', ended: t.ended };
      const cur = t.cur;
      if (!t.inCall || cur === undefined) return { rank: t.rank, state: 'running' };
      const op = cur.recv ?? cur.send;
      const call = {
        rank: t.rank,
        site: cur.enter.site,
        call: cur.enter.fn.name,
        detail:
          op !== undefined
            ? describeOp(op)
            : cur.coll !== undefined
              ? `${cur.enter.fn.name} on ${cur.coll.comm.name}`
              : cur.enter.fn.name,
      };
      const brokenEpoch = this.st.rma.stuckOnBrokenEpoch(this.st, cur.enter);
      return {
        rank: t.rank,
        state: isBlockingClass(cur.enter.fn.cls) ? 'blocked' : 'in-call',
        call,
        ...(brokenEpoch !== undefined ? { brokenEpoch } : {}),
      };
    });
  }
}

/** A new engine for one job. `ranks` (the job's size) lets ranks that never connected count as able to act. */
export function createEngine(options: EngineOptions = {}): Engine & EngineRouting {
  return new MpiEngine(options);
}
