/**
 * The one place the session meets the decoder (server/src/protocol) and the engine (server/src/engine),
 * so the rest of the session codes against these two small interfaces only.
 */
import type { Engine } from '../engine/engine-api';
import { createEngine as createPureEngine } from '../engine/engine';
import type { RankEvent } from '../engine/model/types';
import { RankDecoder } from '../protocol/decoder';
import type { RecordColumns } from '../protocol/columns';

export { RecordColumns } from '../protocol/columns';
export { eventAt } from '../protocol/build-event';
export { KIND } from '../protocol/spec';

/**
 * Turns one rank's binary frames into rows of columns (what the engine reads) or events (what the timeline
 * reads); stateful (a call's EXT records may span frames). Throws on a bad frame.
 */
export interface FrameDecoder {
  decodeInto(frame: Uint8Array, out: RecordColumns): void;
  decode(frame: Uint8Array): RankEvent[];
}

export function createFrameDecoder(rank: number): FrameDecoder {
  return new RankDecoder(rank);
}

export function createEngine(ranks: number): Engine {
  return createPureEngine({ ranks });
}
