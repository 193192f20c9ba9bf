/**
 * The program headers of an ELF file, read from its ELF header and program header table: what both the launch's
 * check for a program interpreter (elf-interp.ts) and a module's build ID (module-identity.ts) need, in one
 * reader. 32- and 64-bit files of either byte order.
 */

/** `length` bytes of the file at `offset`, or undefined when the file has fewer there. */
export type ReadAt = (offset: number, length: number) => Buffer | undefined;

export interface ProgramHeader {
  /** p_type: PT_INTERP 3, PT_NOTE 4, ... */
  readonly type: number;
  /** p_offset and p_filesz: where the segment's bytes are in the file. */
  readonly offset: number;
  readonly fileSize: number;
}

export interface ElfHeaders {
  /** Little-endian (EI_DATA 1), for what the caller reads in the segments. */
  readonly little: boolean;
  readonly headers: readonly ProgramHeader[];
}

/** e_phnum's escape value: the real count is elsewhere (section 0), which this reader does not follow. */
const PN_XNUM = 0xffff;

/** A reader over bytes already in memory (the first bytes of a file, say). */
export function readAtBytes(bytes: Buffer): ReadAt {
  return (offset, length) =>
    offset + length <= bytes.length ? bytes.subarray(offset, offset + length) : undefined;
}

/** The file's program headers (none for an ELF file without: an object file), or undefined when it is no ELF file
 * this can read (not ELF, cut short, an escaped header count). */
export function programHeaders(read: ReadAt): ElfHeaders | undefined {
  const head = read(0, 52);
  if (head === undefined || head.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const wide = head[4] === 2;
  if (!wide && head[4] !== 1) return undefined;
  const little = head[5] === 1;
  if (!little && head[5] !== 2) return undefined;
  const full = wide ? read(0, 64) : head;
  if (full === undefined) return undefined;
  const u16 = (b: Buffer, at: number): number => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number): number => (little ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const word = (b: Buffer, at: number): number =>
    wide ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at);
  const tableAt = word(full, wide ? 0x20 : 0x1c);
  const entrySize = u16(full, wide ? 0x36 : 0x2a);
  const count = u16(full, wide ? 0x38 : 0x2c);
  if (count === 0) return { little, headers: [] };
  // p_offset and p_filesz: 8 and 32 in a 64-bit entry (56 bytes), 4 and 16 in a 32-bit one (32 bytes).
  if (count === PN_XNUM || entrySize < (wide ? 40 : 20)) return undefined;
  const table = read(tableAt, entrySize * count);
  if (table === undefined) return undefined;
  const headers: ProgramHeader[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * entrySize;
    headers.push({
      type: u32(table, at),
      offset: word(table, at + (wide ? 8 : 4)),
      fileSize: word(table, at + (wide ? 32 : 16)),
    });
  }
  return { little, headers };
}
