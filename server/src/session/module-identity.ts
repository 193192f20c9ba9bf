import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { programHeaders, readAtBytes } from './elf-headers';

/** How a rank's shim describes a module before its first call site in it (msc_sites.c). */
export interface RemoteModule {
  readonly path: string;
  /** The GNU build ID in hex, or "" when the module has none. */
  readonly buildId: string;
  /** Bytes and modification time (seconds) of the file on the rank's host; -1 when it could not stat it. */
  readonly size: number;
  readonly mtime: number;
}

const NT_GNU_BUILD_ID = 3;
const PT_NOTE = 4;

/** The GNU build ID of an ELF file, in hex, from its first bytes (the notes are near its start), or "". */
export function elfBuildId(bytes: Buffer): string {
  const elf = programHeaders(readAtBytes(bytes));
  if (elf === undefined) return '';
  const u32 = (at: number): number => (elf.little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  for (const h of elf.headers) {
    if (h.type !== PT_NOTE) continue;
    const end = Math.min(h.offset + h.fileSize, bytes.length);
    let p = h.offset;
    while (p + 12 <= end) {
      const namesz = u32(p);
      const descsz = u32(p + 4);
      const type = u32(p + 8);
      const desc = p + 12 + ((namesz + 3) & ~3);
      if (desc + descsz > end) break;
      if (type === NT_GNU_BUILD_ID && namesz === 4 && bytes.toString('latin1', p + 12, p + 15) === 'GNU')
        return bytes.toString('hex', desc, desc + descsz);
      p = desc + ((descsz + 3) & ~3);
    }
  }
  return '';
}

/** The first bytes of a file (the program headers and notes of an ELF file are near its start). */
function head(path: string, n: number): { bytes: Buffer; size: number; mtime: number } | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const st = fstatSync(fd);
      const bytes = Buffer.alloc(Math.min(n, st.size));
      readSync(fd, bytes, 0, bytes.length, 0);
      return { bytes, size: st.size, mtime: Math.floor(st.mtimeMs / 1000) };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * True when the file at the module's path on this machine is the module the rank runs: the same build ID
 * when both have one, else the same size and modification time. Then addr2line here gives the rank's lines;
 * otherwise the rank must resolve its own sites.
 */
export function sameModuleHere(m: RemoteModule): boolean {
  const local = head(m.path, 64 * 1024);
  if (local === undefined) return false;
  const id = elfBuildId(local.bytes);
  if (id !== '' && m.buildId !== '') return id === m.buildId;
  return m.size >= 0 && local.size === m.size && local.mtime === m.mtime;
}
