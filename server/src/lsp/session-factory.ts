import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { SessionFactory, SessionPort, SourcePlace } from '../dap/session-port';
import type { RankState } from '../engine/model/types';
import { planLaunch } from '../session/launch-plan';
import { Session } from '../session/session';
import {
  UsageError,
  type MessageQueueView,
  type SessionEvents,
  type SessionOptions,
} from '../session/session-api';
import { tagOption, TaggedLines, type MpiFlavorName } from './rank-tags';

/**
 * A Session as the language server and the debug adapter see it: started, its events forwarded, and
 * a failure of run() turned into an 'end' event, since after the launch nobody awaits run() itself.
 */
class LiveSession implements SessionPort {
  private readonly events = new EventEmitter();
  private readonly session: Session;
  private ended = false;
  private readonly lines: TaggedLines;

  /** `options` must already ask mpirun to tag output lines with ranks (tagOption(flavor)). */
  constructor(
    readonly options: SessionOptions,
    flavor: MpiFlavorName,
  ) {
    this.session = new Session(options);
    this.lines = new TaggedLines(flavor, (text, stream, rank) =>
      this.events.emit('output', text, stream, rank),
    );
    for (const name of ['start', 'finding', 'rank', 'events', 'held'] as const) {
      this.session.on(name, (...args: unknown[]) => this.events.emit(name, ...args));
    }
    this.session.on('output', (text, stream, rank) => {
      if (rank === undefined) this.lines.write(text, stream);
      else this.events.emit('output', text, stream, rank);
    });
    this.session.on('end', (result) => {
      this.ended = true;
      this.lines.flush();
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

  stepRank(rank: number): void {
    this.session.stepRank(rank);
  }

  breakOn(functions: readonly string[], judged?: readonly string[]): void {
    this.session.breakOn(functions, judged);
  }

  releaseRank(rank: number): void {
    this.session.releaseRank(rank);
  }

  messageQueues(): Promise<MessageQueueView | undefined> {
    return this.session.messageQueues();
  }

  resolveSite(rank: number, site: number): Promise<SourcePlace | undefined> {
    return this.session.resolveSite(rank, site);
  }

  backtrace(rank: number): Promise<readonly SourcePlace[]> {
    return this.session.backtrace(rank);
  }

  pid(rank: number): number | undefined {
    return this.session.pid(rank);
  }

  rankStates(): readonly RankState[] {
    return this.session.rankStates();
  }
}

export const startSession: SessionFactory = async (options) => {
  // The session checks the same things again; asking first tells which launcher option tags output
  // lines with ranks (until the session attributes output itself).
  const plan = await planLaunch(
    options.program,
    resolve(options.cwd ?? process.cwd()),
    options.mpirun,
    options.launcher,
    { ...process.env, ...options.env },
  );
  const style = plan.syntax === 'srun' ? 'srun' : plan.flavor;
  const tagged = { ...options, mpirunArgs: [tagOption(style), ...(options.mpirunArgs ?? [])] };
  const live = new LiveSession(tagged, style);
  await live.launch();
  return live;
};
