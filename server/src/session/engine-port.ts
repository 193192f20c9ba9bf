/**
 * The one place the session meets the decoder (server/src/protocol) and the engine (server/src/engine),
 * so the rest of the session codes against these two small interfaces only.
 *
 * TEMPORARY STUB (engine only): the engine is being written concurrently; until it lands, createEngine finds
 * nothing. Replace its body with the real factory when it is committed.
 */
import type { Engine } from '../engine/engine-api';
import type { EngineFinding, RankEvent, RankState } from '../engine/types';
import { RankDecoder } from '../protocol/decoder';

/** Turns one rank's binary frames into events; stateful (a call's EXT records may span frames). Throws on a bad frame. */
export interface FrameDecoder {
  decode(frame: Uint8Array): RankEvent[];
}

export function createFrameDecoder(rank: number): FrameDecoder {
  return new RankDecoder(rank);
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
