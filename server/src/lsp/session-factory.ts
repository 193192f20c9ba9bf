import { EventEmitter } from 'node:events';
import type { SessionFactory, SessionPort, SourcePlace } from '../dap/session-port';
import type { RankState } from '../engine/types';
import { Session } from '../session/session';
import { UsageError, type SessionEvents, type SessionOptions } from '../session/session-api';

/**
 * A Session as the language server and the debug adapter see it: started, its events forwarded, and
 * a failure of run() turned into an 'end' event, since after the launch nobody awaits run() itself.
 */
class LiveSession implements SessionPort {
  private readonly events = new EventEmitter();
  private readonly session: Session;
  private ended = false;

  constructor(readonly options: SessionOptions) {
    this.session = new Session(options);
    for (const name of ['start', 'finding', 'rank', 'output'] as const) {
      this.session.on(name, (...args: unknown[]) => this.events.emit(name, ...args));
    }
    this.session.on('end', (result) => {
      this.ended = true;
      this.events.emit('end', result);
    });
  }

  /** Resolves when mpirun has started; rejects with the session's UsageError when it could not. */
  launch(): Promise<void> {
    return new Promise((resolve, reject) => {
      let started = false;
      this.session.on('start', () => {
        started = true;
        resolve();
      });
      this.session.run().catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        if (!started) {
          reject(
            error instanceof UsageError
              ? error
              : new UsageError(`mpiscope could not run the job: ${message}`),
          );
          return;
        }
        if (this.ended) return;
        this.ended = true;
        this.events.emit('output', `mpiscope: ${message}\n`, 'stderr', undefined);
        this.events.emit('end', { findings: [], ranks: this.options.np, exitCode: null, outcome: 'failed' });
      });
    });
  }

  on<K extends keyof SessionEvents>(event: K, listener: SessionEvents[K]): this {
    this.events.on(event, listener);
    return this;
  }

  stop(): Promise<void> {
    return this.session.stop();
  }

  pause(): void {
    this.session.pause();
  }

  resume(): void {
    this.session.resume();
  }

  breakOn(functions: readonly string[]): void {
    this.session.breakOn(functions);
  }

  resolveSite(rank: number, site: number): Promise<SourcePlace | undefined> {
    return this.session.resolveSite(rank, site);
  }

  pid(rank: number): number | undefined {
    return this.session.pid(rank);
  }

  rankStates(): readonly RankState[] {
    return this.session.rankStates();
  }
}

export const startSession: SessionFactory = async (options) => {
  const live = new LiveSession(options);
  await live.launch();
  return live;
};
