import { closeSync, openSync, readSync } from 'node:fs';
import { programHeaders } from './elf-headers';

/** Program header type of the program interpreter (the dynamic loader): ELF's PT_INTERP. */
const PT_INTERP = 3;

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
    const read = (offset: number, length: number): Buffer | undefined => {
      const bytes = Buffer.alloc(length);
      return readSync(fd, bytes, 0, length, offset) < length ? undefined : bytes;
    };
    const elf = programHeaders(read);
    if (elf === undefined) return undefined;
    const interp = elf.headers.find((h) => h.type === PT_INTERP);
    if (interp === undefined) return null;
    if (interp.fileSize < 2 || interp.fileSize > 4096) return undefined;
    const name = read(interp.offset, interp.fileSize);
    if (name === undefined) return undefined;
    const end = name.indexOf(0);
    return name.subarray(0, end < 0 ? name.length : end).toString('latin1');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
