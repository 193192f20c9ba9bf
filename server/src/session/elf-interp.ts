import { closeSync, openSync, readSync } from 'node:fs';

/** Program header type of the program interpreter (the dynamic loader): ELF's PT_INTERP. */
const PT_INTERP = 3;
/** e_phnum's escape value: the real count is elsewhere (section 0), which this reader does not follow. */
const PN_XNUM = 0xffff;

/**
 * Whether an ELF executable names a program interpreter (what `readelf -lW` prints as "Requesting program
 * interpreter"), read from its ELF and program headers here instead of by running readelf: one process fewer to
 * spawn before the launch (bench/end-to-end/README.md, "What runs before the launcher"). A file without one
 * (static, or no program headers at all) is never run by the dynamic loader, so LD_PRELOAD cannot reach it.
 * undefined when the file is not an ELF file this can read (a script, a truncated file): no answer, as when readelf
 * failed.
 */
export function hasProgramInterpreter(path: string): boolean | undefined {
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
    const offset = wide
      ? Number(little ? head.readBigUInt64LE(0x20) : head.readBigUInt64BE(0x20))
      : u32(head, 0x1c);
    const entrySize = u16(head, wide ? 0x36 : 0x2a);
    const count = u16(head, wide ? 0x38 : 0x2c);
    if (count === 0) return false;
    if (count === PN_XNUM || entrySize < 4) return undefined;
    const table = Buffer.alloc(entrySize * count);
    if (readSync(fd, table, 0, table.length, offset) < table.length) return undefined;
    for (let i = 0; i < count; i++) if (u32(table, i * entrySize) === PT_INTERP) return true;
    return false;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
