/**
 * The local variables of a function's stack frame, from the DWARF of the module (binutils' `readelf
 * --debug-dump=info`, read once per module when a stack buffer is first judged in it), so that a call whose
 * buffer lies in its caller's frame can be held to the size of the variable it points into
 * (engine/lifecycle/stack-buffer.ts makes the candidates). Conservative by construction: a function is judged
 * only when its frame base is DW_OP_call_frame_cfa (GCC's) and every variable of its frame has one constant
 * DW_OP_fbreg location and a size known from its type; a buffer is judged only against the variables that hold
 * its first byte, and the largest of them wins (GCC may give disjoint scopes one slot). Anything else — a
 * location list, an inlined call, a variable-length array, an unknown type, a module without debug info — judges
 * nothing.
 */
import { execFileSync } from 'node:child_process';
import type { StackBufferCandidate } from '../engine/model/types';

export interface FrameLocal {
  readonly name: string;
  /** The variable's address minus the frame's CFA. */
  readonly offset: number;
  readonly size: number;
}

export interface FrameFunction {
  readonly name: string;
  readonly low: number;
  readonly high: number;
  /** Undefined when the frame cannot be judged (see the top of this file). */
  readonly locals: readonly FrameLocal[] | undefined;
}

/** A buffer that reaches past the variable it points into. */
export interface StackOverflow {
  readonly variable: string;
  readonly function: string;
  readonly size: number;
  /** Where the buffer starts in the variable. */
  readonly at: number;
}

interface Die {
  readonly tag: string;
  readonly depth: number;
  readonly attrs: Map<string, string>;
  readonly children: number[];
  /** The compile unit's default lower bound of array subscripts (0 in C, 1 in Fortran). */
  readonly lowerBound: number;
}

const DIE_LINE = /^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)(?: \((\w+)\))?/;
const ATTR_LINE = /^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)$/;
/** DW_LANG_Fortran77, 90, 95, 2003, 2008, 2018. */
const FORTRAN = new Set([0x7, 0x8, 0xe, 0x22, 0x23, 0x24, 0x25]);
const SIZED = new Set([
  'DW_TAG_base_type',
  'DW_TAG_structure_type',
  'DW_TAG_union_type',
  'DW_TAG_class_type',
  'DW_TAG_enumeration_type',
  'DW_TAG_pointer_type',
  'DW_TAG_reference_type',
  'DW_TAG_rvalue_reference_type',
]);
const QUALIFIERS = new Set([
  'DW_TAG_typedef',
  'DW_TAG_const_type',
  'DW_TAG_volatile_type',
  'DW_TAG_restrict_type',
  'DW_TAG_atomic_type',
]);

/** A constant attribute value: "(data1) 8", "(sdata) -1", "(implicit_const) 8"; undefined for anything else. */
function constant(v: string | undefined): number | undefined {
  const m = v?.match(/^\((?:data[1248]|sdata|udata|implicit_const)\)\s+(-?(?:0x[0-9a-f]+|\d+))\s*$/);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** A name attribute's text: "(strp) (offset: 0x13a): main", "(string) main", "(line_strp) (offset: 0x0): p.c". */
function nameOf(v: string | undefined): string {
  const m = v?.match(/^\([^)]*\)\s*(?:\(offset: 0x[0-9a-f]+\):\s*)?(.*)$/);
  return m?.[1]?.trim() || '?';
}

function ref(v: string | undefined): number | undefined {
  const m = v?.match(/^\(ref[^)]*\)\s+<0x([0-9a-f]+)>/);
  return m?.[1] === undefined ? undefined : parseInt(m[1], 16);
}

/** Parse `readelf --debug-dump=info -W` output into the functions whose frames can be judged. */
export function parseFrames(text: string): FrameFunction[] {
  const dies = new Map<number, Die>();
  const order: number[] = [];
  const path: number[] = [];
  let lowerBound = 0;
  let current: Die | undefined;
  for (const line of text.split('\n')) {
    const d = DIE_LINE.exec(line);
    if (d !== null) {
      const depth = Number(d[1]);
      const offset = parseInt(d[2] ?? '0', 16);
      path.length = depth;
      if (d[3] === '0' || d[4] === undefined) {
        current = undefined;
        continue;
      }
      current = { tag: d[4], depth, attrs: new Map(), children: [], lowerBound };
      const parent = depth > 0 ? path[depth - 1] : undefined;
      if (parent !== undefined) dies.get(parent)?.children.push(offset);
      path[depth] = offset;
      dies.set(offset, current);
      order.push(offset);
      continue;
    }
    const a = current !== undefined ? ATTR_LINE.exec(line) : null;
    if (a === null || current === undefined) continue;
    current.attrs.set(a[1] ?? '', (a[2] ?? '').trim());
    if (current.tag === 'DW_TAG_compile_unit' && a[1] === 'DW_AT_language') {
      const lang = Number(/\)\s+(\d+)/.exec(a[2] ?? '')?.[1] ?? -1);
      lowerBound = FORTRAN.has(lang) ? 1 : 0;
      (current as { lowerBound: number }).lowerBound = lowerBound;
    }
  }
  const sizes = new Map<number, number | undefined>();
  const sizeOf = (offset: number | undefined, depth = 0): number | undefined => {
    if (offset === undefined || depth > 64) return undefined;
    if (sizes.has(offset)) return sizes.get(offset);
    const die = dies.get(offset);
    let size: number | undefined;
    if (die === undefined) size = undefined;
    else if (SIZED.has(die.tag)) size = constant(die.attrs.get('DW_AT_byte_size'));
    else if (QUALIFIERS.has(die.tag)) size = sizeOf(ref(die.attrs.get('DW_AT_type')), depth + 1);
    else if (die.tag === 'DW_TAG_array_type')
      size = arraySize(die, sizeOf(ref(die.attrs.get('DW_AT_type')), depth + 1));
    sizes.set(offset, size);
    return size;
  };
  const arraySize = (die: Die, element: number | undefined): number | undefined => {
    const whole = constant(die.attrs.get('DW_AT_byte_size'));
    if (whole !== undefined) return whole;
    if (element === undefined) return undefined;
    let n = element;
    let dims = 0;
    for (const c of die.children) {
      const sub = dies.get(c);
      if (sub?.tag !== 'DW_TAG_subrange_type') continue;
      dims++;
      const count = constant(sub.attrs.get('DW_AT_count'));
      const upper = constant(sub.attrs.get('DW_AT_upper_bound'));
      const lower = sub.attrs.has('DW_AT_lower_bound')
        ? constant(sub.attrs.get('DW_AT_lower_bound'))
        : die.lowerBound;
      const extent = count ?? (upper !== undefined && lower !== undefined ? upper - lower + 1 : undefined);
      if (extent === undefined || extent < 0) return undefined;
      n *= extent;
    }
    return dims > 0 ? n : undefined;
  };

  const out: FrameFunction[] = [];
  for (const offset of order) {
    const die = dies.get(offset);
    if (die?.tag !== 'DW_TAG_subprogram') continue;
    const lowText = die.attrs.get('DW_AT_low_pc');
    const highText = die.attrs.get('DW_AT_high_pc');
    const low = lowText?.startsWith('(addr)') ? Number(lowText.slice(6).trim()) : undefined;
    if (low === undefined || highText === undefined || Number.isNaN(low)) continue;
    const high = highText.startsWith('(addr)')
      ? Number(highText.slice(6).trim())
      : low + (constant(highText) ?? 0);
    const name = nameOf(die.attrs.get('DW_AT_name'));
    const cfaBase = /\(DW_OP_call_frame_cfa\)\s*$/.test(die.attrs.get('DW_AT_frame_base') ?? '');
    out.push({ name, low, high, locals: cfaBase ? localsOf(die, dies, sizeOf) : undefined });
  }
  return out;
}

/** The frame's variables, or undefined when one of them cannot be placed or sized. */
function localsOf(
  fn: Die,
  dies: ReadonlyMap<number, Die>,
  sizeOf: (offset: number | undefined) => number | undefined,
): FrameLocal[] | undefined {
  const locals: FrameLocal[] = [];
  const stack = [...fn.children];
  while (stack.length > 0) {
    const die = dies.get(stack.pop() ?? -1);
    if (die === undefined) continue;
    if (die.tag === 'DW_TAG_inlined_subroutine' || die.tag === 'DW_TAG_subprogram') return undefined;
    if (die.tag === 'DW_TAG_lexical_block') stack.push(...die.children);
    if (die.tag !== 'DW_TAG_variable' && die.tag !== 'DW_TAG_formal_parameter') continue;
    const loc = die.attrs.get('DW_AT_location');
    if (loc === undefined) continue;
    // A static local lives at a fixed address, not in the frame.
    if (/^\(exprloc\).*\(DW_OP_addr: [0-9a-f]+\)\s*$/.test(loc)) continue;
    const m = /^\(exprloc\).*\(DW_OP_fbreg: (-?\d+)\)\s*$/.exec(loc);
    const size = sizeOf(ref(die.attrs.get('DW_AT_type')));
    if (m?.[1] === undefined || size === undefined || size <= 0) return undefined;
    const name = nameOf(die.attrs.get('DW_AT_name'));
    locals.push({ name, offset: Number(m[1]), size });
  }
  return locals;
}

/**
 * The variable a stack buffer points into, when the call reaches past its end (or before its start); undefined
 * when it fits, or when the frame cannot be judged.
 */
export function overflowIn(fn: FrameFunction, c: StackBufferCandidate): StackOverflow | undefined {
  if (fn.locals === undefined) return undefined;
  let best: FrameLocal | undefined;
  for (const l of fn.locals) {
    if (c.offset < l.offset || c.offset >= l.offset + l.size) continue;
    if (best === undefined || l.offset + l.size > best.offset + best.size) best = l;
  }
  if (best === undefined) return undefined;
  const inside = c.offset + c.low >= best.offset && c.offset + c.reach <= best.offset + best.size;
  if (inside) return undefined;
  return { variable: best.name, function: fn.name, size: best.size, at: c.offset - best.offset };
}

/** Modules' frames, read when first needed and kept for the session. */
export class StackObjects {
  private readonly modules = new Map<string, FrameFunction[]>();

  constructor(private readonly read: (module: string) => string = readDebugInfo) {}

  /** The function whose code holds `pc` (a link-time address in the module). */
  functionAt(module: string, pc: number): FrameFunction | undefined {
    let fns = this.modules.get(module);
    if (fns === undefined) {
      fns = parseFrames(this.read(module));
      this.modules.set(module, fns);
    }
    return fns.find((f) => f.low <= pc && pc < f.high);
  }
}

/** The largest .debug_info section read (bytes): a program of some thousand lines of C has well under 1 MiB. */
const MAX_DEBUG_INFO = 4 << 20;

/**
 * `readelf --debug-dump=info` of a module ('' when it has none, or more than MAX_DEBUG_INFO of it, or when readelf fails or takes too long: then
 * nothing in the module is judged). Synchronous: it runs once per module, and only for a module in which a call
 * was given a stack buffer, so that a candidate is judged before the next frame's findings are taken.
 */
function readDebugInfo(module: string): string {
  try {
    // A large program's dump would stall the session while it is read (its text is ~10× the section): such a
    // module is not judged.
    const sections = execFileSync('readelf', ['-S', '-W', module], {
      encoding: 'utf8',
      maxBuffer: 4 << 20,
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const info = /\.debug_info\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(sections);
    if (info?.[1] === undefined || parseInt(info[1], 16) > MAX_DEBUG_INFO) return '';
    return execFileSync('readelf', ['--debug-dump=info', '-W', module], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}
