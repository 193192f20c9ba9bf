import type { TimelineStore } from '../../store/timeline-store';
import { blockedRanks } from '../../view/draw-timeline';
import { formatDuration } from '../../view/time-format';

/** The canvas's accessible description: what a sighted user takes in at a glance, in one sentence. */
export function timelineSummary(store: TimelineStore): string {
  const blocked = [...blockedRanks(store.findings)].sort((a, b) => a - b);
  const parts = [
    `Timeline of ${store.ranks} ranks over ${formatDuration(store.now)}`,
    `${store.spanCount} MPI calls`,
    `${store.messages.length} messages`,
    `${store.findings.length} finding${store.findings.length === 1 ? '' : 's'}`,
  ];
  if (blocked.length > 0) parts.push(`ranks ${blocked.join(', ')} deadlocked`);
  if (store.open.length > 0 && blocked.length === 0) parts.push(`${store.open.length} calls in progress`);
  return `${parts.join(', ')}. The findings list below is keyboard navigable.`;
}
