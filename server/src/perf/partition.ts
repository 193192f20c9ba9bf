/**
 * Placing ranks on hosts with METIS (Debian's `gpmetis`, package metis): the communication graph made
 * undirected, hosts as parts with target weights proportional to their slots. METIS balances only to a
 * tolerance, so a part it overfills is brought back to its slot count by moving the ranks that cost least
 * to move (a feasibility repair of METIS's answer, not a partitioner of our own).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../session/launch-plan';
import { UsageError } from '../session/session-api';
import type { CommGraph } from './comm-graph';

export interface Host {
  readonly name: string;
  readonly slots: number;
}

/** Edge weights for METIS: integers, symmetric, the heaviest 1e6 (METIS's weights are 32-bit). */
function undirectedWeights(g: CommGraph): Int32Array {
  const n = g.ranks;
  let max = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      max = Math.max(max, (g.bytes[i * n + j] ?? 0) + (g.bytes[j * n + i] ?? 0));
  const w = new Int32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const b = (g.bytes[i * n + j] ?? 0) + (g.bytes[j * n + i] ?? 0);
      if (b <= 0) continue;
      const x = Math.max(1, Math.round((b / max) * 1e6));
      w[i * n + j] = w[j * n + i] = x;
    }
  return w;
}

/** The host of each rank when the launcher fills each host's slots in turn (mpirun's and Hydra's default). */
export function blockPlacement(hosts: readonly Host[], ranks: number): number[] {
  const out: number[] = [];
  hosts.forEach((h, k) => {
    for (let s = 0; s < h.slots && out.length < ranks; s++) out.push(k);
  });
  return out;
}

/** One rank per host in turn (mpirun --map-by node): neighbours by rank land on different hosts. */
export function cyclicPlacement(hosts: readonly Host[], ranks: number): number[] {
  const used = hosts.map(() => 0);
  const out: number[] = [];
  for (let k = 0; out.length < ranks; k = (k + 1) % hosts.length) {
    if ((used[k] ?? 0) < (hosts[k]?.slots ?? 0)) {
      out.push(k);
      used[k] = (used[k] ?? 0) + 1;
    }
  }
  return out;
}

/** Run gpmetis; returns the part (host index) of every rank, within every host's slots. */
export function metisPlacement(g: CommGraph, hosts: readonly Host[]): number[] {
  const n = g.ranks;
  if (hosts.length === 1) return new Array<number>(n).fill(0);
  const gpmetis = findOnPath('gpmetis');
  if (gpmetis === undefined)
    throw new UsageError(
      'gpmetis (METIS) is not installed; install the Debian package metis (apt-get install metis) or run scripts/setup.sh',
    );
  const w = undirectedWeights(g);
  const lines: string[] = [];
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const adj: string[] = [];
    for (let j = 0; j < n; j++) {
      const x = w[i * n + j] ?? 0;
      if (x > 0) {
        adj.push(`${j + 1} ${x}`);
        if (j > i) edges++;
      }
    }
    lines.push(adj.join(' '));
  }
  const totalSlots = hosts.reduce((a, h) => a + h.slots, 0);
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-map-'));
  try {
    const graphFile = join(dir, 'graph');
    writeFileSync(graphFile, `${n} ${edges} 001\n${lines.join('\n')}\n`);
    // Target weights: each host's share of the slots; the fractions must add up to 1 exactly for METIS.
    const fractions = hosts.map((h) => h.slots / totalSlots);
    const tp = join(dir, 'tpwgts');
    writeFileSync(tp, fractions.map((f, k) => `${k} = ${f.toFixed(6)}`).join('\n') + '\n');
    const r = spawnSync(
      gpmetis,
      ['-ptype=kway', '-ufactor=1', `-tpwgts=${tp}`, graphFile, String(hosts.length)],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    let parts: number[];
    try {
      parts = readFileSync(`${graphFile}.part.${hosts.length}`, 'utf8').trim().split('\n').map(Number);
    } catch {
      const why =
        `${r.stdout}${r.stderr}`.split('\n').find((l) => /error|\*\*\*/i.test(l)) ?? `exit ${r.status}`;
      throw new UsageError(`gpmetis could not partition the graph (${why.trim()})`);
    }
    if (parts.length !== n || parts.some((p) => !(p >= 0 && p < hosts.length)))
      throw new UsageError(`gpmetis wrote ${parts.length} parts for ${n} ranks; cannot use its answer`);
    return repair(parts, w, n, hosts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Move ranks out of parts above their slots, each time the move that loses the fewest bytes. */
function repair(parts: number[], w: Int32Array, n: number, hosts: readonly Host[]): number[] {
  const count = hosts.map((_, k) => parts.filter((p) => p === k).length);
  for (;;) {
    const over = count.findIndex((c, k) => c > (hosts[k]?.slots ?? 0));
    if (over < 0) return parts;
    let best: { v: number; to: number; gain: number } | undefined;
    for (let v = 0; v < n; v++) {
      if (parts[v] !== over) continue;
      const toPart = new Array<number>(hosts.length).fill(0);
      for (let u = 0; u < n; u++) {
        const p = parts[u] as number;
        toPart[p] = (toPart[p] ?? 0) + (w[v * n + u] ?? 0);
      }
      for (let t = 0; t < hosts.length; t++) {
        if (t === over || (count[t] ?? 0) >= (hosts[t]?.slots ?? 0)) continue;
        const gain = (toPart[t] ?? 0) - (toPart[over] ?? 0);
        if (best === undefined || gain > best.gain) best = { v, to: t, gain };
      }
    }
    if (best === undefined) return parts; // cannot happen when the slots hold every rank (checked before)
    parts[best.v] = best.to;
    count[over] = (count[over] ?? 0) - 1;
    count[best.to] = (count[best.to] ?? 0) + 1;
  }
}

/** Open MPI's rankfile: `rank R=HOST slot=S`, S counting the ranks already on that host. */
export function rankfile(placement: readonly number[], hosts: readonly Host[]): string {
  const next = hosts.map(() => 0);
  return placement
    .map((h, r) => {
      const slot = next[h] ?? 0;
      next[h] = slot + 1;
      return `rank ${r}=${hosts[h]?.name ?? '?'} slot=${slot}\n`;
    })
    .join('');
}

/** MPICH's machinefile: Hydra gives the k-th rank the k-th slot listed, so one `HOST:1` line per rank. */
export function machinefile(placement: readonly number[], hosts: readonly Host[]): string {
  return placement.map((h) => `${hosts[h]?.name ?? '?'}:1\n`).join('');
}
