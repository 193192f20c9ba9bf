import type { RemoteModule } from './module-identity';
import type { CrashReport } from './rank-endings';
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

/**
 * A rank's answer to a `backtrace` request: the stack of its thread blocked inside an MPI call (site: the
 * call's return address; frames: its callers), or why the shim could not take it.
 */
export type BacktraceReply =
  { readonly site: number; readonly frames: readonly SiteKey[] } | { readonly error: string };

/** A call site the rank resolved itself (its module is not readable here): see msc_sites.c. */
export interface RankSite {
  readonly address: number;
  readonly function: string;
  readonly file: string;
  readonly line: number;
}

/** A text frame a rank sends after its hello. */
export type RankText =
  | { readonly type: 'paused'; readonly ack: HeldAck }
  | { readonly type: 'backtrace'; readonly reply: BacktraceReply }
  | { readonly type: 'module'; readonly module: RemoteModule }
  | { readonly type: 'sites'; readonly module: string; readonly sites: readonly RankSite[] }
  | { readonly type: 'crash'; readonly crash: CrashReport };

const MAX_FRAMES = 256;

/** Validate every field of a rank's text frame; returns the reason it is bad as a string. */
export function parseRankText(text: string): RankText | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'a control message is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return 'a control message is not a JSON object';
  const o = v as Record<string, unknown>;
  if (o.type === 'paused') {
    const ack = parseHeldAck(o);
    return typeof ack === 'string' ? ack : { type: 'paused', ack };
  }
  if (o.type === 'backtrace') {
    const reply = parseBacktrace(o);
    return typeof reply === 'string' ? reply : { type: 'backtrace', reply };
  }
  if (o.type === 'module') {
    const { path, buildId, size, mtime } = o;
    if (
      typeof path !== 'string' ||
      path === '' ||
      typeof buildId !== 'string' ||
      !/^[0-9a-f]*$/.test(buildId)
    )
      return 'a module message needs a path and a hex buildId';
    if (!Number.isInteger(size) || !Number.isInteger(mtime)) return 'a module message needs size and mtime';
    return { type: 'module', module: { path, buildId, size: size as number, mtime: mtime as number } };
  }
  if (o.type === 'sites') {
    if (typeof o.module !== 'string' || !Array.isArray(o.sites) || o.sites.length > 1 << 16)
      return 'a sites message needs a module and an array of sites';
    const sites: RankSite[] = [];
    for (const s of o.sites as unknown[]) {
      if (!Array.isArray(s) || s.length !== 4) return 'a site must be [address, function, file, line]';
      const [address, fn, file, line] = s as unknown[];
      if (!Number.isSafeInteger(address) || typeof fn !== 'string' || typeof file !== 'string')
        return 'a site must be [address, function, file, line]';
      if (!Number.isInteger(line) || (line as number) < 0) return 'a site line must be a whole number';
      sites.push({ address: address as number, function: fn, file, line: line as number });
    }
    return { type: 'sites', module: o.module, sites };
  }
  if (o.type === 'crash') {
    const { signal, address } = o;
    if (!Number.isInteger(signal) || (signal as number) < 1 || (signal as number) > 64)
      return 'a crash message has a bad signal number';
    if (!isCount(address)) return 'a crash message has a bad address';
    const frames = parseFrames(o, 'a crash message');
    if (typeof frames === 'string') return frames;
    if (o.inCall !== undefined && typeof o.inCall !== 'boolean') return 'a crash message has a bad inCall';
    return {
      type: 'crash',
      crash: { signal: signal as number, address, frames, ...(o.inCall === true ? { inCall: true } : {}) },
    };
  }
  return `unknown control message type ${JSON.stringify(o.type)}`;
}

function parseHeldAck(o: Record<string, unknown>): HeldAck | string {
  const seq = o.seq;
  const continues = o.continues;
  const site = o.site;
  if (!isCount(seq)) return 'a paused message has a bad seq';
  if (!isCount(continues)) return 'a paused message has a bad continues count';
  if (!isCount(site)) return 'a paused message has a bad site';
  if (typeof o.function !== 'string' || !/^MPI_\w+$/.test(o.function))
    return 'a paused message has a bad function name';
  if (o.reason !== 'breakpoint' && o.reason !== 'pause') return 'a paused message has a bad reason';
  const frames = parseFrames(o, 'a paused message');
  if (typeof frames === 'string') return frames;
  return { seq, function: o.function, reason: o.reason, continues, site, frames };
}

function parseBacktrace(o: Record<string, unknown>): BacktraceReply | string {
  if (o.error !== undefined) {
    return typeof o.error === 'string' ? { error: o.error.slice(0, 200) } : 'a backtrace has a bad error';
  }
  if (!isCount(o.site)) return 'a backtrace has a bad site';
  const frames = parseFrames(o, 'a backtrace');
  return typeof frames === 'string' ? frames : { site: o.site, frames };
}

/** `frames: [[address, offset, module index]...]` with `modules: [path...]`, both optional. */
function parseFrames(o: Record<string, unknown>, what: string): SiteKey[] | string {
  const modules = o.modules ?? [];
  if (!Array.isArray(modules) || !modules.every((m): m is string => typeof m === 'string'))
    return `${what} has bad modules`;
  const rawFrames = o.frames ?? [];
  if (!Array.isArray(rawFrames) || rawFrames.length > MAX_FRAMES) return `${what} has bad frames`;
  const frames: SiteKey[] = [];
  for (const f of rawFrames) {
    if (!Array.isArray(f) || f.length !== 3) return `${what} has a bad frame`;
    const [address, offset, module] = f as unknown[];
    if (!isCount(address) || !isCount(offset) || !isCount(module)) return `${what} has a bad frame`;
    const path = modules[module];
    if (path === undefined) return `${what} names a module it does not list`;
    frames.push({ module: path, offset, address });
  }
  return frames;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
