/**
 * The CLOCK records of a trace, for a timeline built from the whole trace: TimelineModel.preloadClock takes them
 * before the events, so that each rank's clock measurement at MPI_Finalize (native-shim/src/msc_clockalign.c)
 * corrects the drift of every event before it. One decoding pass over the rank frames, keeping nothing else.
 */
import type { ClockEvent } from '../engine/model/types';
import { createFrameDecoder } from '../session/engine-port';
import { SESSION_RANK, type TraceFrame } from '../session/trace-file';

export function traceClocks(frames: readonly TraceFrame[], ranks: number): ClockEvent[] {
  const out: ClockEvent[] = [];
  const decoders = new Map<number, ReturnType<typeof createFrameDecoder>>();
  const damaged = new Set<number>();
  for (const f of frames) {
    if (f.kind !== 'binary' || f.rank === SESSION_RANK || f.rank >= ranks || damaged.has(f.rank)) continue;
    let d = decoders.get(f.rank);
    if (d === undefined) decoders.set(f.rank, (d = createFrameDecoder(f.rank)));
    try {
      for (const e of d.decode(f.data)) if (e.type === 'clock') out.push(e);
    } catch {
      // A damaged frame ends what this rank contributes, as it does for the timeline itself.
      damaged.add(f.rank);
    }
  }
  return out;
}
