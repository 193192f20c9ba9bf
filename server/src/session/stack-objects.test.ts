import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StackObjects, overflowIn, parseFrames, type FrameFunction } from './stack-objects';

// readelf --debug-dump=info -W output of GCC (DWARF 5), cut to what the parser reads.
const MAIN = `
  Compilation Unit @ offset 0:
   Version:       5
 <0><c>: Abbrev Number: 11 (DW_TAG_compile_unit)
    <11>   DW_AT_language    : (data1) 29	(C11)
 <1><48>: Abbrev Number: 5 (DW_TAG_base_type)
    <49>   DW_AT_byte_size   : (data1) 4
    <4b>   DW_AT_name        : (string) int
 <1><147>: Abbrev Number: 12 (DW_TAG_array_type)
    <148>   DW_AT_type        : (ref4) <0x160>, char
 <2><150>: Abbrev Number: 13 (DW_TAG_subrange_type)
    <151>   DW_AT_type        : (ref4) <0x48>, int
    <155>   DW_AT_upper_bound : (data1) 0
 <2><156>: Abbrev Number: 0
 <1><160>: Abbrev Number: 2 (DW_TAG_base_type)
    <161>   DW_AT_byte_size   : (data1) 1
    <163>   DW_AT_name        : (strp) (offset: 0x1f): char
 <1><170>: Abbrev Number: 14 (DW_TAG_typedef)
    <171>   DW_AT_name        : (strp) (offset: 0x20): row
    <175>   DW_AT_type        : (ref4) <0x180>
 <1><180>: Abbrev Number: 12 (DW_TAG_array_type)
    <181>   DW_AT_type        : (ref4) <0x48>, int
 <2><185>: Abbrev Number: 13 (DW_TAG_subrange_type)
    <186>   DW_AT_type        : (ref4) <0x48>, int
    <18a>   DW_AT_upper_bound : (data1) 9
 <2><18b>: Abbrev Number: 13 (DW_TAG_subrange_type)
    <18c>   DW_AT_type        : (ref4) <0x48>, int
    <18d>   DW_AT_count       : (data1) 2
 <2><18e>: Abbrev Number: 0
 <1><22e>: Abbrev Number: 22 (DW_TAG_subprogram)
    <22f>   DW_AT_name        : (strp) (offset: 0x13a): main
    <23a>   DW_AT_low_pc      : (addr) 0x1189
    <242>   DW_AT_high_pc     : (data8) 0xdd
    <24a>   DW_AT_frame_base  : (exprloc) 1 byte block: 9c 	(DW_OP_call_frame_cfa)
 <2><26a>: Abbrev Number: 8 (DW_TAG_variable)
    <26b>   DW_AT_name        : (strp) (offset: 0x12a): rank
    <271>   DW_AT_type        : (ref4) <0x48>, int
    <275>   DW_AT_location    : (exprloc) 2 byte block: 91 6c 	(DW_OP_fbreg: -20)
 <2><278>: Abbrev Number: 8 (DW_TAG_variable)
    <279>   DW_AT_name        : (strp) (offset: 0x13f): recvbuffer
    <27f>   DW_AT_type        : (ref4) <0x147>, char
    <283>   DW_AT_location    : (exprloc) 2 byte block: 91 6b 	(DW_OP_fbreg: -21)
 <2><284>: Abbrev Number: 8 (DW_TAG_variable)
    <285>   DW_AT_name        : (string) counter
    <286>   DW_AT_type        : (ref4) <0x48>, int
    <287>   DW_AT_location    : (exprloc) 9 byte block: 3 10 40 0 0 0 0 0 0 	(DW_OP_addr: 4010)
 <2><286>: Abbrev Number: 23 (DW_TAG_lexical_block)
    <287>   DW_AT_low_pc      : (addr) 0x11c8
    <28f>   DW_AT_high_pc     : (data8) 0x37
 <3><297>: Abbrev Number: 8 (DW_TAG_variable)
    <298>   DW_AT_name        : (strp) (offset: 0x169): grid
    <29e>   DW_AT_type        : (ref4) <0x170>, row
    <2a2>   DW_AT_location    : (exprloc) 3 byte block: 91 b0 7e 	(DW_OP_fbreg: -208)
 <3><2a5>: Abbrev Number: 0
 <2><2a6>: Abbrev Number: 0
 <1><300>: Abbrev Number: 22 (DW_TAG_subprogram)
    <301>   DW_AT_name        : (string) optimized
    <302>   DW_AT_low_pc      : (addr) 0x1300
    <303>   DW_AT_high_pc     : (data8) 0x40
    <304>   DW_AT_frame_base  : (exprloc) 1 byte block: 9c 	(DW_OP_call_frame_cfa)
 <2><310>: Abbrev Number: 8 (DW_TAG_variable)
    <311>   DW_AT_name        : (string) x
    <312>   DW_AT_type        : (ref4) <0x48>, int
    <313>   DW_AT_location    : (sec_offset) 0x10 (location list)
 <2><314>: Abbrev Number: 0
 <1><400>: Abbrev Number: 22 (DW_TAG_subprogram)
    <401>   DW_AT_name        : (string) clang_like
    <402>   DW_AT_low_pc      : (addr) 0x1400
    <403>   DW_AT_high_pc     : (data4) 0x40
    <404>   DW_AT_frame_base  : (exprloc) 1 byte block: 56 	(DW_OP_reg6 (rbp))
 <2><410>: Abbrev Number: 8 (DW_TAG_variable)
    <411>   DW_AT_name        : (string) y
    <412>   DW_AT_type        : (ref4) <0x48>, int
    <413>   DW_AT_location    : (exprloc) 2 byte block: 91 7c 	(DW_OP_fbreg: -4)
 <2><414>: Abbrev Number: 0
 <1><500>: Abbrev Number: 22 (DW_TAG_subprogram)
    <501>   DW_AT_name        : (string) vla
    <502>   DW_AT_low_pc      : (addr) 0x1500
    <503>   DW_AT_high_pc     : (data8) 0x40
    <504>   DW_AT_frame_base  : (exprloc) 1 byte block: 9c 	(DW_OP_call_frame_cfa)
 <2><510>: Abbrev Number: 8 (DW_TAG_variable)
    <511>   DW_AT_name        : (string) v
    <512>   DW_AT_type        : (ref4) <0x520>
    <513>   DW_AT_location    : (exprloc) 2 byte block: 91 50 	(DW_OP_fbreg: -48)
 <2><514>: Abbrev Number: 0
 <1><520>: Abbrev Number: 12 (DW_TAG_array_type)
    <521>   DW_AT_type        : (ref4) <0x48>, int
 <2><522>: Abbrev Number: 13 (DW_TAG_subrange_type)
    <523>   DW_AT_upper_bound : (exprloc) 3 byte block: 91 a8 7f 	(DW_OP_fbreg: -88; DW_OP_deref)
 <2><524>: Abbrev Number: 0
 <1><600>: Abbrev Number: 0
`;

function fn(name: string): FrameFunction {
  const f = parseFrames(MAIN).find((x) => x.name === name);
  assert.ok(f, `${name} parsed`);
  return f;
}

const candidate = (offset: number, reach: number, low = 0) => ({ rank: 0, offset, reach, low, param: 'buf' });

test('stack objects: a frame based on the CFA gives each variable its fbreg offset and its size', () => {
  const main = fn('main');
  assert.equal(main.low, 0x1189);
  assert.equal(main.high, 0x1189 + 0xdd);
  // The static local (DW_OP_addr) is not in the frame; the block's variable is; a typedef of int[10][2] is 80 bytes.
  assert.deepEqual(main.locals, [
    { name: 'grid', offset: -208, size: 80 },
    { name: 'recvbuffer', offset: -21, size: 1 },
    { name: 'rank', offset: -20, size: 4 },
  ]);
});

test('stack objects: a buffer reaching past its variable is found, one that fits is not', () => {
  const main = fn('main');
  // 1 double into char recvbuffer[1].
  assert.deepEqual(overflowIn(main, candidate(-21, 8)), {
    variable: 'recvbuffer',
    function: 'main',
    size: 1,
    at: 0,
  });
  assert.equal(overflowIn(main, candidate(-21, 1)), undefined);
  // A pointer into the middle of grid: 40 bytes from byte 40 fit exactly, 44 do not.
  assert.equal(overflowIn(main, candidate(-168, 40)), undefined);
  assert.equal(overflowIn(main, candidate(-168, 44))?.at, 40);
  // Nothing of the frame under the buffer (padding, a callee's or an ancestor's frame): not judged.
  assert.equal(overflowIn(main, candidate(-100, 1000)), undefined);
  assert.equal(overflowIn(main, candidate(64, 1000)), undefined);
});

test('stack objects: frames that cannot be read exactly judge nothing', () => {
  // A location list, a frame base other than the CFA, a variable-length array.
  for (const name of ['optimized', 'clang_like', 'vla']) {
    assert.equal(fn(name).locals, undefined, name);
    assert.equal(overflowIn(fn(name), candidate(-4, 1 << 20)), undefined, name);
  }
});

test('stack objects: a real GCC -g -O0 build is read with readelf', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mpiscope-stack-objects-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const src = join(dir, 'p.c');
  writeFileSync(
    src,
    'struct s { int a; double b[3]; };\nint f(int *p) { int ten[10]; struct s v; char one[1]; return p[0] + ten[1] + (int)v.b[0] + one[0]; }\nint main(void) { int x = 0; return f(&x); }\n',
  );
  try {
    execFileSync('gcc', ['-g', '-O0', '-o', join(dir, 'p'), src], { stdio: 'ignore' });
  } catch {
    t.skip('no gcc');
    return;
  }
  const objects = new StackObjects();
  const main = parseFrames(
    execFileSync('readelf', ['--debug-dump=info', '-W', join(dir, 'p')], { encoding: 'utf8' }),
  );
  const f = main.find((x) => x.name === 'f');
  assert.ok(f?.locals, 'f is judged');
  const sizes = Object.fromEntries(f.locals.map((l) => [l.name, l.size]));
  assert.deepEqual(sizes, { p: 8, ten: 40, v: 32, one: 1 });
  assert.equal(objects.functionAt(join(dir, 'p'), f.low + 1)?.name, 'f');
});
