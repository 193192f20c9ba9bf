import { closeSync, openSync, readSync } from 'node:fs';

/** Program header type of the program interpreter (the dynamic loader): ELF's PT_INTERP. */
const PT_INTERP = 3;
/** e_phnum's escape value: the real count is elsewhere (section 0), which this reader does not follow. */
const PN_XNUM = 0xffff;

/**
 * The program interpreter an ELF executable names (what `readelf -lW` prints as "Requesting program interpreter":
 * the dynamic loader, /lib64/ld-linux-x86-64.so.2), read from its ELF and program headers here instead of by running
 * readelf: one process fewer to spawn before the launch (bench/end-to-end/README.md, "What runs before the
 * launcher"). null for an ELF file without one (static, or no program headers at all): the dynamic loader never
 * runs it, so LD_PRELOAD cannot reach it. undefined when the file is not an ELF file this can read (a script, a
 * truncated file): no answer, as when readelf failed.
 */
export function programInterpreter(path: string): string | null | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(64);
    if (readSync(fd, head, 0, 64, 0) < 52) return undefined;
    if (head.readUInt32BE(0) !== 0x7f454c46) return undefined;
    const wide = head[4] === 2;
    if (!wide && head[4] !== 1) return undefined;
    const little = head[5] === 1;
    if (!little && head[5] !== 2) return undefined;
    const u16 = (b: Buffer, at: number): number => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
    const u32 = (b: Buffer, at: number): number => (little ? b.readUInt32LE(at) : b.readUInt32BE(at));
    const word = (b: Buffer, at: number): number =>
      wide ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at);
    const offset = word(head, wide ? 0x20 : 0x1c);
    const entrySize = u16(head, wide ? 0x36 : 0x2a);
    const count = u16(head, wide ? 0x38 : 0x2c);
    if (count === 0) return null;
    // p_offset and p_filesz: 8 and 32 in a 64-bit entry (56 bytes), 4 and 16 in a 32-bit one (32 bytes).
    if (count === PN_XNUM || entrySize < (wide ? 40 : 20)) return undefined;
    const table = Buffer.alloc(entrySize * count);
    if (readSync(fd, table, 0, table.length, offset) < table.length) return undefined;
    for (let i = 0; i < count; i++) {
      const at = i * entrySize;
      if (u32(table, at) !== PT_INTERP) continue;
      const size = word(table, at + (wide ? 32 : 16));
      if (size < 2 || size > 4096) return undefined;
      const name = Buffer.alloc(size);
      if (readSync(fd, name, 0, size, word(table, at + (wide ? 8 : 4))) < size) return undefined;
      const end = name.indexOf(0);
      return name.subarray(0, end < 0 ? size : end).toString('latin1');
    }
    return null;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
