/**
 * The engine: decoded events in, findings out. Pure (no clock, no I/O); see README.md for the model.
 */
import { onComplete, onEnter, onExit } from './calls';
import { deadlockFinding } from './deadlock-report';
import type { Engine } from './engine-api';
import { EngineState, type EngineOptions } from './engine-state';
import { unmatchedFindings } from './unmatched';
import type { EngineFinding, RankEvent, RankState } from './types';
import { buildWaitGraph, isBlockingClass } from './wait-graph';
import { describeOp } from './describe';
import { installP2pChecks } from './p2p-checks';
import { messageRaces } from './races';
import { shimFinding } from './shim-findings';

export type { EngineOptions } from './engine-state';

function optional<T>(x: T | undefined): T[] {
  return x === undefined ? [] : [x];
}

class MpiEngine implements Engine {
  private readonly st: EngineState;
  private finished = false;
  /** A deadlock ended the run: what was in flight then was not "never received", it was stuck. */
  private deadlocked = false;

  constructor(options: EngineOptions) {
    this.st = new EngineState(options);
    installP2pChecks(this.st);
  }

  push(e: RankEvent): void {
    const st = this.st;
    switch (e.type) {
      case 'enter':
        onEnter(st, e);
        break;
      case 'exit':
        onExit(st, e);
        break;
      case 'complete':
        onComplete(st, e);
        break;
      case 'comm':
        st.track(e.rank).started = true;
        st.comms.onComm(e);
        break;
      case 'end': {
        const t = st.track(e.rank);
        t.started = true;
        t.ended = e.how;
        break;
      }
      case 'shim-finding':
        shimFinding(st, e);
        break;
      case 'datatype':
        st.dtypes.onDatatype(e);
        break;
      case 'op':
        st.dtypes.onOp(e);
        break;
      case 'lost':
        st.lost += e.count;
        break;
      default:
        // Site and clock records are for the session (call sites, timeline), not for the analysis.
        break;
    }
  }

  takeFindings(): EngineFinding[] {
    return this.st.findings.splice(0);
  }

  findDeadlock(): EngineFinding | undefined {
    const f = deadlockFinding(this.st, buildWaitGraph(this.st));
    if (f !== undefined) this.deadlocked = true;
    return f;
  }

  finish(): EngineFinding[] {
    if (this.finished) return [];
    this.finished = true;
    const st = this.st;
    const completed = !this.deadlocked && st.tracks.every((t) => t.ended === 'finalized');
    return [
      ...this.takeFindings(),
      ...(this.deadlocked ? [] : unmatchedFindings(st)),
      ...(completed ? optional(st.replay.run()) : []),
      ...(this.deadlocked ? [] : messageRaces(st.replay, st.worldSize)),
      ...st.rma.finish(st),
      ...st.resources.leaks(st),
      ...st.resources.callOrder(st),
    ];
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
      return { rank: t.rank, state: isBlockingClass(cur.enter.fn.cls) ? 'blocked' : 'in-call', call };
    });
  }
}

/** A new engine for one job. `ranks` (the job's size) lets ranks that never connected count as able to act. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new MpiEngine(options);
}
