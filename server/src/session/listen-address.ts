import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { hostname, networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { isIP } from 'node:net';
import { UsageError } from './session-api';

/** Where the analyzer listens, and the address the ranks are told to connect to. */
export interface ListenChoice {
  readonly bind: string;
  /** The host part of the URL given to the ranks. */
  readonly advertise: string;
  /** 0: the system chooses. */
  readonly port: number;
  /** The subnet (CIDR) of the chosen interface, when it contains every host of the job. */
  readonly subnet?: string;
  /** Said once on stderr when the choice is a guess the user may need to correct. */
  readonly note?: string;
}

/** `ADDR`, `ADDR:PORT`, `[IPv6]:PORT`, `:PORT`. Throws a UsageError naming the mistake. */
export function parseListen(text: string): { host?: string; port: number } {
  const bad = (why: string): UsageError =>
    new UsageError(`--listen ${text}: ${why}; give ADDR[:PORT], for example --listen 10.0.0.5:7700`);
  let host: string | undefined;
  let portText: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (v6 !== null) {
    host = v6[1];
    portText = v6[2];
  } else if (isIP(text) === 6) host = text;
  else {
    const colon = text.lastIndexOf(':');
    host = colon < 0 ? text : text.slice(0, colon);
    portText = colon < 0 ? undefined : text.slice(colon + 1);
  }
  if (host === '') host = undefined;
  if (host !== undefined && isIP(host) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host))
    throw bad(`${host} is neither an IP address nor a host name`);
  let port = 0;
  if (portText !== undefined) {
    port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
    if (!(port >= 0 && port <= 65535)) throw bad(`the port must be a number from 0 to 65535`);
  }
  if (host === undefined && portText === undefined) throw bad('no address');
  return { ...(host !== undefined ? { host } : {}), port };
}

/** Host names of a host file: Open MPI's `host slots=N` lines and Hydra's `host:N` lines; # starts a comment. */
export function hostfileHosts(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const first = line.split(/\s+/)[0] as string;
    out.push(first.replace(/:\d+$/, ''));
  }
  return out;
}

export function readHostfile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the host file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give an existing file with --hostfile`,
    );
  }
  const hosts = hostfileHosts(text);
  if (hosts.length === 0)
    throw new UsageError(`the host file ${path} names no host; write one host name per line`);
  return hosts;
}

/** Slurm's compressed host lists: `node[1-3,7],login` → node1 node2 node3 node7 login (zero padding kept). */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  for (const part of list.match(/[^,[]+(\[[^\]]*\])?[^,]*/g) ?? []) {
    const m = /^([^[]*)\[([^\]]*)\](.*)$/.exec(part);
    if (m === null) {
      out.push(part);
      continue;
    }
    const [, pre, ranges, post] = m as unknown as [string, string, string, string];
    for (const r of ranges.split(',')) {
      const [a, b = a] = r.split('-') as [string, string?];
      for (let i = Number(a); i <= Number(b); i++)
        out.push(`${pre}${String(i).padStart(a.length, '0')}${post}`);
    }
  }
  return out;
}

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

function ipv4ToInt(a: string): number {
  return a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function inSubnet(addr: string, iface: NetworkInterfaceInfo): boolean {
  if (iface.family !== 'IPv4' || isIP(addr) !== 4) return false;
  const mask = ipv4ToInt(iface.netmask);
  return (ipv4ToInt(addr) & mask) >>> 0 === (ipv4ToInt(iface.address) & mask) >>> 0;
}

function networkCidr(iface: NetworkInterfaceInfo): string {
  const mask = ipv4ToInt(iface.netmask);
  const net = (ipv4ToInt(iface.address) & mask) >>> 0;
  const bits = (mask >>> 0).toString(2).replace(/0+$/, '').length;
  return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.')}/${bits}`;
}

export interface ChooseInput {
  readonly listen?: { host?: string; port: number };
  /** The job's hosts (from --host, --hostfile or the Slurm allocation); empty: this machine only. */
  readonly hosts: readonly string[];
  /** Each host's addresses (resolved by the caller; a name that does not resolve has none). */
  readonly addresses: ReadonlyMap<string, readonly string[]>;
  readonly interfaces: Interfaces;
  readonly localNames: readonly string[];
}

/** True when the host is this machine: its name, localhost, or an address of one of its interfaces. */
function isLocal(host: string, input: ChooseInput, own: ReadonlySet<string>): boolean {
  const name = host.replace(/:\d+$/, '');
  if (name === 'localhost' || input.localNames.includes(name)) return true;
  const addrs = input.addresses.get(name) ?? (isIP(name) ? [name] : []);
  return addrs.length > 0 && addrs.every((a) => a.startsWith('127.') || a === '::1' || own.has(a));
}

/**
 * Choose the listening address: loopback when every host of the job is this machine; otherwise the address
 * of the interface whose subnet contains the hosts' addresses; --listen overrides both. Pure: the caller
 * passes the interfaces and the resolved addresses.
 */
export function chooseListen(input: ChooseInput): ListenChoice {
  const ifaces = Object.values(input.interfaces)
    .flat()
    .filter((i): i is NetworkInterfaceInfo => i !== undefined);
  const own = new Set(ifaces.map((i) => i.address));
  const external = ifaces.filter((i) => i.family === 'IPv4' && !i.internal);
  const remote = input.hosts.map((h) => h.replace(/:\d+$/, '')).filter((h) => !isLocal(h, input, own));
  const port = input.listen?.port ?? 0;
  const wanted = input.listen?.host;
  if (wanted !== undefined && wanted !== '0.0.0.0' && wanted !== '::')
    return { bind: wanted, advertise: wanted, port };
  const anyAddress = wanted ?? '';
  if (remote.length === 0)
    return anyAddress === ''
      ? { bind: '127.0.0.1', advertise: '127.0.0.1', port }
      : { bind: anyAddress, advertise: '127.0.0.1', port };
  const remoteAddrs = [...new Set(remote.flatMap((h) => input.addresses.get(h) ?? (isIP(h) ? [h] : [])))];
  let best: NetworkInterfaceInfo | undefined;
  let bestCount = 0;
  for (const i of external) {
    const n = remoteAddrs.filter((a) => inSubnet(a, i)).length;
    if (n > bestCount) [best, bestCount] = [i, n];
  }
  const bind = (addr: string): string => (anyAddress === '' ? addr : anyAddress);
  if (best !== undefined && bestCount === remoteAddrs.length && remoteAddrs.length > 0)
    return { bind: bind(best.address), advertise: best.address, port, subnet: networkCidr(best) };
  const fallback = best ?? external[0];
  if (fallback === undefined) {
    throw new UsageError(
      `the job runs on other hosts (${remote.join(', ')}) but this machine has no network interface besides loopback; give the address the ranks reach with --listen ADDR`,
    );
  }
  return {
    bind: bind(fallback.address),
    advertise: fallback.address,
    port,
    note: `listening on ${fallback.address} (${best !== undefined ? 'the interface that shares a subnet with most hosts' : 'no interface shares a subnet with the hosts'}); if the ranks on ${remote.join(', ')} cannot reach it, give an address they reach with --listen ADDR`,
  };
}

/** Resolve the hosts and choose (see chooseListen). */
export async function listenFor(hosts: readonly string[], listen: string | undefined): Promise<ListenChoice> {
  const addresses = new Map<string, string[]>();
  for (const h of new Set(hosts.map((x) => x.replace(/:\d+$/, '')))) {
    if (isIP(h) !== 0) continue;
    try {
      addresses.set(
        h,
        (await lookup(h, { all: true })).map((r) => r.address),
      );
    } catch {
      addresses.set(h, []);
    }
  }
  const name = hostname();
  return chooseListen({
    ...(listen !== undefined ? { listen: parseListen(listen) } : {}),
    hosts,
    addresses,
    interfaces: networkInterfaces(),
    localNames: [name, name.split('.')[0] as string],
  });
}
