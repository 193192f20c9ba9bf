import { execFile } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';

/** A call site as the shim reported it (SITE record): a return address inside a loaded module. */
export interface SiteKey {
  readonly module: string;
  /** Address minus the module's load base. */
  readonly offset: number;
  readonly address: number;
  /**
   * Set when the module at that path here is not the rank's (another host, another build): the rank
   * resolves the site itself and its answer is given with answer(); addr2line is not run here.
   */
  readonly byRank?: number;
}

export interface SourcePosition {
  /** Absolute path, or "" when unknown (no debug info). */
  readonly file: string;
  /** 1-based, 0 when unknown. */
  readonly line: number;
  readonly function: string;
}

const UNKNOWN: SourcePosition = { file: '', line: 0, function: '' };
const ET_EXEC = 2;

/**
 * Resolves call sites to function/file/line with addr2line, one batched process per module per request,
 * and remembers every answer: each distinct site is resolved once per session.
 */
export class SiteResolver {
  private readonly cache = new Map<string, SourcePosition>();
  private readonly fixedAddress = new Map<string, boolean>();
  /** Sites a rank resolves itself, not answered yet: who waits for them. */
  private readonly awaited = new Map<string, Array<() => void>>();
  /** Sites an addr2line started earlier is resolving: a second request waits for it instead of running another. */
  private readonly running = new Map<string, Promise<void>>();

  /**
   * @param cwd resolves relative paths in debug info (compiled from the job's directory).
   * @param addr2line runs `addr2line -a -f -C -i -e module addrs…` and gives its output ('' on failure).
   * @param nm runs `nm -S --defined-only -C` on the module, with `-D` when dynamic, and gives its output ('' on
   *   failure): the functions' extents, to check a name addr2line took from the symbols alone.
   */
  constructor(
    private readonly cwd: string,
    private readonly addr2line: (module: string, addrs: readonly string[]) => Promise<string> = runAddr2line,
    private readonly nm: (module: string, dynamic: boolean) => Promise<string> = runNm,
  ) {}

  lookup(site: SiteKey): SourcePosition {
    return this.cache.get(this.keyOf(site)) ?? UNKNOWN;
  }

  /** A rank's own resolution of one of its sites (SiteKey.byRank). */
  answer(site: SiteKey, position: SourcePosition): void {
    const key = this.keyOf(site);
    this.cache.set(key, this.absolute(position));
    for (const wake of this.awaited.get(key) ?? []) wake();
    this.awaited.delete(key);
  }

  /**
   * Resolve every site not resolved yet. Never rejects: unresolvable sites stay unknown. Sites a rank
   * resolves itself are waited for, at most waitMs (the rank sends them as soon as it learns it must).
   */
  async resolve(sites: readonly SiteKey[], waitMs = 3000): Promise<void> {
    const byModule = new Map<string, Map<string, bigint>>();
    const waits: Promise<void>[] = [];
    for (const site of sites) {
      const key = this.keyOf(site);
      if (this.cache.has(key) || site.module === '') continue;
      const inFlight = this.running.get(key);
      if (inFlight !== undefined) {
        waits.push(inFlight);
        continue;
      }
      if (site.byRank !== undefined) {
        waits.push(
          new Promise<void>((done) => {
            const timer = setTimeout(done, waitMs);
            let list = this.awaited.get(key);
            if (list === undefined) this.awaited.set(key, (list = []));
            list.push(() => {
              clearTimeout(timer);
              done();
            });
          }),
        );
        continue;
      }
      // A return address points after the call; one byte back lands inside the call instruction's line.
      const base = this.isFixedAddress(site.module) ? site.address : site.offset;
      const query = BigInt(base) - 1n;
      if (query < 0n) continue;
      let m = byModule.get(site.module);
      if (m === undefined) byModule.set(site.module, (m = new Map<string, bigint>()));
      m.set(key, query);
    }
    const runs = [...byModule].map(([module, queries]) => {
      const run = this.resolveModule(module, queries).finally(() => {
        for (const key of queries.keys()) this.running.delete(key);
      });
      for (const key of queries.keys()) this.running.set(key, run);
      return run;
    });
    await Promise.all([...runs, ...waits]);
  }

  private async resolveModule(module: string, queries: Map<string, bigint>): Promise<void> {
    const keys = [...queries.keys()];
    const addrs = keys.map((k) => '0x' + (queries.get(k) ?? 0n).toString(16));
    const out = await this.addr2line(module, addrs);
    const answers = parseAddr2line(out);
    // Without debug info addr2line names the nearest symbol before the address, however far: in a stripped
    // library that is the last exported function before a static one (GROMACS' MPI_Comm_split in a static
    // domain-decomposition helper came out as dd_store_state). Such a name stands only if the symbol's extent
    // holds the address; otherwise the site is named by its module and offset, as one addr2line knows nothing of.
    let symbols: FunctionSymbols | undefined;
    for (let i = 0; i < keys.length; i++) {
      const a = answers[i];
      if (a === undefined || a.file !== '' || a.function === '') continue;
      symbols ??= await this.symbolsOf(module);
      if (symbols.size === 0) break; // no nm, or it could not read the module: addr2line's names stand
      const at = queries.get(keys[i] ?? '') ?? 0n;
      const name = symbols.containing(Number(at));
      if (name === undefined) answers[i] = { ...a, function: moduleAddressName(module, at + 1n) };
      else if (name !== a.function) answers[i] = { ...a, function: name };
    }
    keys.forEach((key, i) => {
      const a = answers[i] ?? UNKNOWN;
      // Nothing known (a stripped module, a static function): the module and the address there, which
      // addr2line or a debugger given the module's debug info can still resolve.
      const named =
        a.file === '' && a.function === ''
          ? { ...a, function: moduleAddressName(module, (queries.get(key) ?? 0n) + 1n) }
          : a;
      this.cache.set(key, this.absolute(named));
    });
  }

  private async symbolsOf(module: string): Promise<FunctionSymbols> {
    const [own, dynamic] = await Promise.all([this.nm(module, false), this.nm(module, true)]);
    return new FunctionSymbols(own + '\n' + dynamic);
  }

  private absolute(p: SourcePosition): SourcePosition {
    if (p.file === '' || isAbsolute(p.file)) return p;
    return { ...p, file: resolve(this.cwd, p.file) };
  }

  private keyOf(site: SiteKey): string {
    return site.byRank === undefined
      ? `${site.module}\0${site.offset}`
      : `${site.byRank}\0${site.module}\0${site.offset}`;
  }

  /** Non-PIE executables (ELF type EXEC) are linked at fixed addresses: addr2line wants the address itself. */
  private isFixedAddress(module: string): boolean {
    let fixed = this.fixedAddress.get(module);
    if (fixed === undefined) {
      fixed = elfType(module) === ET_EXEC;
      this.fixedAddress.set(module, fixed);
    }
    return fixed;
  }
}

const fixedModules = new Map<string, boolean>();

/**
 * The site's address as the module's debug info and symbols name it: the offset in a position-independent
 * module, the address itself in a non-PIE executable (ELF type EXEC, linked at fixed addresses).
 */
export function linkAddress(site: SiteKey): number {
  let fixed = fixedModules.get(site.module);
  if (fixed === undefined) {
    fixed = elfType(site.module) === ET_EXEC;
    fixedModules.set(site.module, fixed);
  }
  return fixed ? site.address : site.offset;
}

/**
 * The program that resolves addresses: llvm-addr2line when it is installed, else binutils' addr2line. GNU
 * addr2line 2.40 (Debian 12) names the wrong file for the rows a DWARF 5 line sequence has before its first file
 * change: those are in file 1 of the table (GCC 11 and later emit DWARF 5, and make file 1 the first file with
 * code, e.g. a header whose function precedes main), and it reports them in the compilation unit's own file at
 * the header's line numbers. llvm-addr2line reads the same tables right, takes the same options and prints the
 * same shape. Looked up on PATH once.
 */
let addr2lineProgram: string | undefined;

function addr2lineTool(): string {
  if (addr2lineProgram !== undefined) return addr2lineProgram;
  addr2lineProgram = 'addr2line';
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, 'llvm-addr2line'), constants.X_OK);
      addr2lineProgram = 'llvm-addr2line';
      break;
    } catch {
      // Not in this directory.
    }
  }
  return addr2lineProgram;
}

function runAddr2line(module: string, addrs: readonly string[]): Promise<string> {
  return new Promise<string>((done) => {
    execFile(
      addr2lineTool(),
      ['-a', '-f', '-C', '-i', '-e', module, ...addrs],
      { maxBuffer: 16 << 20 },
      (err, stdout) => done(err ? '' : stdout),
    );
  });
}

/** A place known only by its module and address there: "libapp.so.7+0x5252e1". */
export function moduleAddressName(module: string, address: bigint | number): string {
  return `${basename(module)}+0x${address.toString(16)}`;
}

function runNm(module: string, dynamic: boolean): Promise<string> {
  return new Promise<string>((done) => {
    execFile(
      'nm',
      [...(dynamic ? ['-D'] : []), '-S', '--defined-only', '-C', module],
      { maxBuffer: 256 << 20 },
      (err, stdout) => done(err ? '' : stdout),
    );
  });
}

/** The functions of a module with their extents, from `nm -S` output: which one holds an address. */
export class FunctionSymbols {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly names: string[] = [];

  constructor(nmOutput: string) {
    const all: { start: number; end: number; name: string }[] = [];
    for (const line of nmOutput.split('\n')) {
      // "value size type name" (symbols without a size have no extent and cannot vouch for an address)
      const m = /^([0-9a-f]+) ([0-9a-f]+) [tTwWiI] (.+)$/.exec(line);
      if (m === null) continue;
      const start = Number.parseInt(m[1] ?? '', 16);
      const size = Number.parseInt(m[2] ?? '', 16);
      if (size > 0) all.push({ start, end: start + size, name: m[3] ?? '' });
    }
    all.sort((a, b) => a.start - b.start || b.end - a.end);
    for (const s of all) {
      this.starts.push(s.start);
      this.ends.push(s.end);
      this.names.push(s.name);
    }
  }

  get size(): number {
    return this.starts.length;
  }

  /** The name of a function whose extent holds the address, if any. */
  containing(address: number): string | undefined {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] ?? 0) <= address) lo = mid + 1;
      else hi = mid;
    }
    // Functions do not nest, but aliases and a few overlaps do: look back over the last starts at or before it.
    for (let i = lo - 1; i >= 0 && i >= lo - 8; i--) if (address < (this.ends[i] ?? 0)) return this.names[i];
    return undefined;
  }
}

function elfType(path: string): number | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const b = Buffer.alloc(18);
      readSync(fd, b, 0, 18, 0);
      return b.toString('latin1', 1, 4) === 'ELF' ? b.readUInt16LE(16) : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Parse `addr2line -a -f -C -i` output: per address, a "0x…" line, then (function, file:line) pairs, the
 * first pair being the innermost (possibly inlined) frame, which is the source line of the call itself.
 */
export function parseAddr2line(out: string): SourcePosition[] {
  const lines = out.split('\n');
  const result: SourcePosition[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!/^0x[0-9a-f]+$/i.test(lines[i] ?? '')) {
      i++;
      continue;
    }
    const fn = lines[i + 1] ?? '??';
    const where = lines[i + 2] ?? '??:0';
    i += 3;
    while (i < lines.length && !/^0x[0-9a-f]+$/i.test(lines[i] ?? '')) i++; // skip the "inlined by" frames
    result.push(parsePosition(fn, where));
  }
  return result;
}

function parsePosition(fn: string, where: string): SourcePosition {
  const clean = where.replace(/ \(discriminator \d+\)$/, '');
  const colon = clean.lastIndexOf(':');
  const file = colon < 0 ? clean : clean.slice(0, colon);
  const line = colon < 0 ? 0 : Number.parseInt(clean.slice(colon + 1), 10);
  return {
    function: fn === '??' ? '' : fn,
    file: file === '??' ? '' : file,
    line: Number.isFinite(line) && line > 0 ? line : 0,
  };
}
