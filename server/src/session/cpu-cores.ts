import { readFileSync } from 'node:fs';

/** The CPUs of a Linux CPU list ("0-3,8,10-11", as in /proc/self/status Cpus_allowed_list); [] when malformed. */
export function parseCpuList(text: string): number[] {
  const out: number[] = [];
  for (const part of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) return [];
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from > 65536) return [];
    for (let c = from; c <= to; c++) out.push(c);
  }
  return out;
}

/**
 * The physical cores this process may run on: the distinct (package, core) pairs of the CPUs in its affinity
 * (hyperthreads of one core count once, as Hydra's `-bind-to core` counts them). Undefined where Linux's
 * /proc and /sys do not say (another system, a container that hides the topology).
 */
export function physicalCores(
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): number | undefined {
  try {
    const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(read('/proc/self/status'));
    const cpus = parseCpuList(allowed?.[1] ?? '');
    if (cpus.length === 0) return undefined;
    const cores = new Set<string>();
    for (const cpu of cpus) {
      const topology = `/sys/devices/system/cpu/cpu${cpu}/topology`;
      cores.add(`${read(`${topology}/physical_package_id`).trim()}:${read(`${topology}/core_id`).trim()}`);
    }
    return cores.size;
  } catch {
    return undefined;
  }
}
