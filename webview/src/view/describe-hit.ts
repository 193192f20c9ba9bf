import type { TimelineStore } from '../store/timeline-store';
import type { Hit } from './hit-test';
import { classLabel } from './palette';
import { formatBytes, formatDuration } from './time-format';

/** What the tooltip says about a hit: a title and a few lines, plus where to reveal in the editor. */
export interface HitText {
  readonly title: string;
  readonly lines: readonly string[];
  readonly file?: string;
  readonly line?: number;
}

function siteText(store: TimelineStore, site: number): { text: string; file?: string; line?: number } {
  const s = store.sites.get(site);
  if (s === undefined) return { text: 'call site unknown' };
  if (s.file === '') return { text: `at 0x${s.address.toString(16)} (no debug info yet)` };
  const short = s.file.split('/').pop() ?? s.file;
  const fn = s.function === '' ? '' : ` in ${s.function}`;
  return { text: `${short}:${s.line}${fn}`, file: s.file, line: s.line };
}

export function describeHit(store: TimelineStore, hit: Hit): HitText | undefined {
  if (hit.kind === 'finding') {
    const f = store.findings.find((x) => x.id === hit.id);
    const loc = f?.locations[hit.location];
    if (f === undefined || loc === undefined) return undefined;
    const where = loc.file === '' ? '' : `${loc.file.split('/').pop() ?? ''}:${loc.line}`;
    return {
      title: `${f.kind} (${f.severity})`,
      lines: [f.message, `rank ${loc.rank}: ${loc.detail}`, where].filter((s) => s !== ''),
      ...(loc.file === '' ? {} : { file: loc.file, line: loc.line }),
    };
  }
  if (hit.kind === 'message') {
    const m = store.messages;
    const i = hit.index;
    const latency = m.recvTime.at(i) - m.sendTime.at(i);
    return {
      title: `message rank ${m.src.at(i)} → rank ${m.dst.at(i)}`,
      lines: [
        `tag ${m.tag.at(i)}, ${formatBytes(m.bytes.at(i))}`,
        `sent at ${formatDuration(m.sendTime.at(i))}, received ${formatDuration(latency)} later`,
      ],
    };
  }
  const { rank, index } = hit.ref;
  let fn: number;
  let start: number;
  let end: number | undefined;
  let site: number;
  let comm: number;
  if (index < 0) {
    const o = store.open.find((c) => c.rank === rank);
    if (o === undefined) return undefined;
    ({ fn, start, site, comm } = o);
  } else {
    const lane = store.lanes[rank];
    if (lane === undefined) return undefined;
    fn = lane.fn.at(index);
    start = lane.start.at(index);
    end = lane.end.at(index);
    site = lane.site.at(index);
    comm = lane.comm.at(index);
  }
  const cls = store.functions.get(fn)?.cls ?? 0;
  const where = siteText(store, site);
  const lines = [
    `rank ${rank}, ${classLabel(cls)}${comm >= 0 ? `, communicator #${comm}` : ''}`,
    end === undefined
      ? `entered at ${formatDuration(start)}, not returned (${formatDuration(store.now - start)} so far)`
      : `${formatDuration(end - start)} from ${formatDuration(start)}`,
    where.text,
  ];
  return {
    title: store.functionName(fn),
    lines,
    ...(where.file === undefined ? {} : { file: where.file, line: where.line ?? 0 }),
  };
}
