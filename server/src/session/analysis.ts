import type { Engine } from '../engine/engine-api';
import type { EngineFinding, RankEvent, RawLocation } from '../engine/model/types';
import { createEngine, createFrameDecoder, type FrameDecoder } from './engine-port';
import type { Finding, Location } from './session-api';
import { SiteResolver, type SiteKey, type SourcePosition } from './site-resolver';

interface RankProgress {
  readonly decoder: FrameDecoder;
  ended: boolean;
  lastSeq: number;
  lastTime: number;
  /** This rank's return addresses → module and offset (ASLR gives every process its own addresses). */
  readonly sites: Map<number, SiteKey>;
}

/**
 * Frames in, findings with resolved call sites out. Shared by the live session and `mpiscope report TRACE`,
 * so a report rebuilt from a trace is the report the run printed.
 */
export class Analysis {
  readonly engine: Engine;
  private readonly ranks = new Map<number, RankProgress>();
  private readonly resolver: SiteResolver;

  constructor(
    readonly size: number,
    cwd: string,
  ) {
    this.engine = createEngine(size);
    this.resolver = new SiteResolver(cwd);
  }

  /** A rank said hello: from now on its frames are decoded. */
  open(rank: number): void {
    if (!this.ranks.has(rank)) {
      this.ranks.set(rank, {
        decoder: createFrameDecoder(rank),
        ended: false,
        lastSeq: 0,
        lastTime: 0,
        sites: new Map(),
      });
    }
  }

  connected(rank: number): boolean {
    return this.ranks.has(rank);
  }

  get connectedCount(): number {
    return this.ranks.size;
  }

  /**
   * Decode and feed one binary frame; returns its events (for the timeline). Throws (with a reason) on a
   * bad frame; the caller closes that rank.
   */
  frame(rank: number, data: Uint8Array): readonly RankEvent[] {
    const r = this.ranks.get(rank);
    if (r === undefined) throw new Error(`rank ${rank} sent records before its hello`);
    const events = r.decoder.decode(data);
    for (const e of events) {
      // The shim sends END when MPI_Finalize is entered, then keeps the connection: the EXIT of
      // MPI_Finalize and any MPI call made after it (a call-order error) still arrive and are fed, since
      // the engine judges calls after END itself.
      r.lastSeq = Math.max(r.lastSeq, e.seq);
      r.lastTime = Math.max(r.lastTime, e.time);
      if (e.type === 'site')
        r.sites.set(e.address, { module: e.module, offset: e.offset, address: e.address });
      if (e.type === 'end') r.ended = true;
      this.engine.push(e);
    }
    return events;
  }

  /**
   * The rank's stream is over. A rank that never sent END (crashed, killed, or cut off for a bad frame)
   * ends as 'disconnected', so the engine knows it will never act again.
   */
  close(rank: number): void {
    this.open(rank);
    const r = this.ranks.get(rank) as RankProgress;
    if (r.ended) return;
    r.ended = true;
    const end: RankEvent = {
      type: 'end',
      rank,
      seq: r.lastSeq,
      time: r.lastTime,
      how: 'disconnected',
      code: 0,
      dropped: 0,
    };
    this.engine.push(end);
  }

  /** Close every rank 0..size-1 that has not ended, including ranks that never connected. */
  closeAll(): void {
    for (let rank = 0; rank < this.size; rank++) this.close(rank);
  }

  ended(rank: number): boolean {
    return this.ranks.get(rank)?.ended ?? false;
  }

  /** Resolve a finding's call sites (addr2line, cached) into the report's shape. */
  async resolve(f: EngineFinding): Promise<Finding> {
    const keys = f.locations.map((l) => this.siteOf(l)).filter((k): k is SiteKey => k !== undefined);
    await this.resolver.resolve(keys);
    const locations = f.locations.map((l): Location => {
      const key = this.siteOf(l);
      const pos = key === undefined ? { file: '', line: 0, function: '' } : this.resolver.lookup(key);
      return {
        rank: l.rank,
        file: pos.file,
        line: pos.line,
        function: pos.function,
        call: l.call,
        detail: l.detail,
      };
    });
    return { kind: f.kind, severity: f.severity, message: f.message, locations };
  }

  async resolveSite(rank: number, site: number): Promise<SourcePosition | undefined> {
    const key = this.siteOf({ rank, site, call: '', detail: '' });
    if (key === undefined) return undefined;
    await this.resolver.resolve([key]);
    return this.resolver.lookup(key);
  }

  /** Resolve return addresses given with their modules (a held rank's backtrace), in order. */
  async resolveKeys(keys: readonly SiteKey[]): Promise<SourcePosition[]> {
    await this.resolver.resolve(keys);
    return keys.map((k) => this.resolver.lookup(k));
  }

  private siteOf(l: RawLocation): SiteKey | undefined {
    if (l.site === 0) return undefined;
    return this.ranks.get(l.rank)?.sites.get(l.site);
  }
}
