import type { EngineFinding, RankState } from '../engine/model/types';

/** What the watch asks the session to do after a tick. */
export type HangVerdict =
  | { readonly action: 'none' }
  | { readonly action: 'ask-engine' }
  | {
      readonly action: 'no-progress';
      /** Observed live ranks, every one inside MPI. */
      readonly stuck: readonly RankState[];
      /** Live ranks none of whose MPI calls has arrived (not connected, or calls not intercepted). */
      readonly unobserved: readonly number[];
      /** The quiet time that made the verdict, in whole seconds (noProgressMs, or sooner: brokenEpochMs). */
      readonly seconds: number;
    };

export interface HangWatchOptions {
  /** Quiet time after the last event before the wait-for graph is consulted. */
  readonly quietMs: number;
  /** Quiet time, with every live rank inside MPI, before a hang the graph cannot explain is reported. */
  readonly noProgressMs: number;
  /**
   * Quiet time before the same verdict when every live rank waits in a call on a window whose epoch rules were
   * broken (RankState.brokenEpoch): no rank is left to close the epoch, so waiting longer shows nothing new.
   * A correct program never breaks them, so a slow correct job is never ended sooner. Default: noProgressMs.
   */
  readonly brokenEpochMs?: number;
}

/**
 * Decides, from the time of the last event and the ranks' states, when to ask the engine for a deadlock
 * and when to give up on the graph and call a long silence a hang. Pure: the caller passes the clock.
 */
export class HangWatch {
  private lastEventAt: number;
  private askedSince = false;

  constructor(
    private readonly options: HangWatchOptions,
    now: number,
  ) {
    this.lastEventAt = now;
  }

  /** Milliseconds since the last event. */
  quietFor(now: number): number {
    return now - this.lastEventAt;
  }

  /** Events arrived: the job moved. */
  activity(now: number): void {
    this.lastEventAt = now;
    this.askedSince = false;
  }

  /**
   * unobserved: the live ranks none of whose MPI calls has arrived yet. While there are some, the wait-for
   * graph is not consulted (it would take a rank that has not started for one that never will); but a
   * silence of noProgressMs, with every observed live rank inside MPI (or none observed at all), is still
   * a hang to report: a job whose calls never arrive must not wait in silence forever.
   */
  tick(now: number, states: readonly RankState[], unobserved: readonly number[] = []): HangVerdict {
    const quiet = now - this.lastEventAt;
    if (quiet < this.options.quietMs) return { action: 'none' };
    const hidden = new Set(unobserved);
    const live = states.filter((s) => s.state !== 'finalized' && s.state !== 'ended' && !hidden.has(s.rank));
    if (live.length === 0 && hidden.size === 0) return { action: 'none' };
    const waiting = live.filter((s) => s.state === 'blocked' || s.state === 'in-call');
    if (hidden.size === 0 && !this.askedSince && live.some((s) => s.state === 'blocked')) {
      // Ask once per quiet period: nothing the engine knows changes until the next event.
      this.askedSince = true;
      return { action: 'ask-engine' };
    }
    if (waiting.length === live.length) {
      if (quiet >= this.options.noProgressMs)
        return {
          action: 'no-progress',
          stuck: live,
          unobserved: [...hidden],
          seconds: Math.round(this.options.noProgressMs / 1000),
        };
      const early = this.options.brokenEpochMs;
      if (
        early !== undefined &&
        quiet >= early &&
        hidden.size === 0 &&
        live.length > 0 &&
        live.every((s) => s.brokenEpoch !== undefined)
      )
        return {
          action: 'no-progress',
          stuck: live,
          unobserved: [],
          seconds: Math.max(1, Math.round(quiet / 1000)),
        };
    }
    return { action: 'none' };
  }
}

/** The finding for a hang the wait-for graph cannot explain: every live rank inside MPI, no event for `seconds`. */
export function noProgressFinding(stuck: readonly RankState[], seconds: number): EngineFinding {
  const ranks = stuck.map((s) => s.rank);
  return {
    kind: 'deadlock',
    severity: 'error',
    message: `No progress for ${seconds} s: rank${ranks.length > 1 ? 's' : ''} ${ranks.join(', ')} sat inside MPI calls with no event, but the wait-for graph does not explain why (a hang inside the MPI library, or a wait on something outside MPI).`,
    locations: stuck.flatMap((s) => (s.call === undefined ? [] : [s.call])),
  };
}
