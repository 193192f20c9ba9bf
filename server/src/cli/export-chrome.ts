/**
 * A run's timeline in the Chrome trace event format (the JSON object form: {"traceEvents": [...]}), which
 * Perfetto (ui.perfetto.dev), chrome://tracing and the Chrome DevTools performance panel open.
 *
 * - the job is one process (pid 1, named after the program); each rank is a thread (tid = rank, named
 *   "rank R", sorted by rank);
 * - each MPI call is a complete event (ph "X", ts and dur in microseconds), cat "mpi", with its call class,
 *   communicator and call site in args; a call still open when the trace ends (a deadlock) lasts until the
 *   last time seen and says so in args;
 * - each matched message is a flow: ph "s" on the sender at its send call's start (the slice it binds to),
 *   ph "f" with bp "e" on the receiver when the receive completed (bp "e" binds a flow end to the slice
 *   enclosing it, the receiving or waiting call; without it the viewers bind to the next slice), so the
 *   arrow runs forward in time from call to call;
 * - each finding is a thread-scoped instant event (ph "i", s "t") on every rank it names, at the call it
 *   names, with its message, severity and source line.
 */
import { CALL_CLASS_NAMES, type TimelineMessage } from '../timeline/timeline-protocol';

export interface ChromeEvent {
  readonly name: string;
  readonly ph: 'X' | 'M' | 's' | 'f' | 'i';
  readonly pid: number;
  readonly tid: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly id?: number;
  readonly bp?: 'e';
  readonly s?: 't';
  readonly args?: Record<string, unknown>;
}

const PID = 1;

/** ns → the format's microseconds (fractions allowed; displayTimeUnit "ns" shows them). */
const us = (ns: number): number => Math.round(ns) / 1000;

interface Lane {
  start: number[];
  end: number[];
}

/**
 * Every Chrome trace event of a timeline (a reset and its data batches), in order: metadata, then calls by
 * rank, then flows, then findings. Calls through `emit`, so a million events never sit in one array twice.
 */
export function chromeEvents(messages: readonly TimelineMessage[], emit: (e: ChromeEvent) => void): void {
  let ranks = 0;
  let program = '';
  let now = 0;
  const names = new Map<number, { name: string; cls: number }>();
  const sites = new Map<number, { file: string; line: number; address: number; function: string }>();
  const lanes: Lane[] = [];
  const fns: number[][] = [];
  const siteOf: number[][] = [];
  const commOf: number[][] = [];
  const msgs = { src: [] as number[], send: [] as number[], dst: [] as number[], recv: [] as number[] };
  const msgInfo = { bytes: [] as number[], tag: [] as number[] };
  const findings: {
    kind: string;
    severity: string;
    message: string;
    rank: number;
    t: number;
    file: string;
    line: number;
    call: string;
  }[] = [];
  let open: { rank: number; start: number; fn: number; site: number; comm: number }[] = [];
  for (const m of messages) {
    if (m.type === 'reset') {
      ranks = m.ranks;
      program = m.program;
      continue;
    }
    ranks = Math.max(ranks, m.ranks);
    now = Math.max(now, m.now);
    for (const f of m.functions) names.set(f.id, { name: f.name, cls: f.cls });
    for (const s of m.sites) sites.set(s.id, s);
    const sp = m.spans;
    for (let i = 0; i < sp.rank.length; i++) {
      const r = sp.rank[i] ?? 0;
      while (lanes.length <= r) {
        lanes.push({ start: [], end: [] });
        fns.push([]);
        siteOf.push([]);
        commOf.push([]);
      }
      (lanes[r] as Lane).start.push(sp.start[i] ?? 0);
      (lanes[r] as Lane).end.push(sp.end[i] ?? 0);
      (fns[r] as number[]).push(sp.fn[i] ?? 0);
      (siteOf[r] as number[]).push(sp.site[i] ?? -1);
      (commOf[r] as number[]).push(sp.comm[i] ?? -1);
    }
    const mm = m.messages;
    for (let i = 0; i < mm.src.length; i++) {
      msgs.src.push(mm.src[i] ?? 0);
      msgs.send.push(mm.sendTime[i] ?? 0);
      msgs.dst.push(mm.dst[i] ?? 0);
      msgs.recv.push(mm.recvTime[i] ?? 0);
      msgInfo.bytes.push(mm.bytes[i] ?? 0);
      msgInfo.tag.push(mm.tag[i] ?? 0);
    }
    for (const f of m.findings)
      f.locations.forEach((l, k) =>
        findings.push({
          kind: f.kind,
          severity: f.severity,
          message: f.message,
          rank: l.rank,
          t: f.times[k] ?? 0,
          file: l.file,
          line: l.line,
          call: l.call,
        }),
      );
    open = m.open;
  }
  // Spans of a rank arrive by start within a batch but batches can interleave threads: sort each lane once.
  for (let r = 0; r < lanes.length; r++)
    sortLane(lanes[r] as Lane, [fns[r] as number[], siteOf[r] as number[], commOf[r] as number[]]);

  emit({
    name: 'process_name',
    ph: 'M',
    pid: PID,
    tid: 0,
    args: { name: program === '' ? 'MPI job' : program },
  });
  for (let r = 0; r < ranks; r++) {
    emit({ name: 'thread_name', ph: 'M', pid: PID, tid: r, args: { name: `rank ${r}` } });
    emit({ name: 'thread_sort_index', ph: 'M', pid: PID, tid: r, args: { sort_index: r } });
  }
  const callArgs = (fn: number, site: number, comm: number): Record<string, unknown> => {
    const s = sites.get(site);
    return {
      class: CALL_CLASS_NAMES[names.get(fn)?.cls ?? 0] ?? 'other',
      ...(comm >= 0 ? { comm } : {}),
      ...(s === undefined
        ? {}
        : s.file !== ''
          ? { file: s.file, line: s.line, function: s.function }
          : { address: `0x${s.address.toString(16)}` }),
    };
  };
  const fnName = (fn: number): string => names.get(fn)?.name ?? `function ${fn}`;
  for (let r = 0; r < lanes.length; r++) {
    const lane = lanes[r] as Lane;
    for (let i = 0; i < lane.start.length; i++) {
      const start = lane.start[i] ?? 0;
      emit({
        name: fnName(fns[r]?.[i] ?? 0),
        cat: 'mpi',
        ph: 'X',
        pid: PID,
        tid: r,
        ts: us(start),
        dur: us(Math.max(0, (lane.end[i] ?? start) - start)),
        args: callArgs(fns[r]?.[i] ?? 0, siteOf[r]?.[i] ?? -1, commOf[r]?.[i] ?? -1),
      });
    }
  }
  for (const o of open)
    emit({
      name: fnName(o.fn),
      cat: 'mpi',
      ph: 'X',
      pid: PID,
      tid: o.rank,
      ts: us(o.start),
      dur: us(Math.max(0, now - o.start)),
      args: { ...callArgs(o.fn, o.site, o.comm), open: 'had not returned when the trace ended' },
    });
  for (let i = 0; i < msgs.src.length; i++) {
    const src = msgs.src[i] ?? 0;
    const dst = msgs.dst[i] ?? 0;
    const send = msgs.send[i] ?? 0;
    const recv = msgs.recv[i] ?? 0;
    const args = { bytes: msgInfo.bytes[i] ?? 0, tag: msgInfo.tag[i] ?? 0, from: src, to: dst };
    emit({ name: 'message', cat: 'mpi', ph: 's', id: i + 1, pid: PID, tid: src, ts: us(send), args });
    emit({
      name: 'message',
      cat: 'mpi',
      ph: 'f',
      bp: 'e',
      id: i + 1,
      pid: PID,
      tid: dst,
      ts: us(recv),
      args,
    });
  }
  for (const f of findings)
    emit({
      name: f.kind,
      cat: 'finding',
      ph: 'i',
      s: 't',
      pid: PID,
      tid: f.rank,
      ts: us(f.t),
      args: {
        severity: f.severity,
        message: f.message,
        ...(f.call !== '' ? { call: f.call } : {}),
        ...(f.file !== '' ? { file: f.file, line: f.line } : {}),
      },
    });
}

/** Sorts a lane by start, carrying its other columns (a no-op, in linear time, when already sorted). */
function sortLane(lane: Lane, others: number[][]): void {
  let sorted = true;
  for (let i = 1; i < lane.start.length && sorted; i++)
    sorted = (lane.start[i - 1] ?? 0) <= (lane.start[i] ?? 0);
  if (sorted) return;
  const order = lane.start.map((_, i) => i).sort((a, b) => (lane.start[a] ?? 0) - (lane.start[b] ?? 0));
  for (const col of [lane.start, lane.end, ...others]) {
    const copy = order.map((i) => col[i] ?? 0);
    for (let i = 0; i < copy.length; i++) col[i] = copy[i] as number;
  }
}

/** The whole file's text in pieces (one event per line), for a writer that streams them to disk. */
export function chromeTraceChunks(
  messages: readonly TimelineMessage[],
  write: (text: string) => void,
  otherData: Record<string, unknown> = {},
): number {
  let n = 0;
  let buf: string[] = [];
  write(
    `{"displayTimeUnit":"ns","otherData":${JSON.stringify({ producer: 'mpiscope', ...otherData })},"traceEvents":[\n`,
  );
  chromeEvents(messages, (e) => {
    buf.push((n++ === 0 ? '' : ',\n') + JSON.stringify(e));
    if (buf.length >= 4096) {
      write(buf.join(''));
      buf = [];
    }
  });
  write(`${buf.join('')}\n]}\n`);
  return n;
}
