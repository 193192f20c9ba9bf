import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { programInterpreter } from './elf-interp';

const LOADER = '/lib64/ld-linux-x86-64.so.2';

/**
 * A 64-bit little-endian ELF header, `types` program headers (56 bytes each) and, for a PT_INTERP (3) among them,
 * the loader's name (with its NUL) after the table, as a file.
 */
function elf64(dir: string, name: string, types: readonly number[]): string {
  const table = 64 + 56 * types.length;
  const head = Buffer.alloc(table + LOADER.length + 1);
  head.writeUInt32BE(0x7f454c46, 0);
  head[4] = 2;
  head[5] = 1;
  head.writeBigUInt64LE(64n, 0x20);
  head.writeUInt16LE(56, 0x36);
  head.writeUInt16LE(types.length, 0x38);
  types.forEach((t, i) => {
    head.writeUInt32LE(t, 64 + 56 * i);
    if (t !== 3) return;
    head.writeBigUInt64LE(BigInt(table), 64 + 56 * i + 8);
    head.writeBigUInt64LE(BigInt(LOADER.length + 1), 64 + 56 * i + 32);
  });
  head.write(LOADER, table, 'latin1');
  const path = join(dir, name);
  writeFileSync(path, head);
  return path;
}

test('a program interpreter is found in the program headers, as readelf -lW reports it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-elf-'));
  try {
    // PT_PHDR, PT_INTERP, PT_LOAD: a dynamic executable; PT_LOAD alone: a static one; none: an object file.
    assert.equal(programInterpreter(elf64(dir, 'dynamic', [6, 3, 1])), LOADER);
    assert.equal(programInterpreter(elf64(dir, 'static', [1, 1, 4])), null);
    assert.equal(programInterpreter(elf64(dir, 'object', [])), null);
    // Not ELF, cut short, missing: no answer, as when readelf fails.
    writeFileSync(join(dir, 'script'), '#!/bin/sh\necho hi\n');
    assert.equal(programInterpreter(join(dir, 'script')), undefined);
    writeFileSync(join(dir, 'cut'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]));
    assert.equal(programInterpreter(join(dir, 'cut')), undefined);
    assert.equal(programInterpreter(join(dir, 'missing')), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the answer for this machine's own executables is readelf's", () => {
  for (const path of [process.execPath, '/bin/sh']) {
    let readelf: string;
    try {
      readelf = execFileSync('readelf', ['-lW', path], { encoding: 'utf8' });
    } catch {
      continue; // no binutils here: nothing to compare with
    }
    const named = /Requesting program interpreter: ([^\]]+)\]/.exec(readelf)?.[1] ?? null;
    assert.equal(programInterpreter(path), named, path);
  }
});
