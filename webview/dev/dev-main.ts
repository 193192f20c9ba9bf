/**
 * Feeds a synthetic job to the real webview, through the real model and feed, as the language server would.
 * URL parameters: ranks (8), iterations (250), deadlock (1), theme (dark|light), chunk (events per batch).
 */
import { syntheticJob, SOURCE_FILE } from '../../server/src/timeline/synthetic-job';
import { TimelineFeed } from '../../server/src/timeline/timeline-feed';
import '../src/main';

const q = new URLSearchParams(location.search);
const num = (k: string, d: number): number => Number(q.get(k) ?? d);
const theme = q.get('theme');
if (theme === 'light' || theme === 'hc') document.documentElement.classList.add(theme);

/** ?job=none: no synthetic job; the page (bench/timeline) posts the messages itself. */
const noJob = q.get('job') === 'none';
const ranks = num('ranks', 8);
const job = syntheticJob({
  ranks,
  iterations: noJob ? 0 : num('iterations', 250),
  deadlock: !noJob && q.get('deadlock') !== '0',
});
const built = performance.now();
const feed = noJob
  ? undefined
  : new TimelineFeed({
      ranks,
      program: '/home/user/halo/halo',
      send: (m) => window.postMessage(m, '*'),
      // The standalone page flushes by hand below; no timer.
      schedule: () => ({ cancel: () => undefined }),
      resolveSite: (_rank, address) =>
        Promise.resolve({ file: SOURCE_FILE, line: job.lines.get(address) ?? 0, function: 'exchange' }),
    });
const chunk = num('chunk', 20000);
if (feed !== undefined) {
  for (let i = 0; i < job.events.length; i += chunk) {
    for (const e of job.events.slice(i, i + chunk)) feed.push(e);
    feed.flush();
  }
  for (const f of job.findings) feed.finding(f);
  feed.flush();
  void feed.settled().then(() => {
    feed.flush();
    (window as unknown as { devReady: unknown }).devReady = {
      events: job.events.length,
      modelMs: performance.now() - built,
    };
  });
} else {
  (window as unknown as { devReady: unknown }).devReady = { events: 0, modelMs: 0 };
}
