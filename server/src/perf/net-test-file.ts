/**
 * The net-test result file (docs/net-test-format.md): one JSON document per run. Pure (no Node I/O), so the
 * heatmap view in the browser reads it with the same code and the same checks as the CLI.
 */

export const NET_TEST_FORMAT = 'mpiscope-net-test';
export const NET_TEST_VERSION = 1;

export const NET_TEST_MODES = [
  'one_to_one',
  'all_to_all',
  'send_recv_and_recv_send',
  'async_one_to_one',
  'noise_blocking',
  'noise',
] as const;
export type NetTestMode = (typeof NET_TEST_MODES)[number];

export const STATISTICS = ['min', 'median', 'mean', 'stddev'] as const;
export type Statistic = (typeof STATISTICS)[number];

/** Square matrix, row = sender rank, column = receiver rank; null on the diagonal (never measured). */
export type DelayMatrix = (number | null)[][];

export interface NetTestResult {
  /** Message length in bytes. */
  readonly length: number;
  readonly min: DelayMatrix;
  readonly median: DelayMatrix;
  readonly mean: DelayMatrix;
  readonly stddev: DelayMatrix;
}

export interface NetTestParameters {
  readonly begin: number;
  readonly end: number;
  readonly step: number;
  readonly repetitions: number;
  /** Only for the noise modes. */
  readonly noise?: {
    readonly length: number;
    readonly count: number;
    readonly procs: number;
    readonly seed: number;
  };
}

export interface NetTestFile {
  readonly format: typeof NET_TEST_FORMAT;
  readonly version: typeof NET_TEST_VERSION;
  readonly mode: NetTestMode;
  readonly started: string;
  readonly mpi: { readonly flavor: string; readonly launcher: string };
  readonly parameters: NetTestParameters;
  /** hosts[r]: the host rank r ran on (MPI_Get_processor_name). */
  readonly hosts: readonly string[];
  /** Every delay is in seconds. */
  readonly unit: 'seconds';
  readonly results: readonly NetTestResult[];
}

/** A file that is not a net-test result; the message is one line naming what is wrong. */
export class NetTestFormatError extends Error {}

/**
 * Turn what the MPI program's rank 0 wrote (native-tools/net-test.c: "host R NAME", "len L", "I J MIN
 * MEDIAN MEAN STDDEV", "end") into the result file's hosts and results.
 */
export function parseRawOutput(
  text: string,
  ranks: number,
): { hosts: string[]; results: NetTestResult[]; complete: boolean } {
  const hosts: string[] = new Array<string>(ranks).fill('');
  const results: NetTestResult[] = [];
  let current: Record<Statistic, DelayMatrix> | undefined;
  const empty = (): DelayMatrix =>
    Array.from({ length: ranks }, () => new Array<number | null>(ranks).fill(null));
  let complete = false;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === 'host' && f.length >= 3) hosts[Number(f[1])] = f.slice(2).join(' ');
    else if (f[0] === 'len' && f.length === 2) {
      current = { min: empty(), median: empty(), mean: empty(), stddev: empty() };
      results.push({ length: Number(f[1]), ...current });
    } else if (f[0] === 'end') complete = true;
    else if (f.length === 6 && current !== undefined) {
      const i = Number(f[0]);
      const j = Number(f[1]);
      STATISTICS.forEach((s, k) => {
        const row = current?.[s][i];
        if (row !== undefined && j >= 0 && j < ranks) row[j] = Number(f[2 + k]);
      });
    }
  }
  return { hosts, results, complete };
}

function fail(why: string): never {
  throw new NetTestFormatError(why);
}

/** Check a parsed JSON value is a net-test file of this version, with square matrices of the ranks' size. */
export function validateNetTestFile(value: unknown): NetTestFile {
  if (typeof value !== 'object' || value === null) fail('not a JSON object');
  const v = value as Record<string, unknown>;
  if (v.format !== NET_TEST_FORMAT) fail(`not a net-test result (its "format" is not "${NET_TEST_FORMAT}")`);
  if (v.version !== NET_TEST_VERSION)
    fail(`a version ${String(v.version)} net-test file; this mpiscope reads version ${NET_TEST_VERSION}`);
  if (!NET_TEST_MODES.includes(v.mode as NetTestMode)) fail(`unknown mode ${JSON.stringify(v.mode)}`);
  const hosts = v.hosts;
  if (!Array.isArray(hosts) || hosts.length < 2 || !hosts.every((h) => typeof h === 'string'))
    fail('"hosts" must list the host of every rank (at least 2)');
  const n = hosts.length;
  if (!Array.isArray(v.results) || v.results.length === 0)
    fail('"results" must hold at least one message length');
  for (const r of v.results as unknown[]) {
    const res = r as Record<string, unknown>;
    if (typeof res.length !== 'number' || !(res.length >= 0)) fail('every result needs a "length" in bytes');
    for (const s of STATISTICS) {
      const m = res[s];
      if (
        !Array.isArray(m) ||
        m.length !== n ||
        !m.every(
          (row) =>
            Array.isArray(row) &&
            row.length === n &&
            row.every((x) => x === null || (typeof x === 'number' && Number.isFinite(x))),
        )
      )
        fail(`the ${s} matrix of length ${res.length} is not ${n}×${n} numbers (or null)`);
    }
  }
  return value as NetTestFile;
}

/** Parse and check a net-test file's text. */
export function readNetTestText(text: string): NetTestFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // V8 quotes the text in its message, newlines included: one line is wanted.
    fail(`not JSON (${(err as Error).message.replace(/\s+/g, ' ')})`);
  }
  return validateNetTestFile(value);
}

/** The long CSV form: one row per message length, statistic and ordered pair of ranks. */
export function toCsv(file: NetTestFile): string {
  const rows = ['length,statistic,from_rank,to_rank,from_host,to_host,seconds'];
  const q = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  for (const r of file.results)
    for (const s of STATISTICS)
      r[s].forEach((row, i) =>
        row.forEach((x, j) => {
          if (x !== null)
            rows.push(`${r.length},${s},${i},${j},${q(file.hosts[i] ?? '')},${q(file.hosts[j] ?? '')},${x}`);
        }),
      );
  return `${rows.join('\n')}\n`;
}

/** The ranks ordered by host (hosts in order of their first rank), so that each host is one block. */
export function hostOrder(hosts: readonly string[]): number[] {
  const first = new Map<string, number>();
  hosts.forEach((h, r) => {
    if (!first.has(h)) first.set(h, r);
  });
  return hosts
    .map((h, r) => ({ r, key: first.get(h) ?? r }))
    .sort((a, b) => a.key - b.key || a.r - b.r)
    .map((x) => x.r);
}
