import type { SiteKey } from './site-resolver';

/** Why a rank stopped: it entered a function breakpoint, or it was asked to stop at its next MPI call. */
export type HeldReason = 'breakpoint' | 'pause';

/**
 * A rank's `paused` acknowledgement (native-shim/spec/records.json "control"): one of its threads is held at
 * the entry of an MPI call, whose ENTER record was sent before it.
 */
export interface HeldAck {
  readonly seq: number;
  readonly function: string;
  readonly reason: HeldReason;
  /** How many `continue` messages the rank had received when it stopped (older acknowledgements are stale). */
  readonly continues: number;
  /** Return address of the MPI call (the ENTER's site). */
  readonly site: number;
  /** The callers below the call site, innermost first. */
  readonly frames: readonly SiteKey[];
}

const MAX_FRAMES = 256;

/** Validate every field of a `paused` text frame; returns the reason it is bad as a string. */
export function parseHeldAck(text: string): HeldAck | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'a control message is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return 'a control message is not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.type !== 'paused') return `unknown control message type ${JSON.stringify(o.type)}`;
  const seq = o.seq;
  const continues = o.continues;
  const site = o.site;
  if (!isCount(seq)) return 'a paused message has a bad seq';
  if (!isCount(continues)) return 'a paused message has a bad continues count';
  if (!isCount(site)) return 'a paused message has a bad site';
  if (typeof o.function !== 'string' || !/^MPI_\w+$/.test(o.function))
    return 'a paused message has a bad function name';
  if (o.reason !== 'breakpoint' && o.reason !== 'pause') return 'a paused message has a bad reason';
  const modules = o.modules ?? [];
  if (!Array.isArray(modules) || !modules.every((m): m is string => typeof m === 'string'))
    return 'a paused message has bad modules';
  const rawFrames = o.frames ?? [];
  if (!Array.isArray(rawFrames) || rawFrames.length > MAX_FRAMES) return 'a paused message has bad frames';
  const frames: SiteKey[] = [];
  for (const f of rawFrames) {
    if (!Array.isArray(f) || f.length !== 3) return 'a paused message has a bad frame';
    const [address, offset, module] = f as unknown[];
    if (!isCount(address) || !isCount(offset) || !isCount(module)) return 'a paused message has a bad frame';
    const path = modules[module];
    if (path === undefined) return 'a paused message names a module it does not list';
    frames.push({ module: path, offset, address });
  }
  return { seq, function: o.function, reason: o.reason, continues, site, frames };
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
