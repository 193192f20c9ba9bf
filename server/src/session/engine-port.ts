/**
 * The one place the session meets the decoder (server/src/protocol) and the engine (server/src/engine),
 * so the rest of the session codes against these two small interfaces only.
 *
 * TEMPORARY STUB: the decoder and the engine are being written concurrently; until they land, this decodes
 * nothing and finds nothing. Replace the bodies with the real factories when they are committed.
 */
import type { Engine } from '../engine/engine-api';
import type { EngineFinding, RankEvent, RankState } from '../engine/types';

/** Turns one rank's binary frames into events; stateful (a call's EXT records may span frames). Throws on a bad frame. */
export interface FrameDecoder {
  decode(frame: Uint8Array): RankEvent[];
}

export function createFrameDecoder(_rank: number): FrameDecoder {
  return {
    decode(frame: Uint8Array): RankEvent[] {
      if (frame.length % 64 !== 0) throw new Error(`frame of ${frame.length} bytes is not a whole number of 64-byte records`);
      return [];
    },
  };
}

export function createEngine(ranks: number): Engine {
  return {
    push: () => undefined,
    takeFindings: (): EngineFinding[] => [],
    findDeadlock: () => undefined,
    finish: (): EngineFinding[] => [],
    rankStates: (): RankState[] => Array.from({ length: ranks }, (_, rank) => ({ rank, state: 'running' as const })),
  };
}
