/**
 * The MPI function list and record layout, read from native-shim/spec — the single source of truth the
 * C wrappers are generated from. Nothing here restates the spec; it only indexes it for the decoder.
 */
import api from '../../../native-shim/spec/mpi-api.json';
import records from '../../../native-shim/spec/records.json';
import type { FunctionSpec, ParamSpec } from '../engine/model/types';
import { objectArray } from '../engine/model/elements';

/**
 * Roles whose values travel in the ARRAY section of an ENTER call instead of a word of their own
 * (native-shim/spec/README.md, the "(array)" rows of the role table).
 */
export const ARRAY_ROLES: ReadonlySet<string> = new Set([
  'requests',
  'counts',
  'displs',
  'scounts',
  'sdispls',
  'rcounts',
  'rdispls',
  'ranks',
  'types',
  'stypes',
  'rtypes',
  'topo_dims',
  'topo_periods',
  'topo_sources',
  'topo_dests',
  'topo_index',
  'topo_edges',
]);

/** How the words of a function's ENTER and EXIT records map back to its parameters. */
export interface FunctionLayout {
  readonly spec: FunctionSpec;
  /** Parameter names that take one ENTER word each, in word order. */
  readonly scalars: readonly string[];
  /** Array parameter names, in the order their sections follow the scalar words. */
  readonly arrays: readonly string[];
  /** Parameter names whose new handle is an EXIT word, in word order (roles ending in _out). */
  readonly outHandles: readonly string[];
  /** Name of the 'index' output parameter, if any. */
  readonly index?: string;
  /** Names of the 'outcount' and 'indices' outputs, if any. */
  readonly outcount?: string;
  readonly indices?: string;
  /**
   * Where each role's value is among the ENTER words, for reading arguments by role without building a map
   * per call: a scalar's word index (>= 0), or -(k + 1) for the k-th array section. The first parameter with
   * the role wins (Sendrecv's 'tag' is not asked for; its roles are 'stag' and 'rtag').
   */
  readonly roleSlot: ReadonlyMap<string, number>;
  /** The same by parameter name. */
  readonly nameSlot: ReadonlyMap<string, number>;
  /** EXIT word index of each output by parameter name (out handles, index, outcount; indices follow outcount). */
  readonly outWord: ReadonlyMap<string, number>;
  /**
   * The packed form of the ENTER (records.json packedEnter, format 2), when the function has one: per scalar
   * word, PACK_ZERO (left out, always 0), PACK_WIDE (a word of its own) or PACK_NARROW (half a word).
   */
  readonly packed?: Uint8Array;
}

export const PACK_ZERO = 0;
export const PACK_WIDE = 1;
export const PACK_NARROW = 2;

/** Record layout constants, checked against records.json when this module loads. */
export const RECORD_SIZE: number = records.recordSize;
export const FORMAT_VERSION: number = records.version;
export const HEAD_WORDS = 5;
export const EXT_WORDS = 7;
export const HEAD_WORD_OFFSET = 24;
export const EXT_WORD_OFFSET = 8;

type RawParam = readonly string[];
interface RawFunction {
  readonly name: string;
  readonly class: string;
  readonly mode?: string;
  readonly coll?: string;
  readonly rma?: string;
  readonly persistent?: boolean;
  readonly params: readonly RawParam[];
}

function toParam(raw: readonly string[]): ParamSpec {
  const [ctype, name, role, lengthFrom] = raw;
  if (ctype === undefined || name === undefined || role === undefined) {
    throw new Error(`mpi-api.json: malformed parameter ${JSON.stringify(raw)}`);
  }
  return lengthFrom === undefined ? { ctype, name, role } : { ctype, name, role, lengthFrom };
}

/**
 * Which scalar words of a function's ENTER are wide, narrow or left out in its packed form, or undefined when
 * it has none: the rule of records.json packedEnter, which the generator (native-shim/gen/generate.mjs,
 * packedPlan) applies to the same spec.
 */
function packedOf(params: readonly ParamSpec[]): Uint8Array | undefined {
  const rule = records.packedEnter;
  if (params.some((p) => ARRAY_ROLES.has(p.role)) || params.length <= HEAD_WORDS) return undefined;
  const kinds = new Uint8Array(params.length);
  let words = 0;
  let narrow = 0;
  params.forEach((p, i) => {
    if (rule.zeroRoles.includes(p.role)) kinds[i] = PACK_ZERO;
    else if (rule.narrowRoles.includes(p.role) && p.ctype.trim() === rule.narrowCType) {
      kinds[i] = PACK_NARROW;
      narrow++;
    } else {
      kinds[i] = PACK_WIDE;
      words++;
    }
  });
  return words + Math.ceil(narrow / 2) <= HEAD_WORDS ? kinds : undefined;
}

/**
 * `list`, or when it is empty an empty array of V8's object kind, as the non-empty lists are: an empty `map()` or
 * `filter()` result is a small-integer array, another class for the code that reads the lists of every function
 * (`scalars.length` per ENTER row in the decoder), which was compiled for the object kind and thrown away at the first
 * call of a function without parameters (a job's MPI_Finalize: `--trace-deopt`, "wrong map").
 */
function objectKind<T>(list: T[]): T[] {
  return list.length > 0 ? list : objectArray<T>();
}

function layoutOf(raw: RawFunction, id: number): FunctionLayout {
  const params = objectKind(raw.params.map((p) => toParam(p)));
  // Every field present, in one order (undefined when the function has none): one hidden class for all 521
  // specs. Spread in only where set, they had five shapes, and every `fn.cls`, `fn.id` or `fn.name` read of
  // the engine's per-call handlers, which see them all in a real run, was a megamorphic property load.
  const spec: FunctionSpec = {
    id,
    name: raw.name,
    cls: raw.class,
    mode: raw.mode,
    coll: raw.coll,
    rma: raw.rma,
    persistent: raw.persistent === true ? true : undefined,
    params,
  };
  const byRole = (role: string): string | undefined => params.find((p) => p.role === role)?.name;
  const index = byRole('index');
  const outcount = byRole('outcount');
  const indices = byRole('indices');
  const scalars = params.filter((p) => !ARRAY_ROLES.has(p.role));
  const arrays = params.filter((p) => ARRAY_ROLES.has(p.role));
  const outHandles = params.filter((p) => p.role.endsWith('_out')).map((p) => p.name);
  const roleSlot = new Map<string, number>();
  const nameSlot = new Map<string, number>();
  scalars.forEach((p, i) => nameSlot.set(p.name, i));
  arrays.forEach((p, k) => nameSlot.set(p.name, -(k + 1)));
  // The first parameter with a role, in prototype order, is the role's (as the engine always read it).
  for (const p of params) if (!roleSlot.has(p.role)) roleSlot.set(p.role, nameSlot.get(p.name) as number);
  const outWord = new Map<string, number>();
  let at = 1;
  for (const name of outHandles) outWord.set(name, at++);
  if (index !== undefined) outWord.set(index, at++);
  if (outcount !== undefined) outWord.set(outcount, at);
  // Every field present, undefined when not (as FunctionSpec above): one hidden class for every layout, whose
  // fields the decoder and the engine read per row.
  return {
    spec,
    packed: packedOf(params),
    scalars: objectKind(scalars.map((p) => p.name)),
    arrays: objectKind(arrays.map((p) => p.name)),
    outHandles: objectKind(outHandles),
    roleSlot,
    nameSlot,
    outWord,
    index,
    outcount,
    indices,
  };
}

const rawFunctions: readonly RawFunction[] = api.functions;

/** Function layouts; the function id in a record is the index here. */
export const layouts: readonly FunctionLayout[] = rawFunctions.map((f, i) => layoutOf(f, i));
export const functions: readonly FunctionSpec[] = layouts.map((l) => l.spec);

export const basicTypes: readonly string[] = api.basicTypes;
export const ops: readonly string[] = api.ops;
export const checks: readonly { readonly id: string; readonly message: string }[] = api.checks;

/** Looks a function up by name, for tests and tools (not the hot path). */
export function functionNamed(name: string): FunctionSpec {
  const f = functions.find((s) => s.name === name);
  if (f === undefined) throw new Error(`${name} is not in native-shim/spec/mpi-api.json`);
  return f;
}

function kindId(name: keyof typeof records.kinds): number {
  return records.kinds[name].id;
}

export const KIND = {
  ENTER: kindId('ENTER'),
  EXIT: kindId('EXIT'),
  EXT: kindId('EXT'),
  COMPLETE: kindId('COMPLETE'),
  COMM: kindId('COMM'),
  DTYPE: kindId('DTYPE'),
  SITE: kindId('SITE'),
  END: kindId('END'),
  FINDING: kindId('FINDING'),
  LOST: kindId('LOST'),
  OP: kindId('OP'),
  CLOCK: kindId('CLOCK'),
  BSEND: kindId('BSEND'),
  COMPLETE_EXIT: kindId('COMPLETE_EXIT'),
} as const;

/** Flag bits of format 2's packed forms (records.json). */
export const ENTER_PACKED = 4;
export const COMPLETE_PACKED = 8;
export const COMPLETE_EXIT_CANCELLED = 8;

/**
 * The decoder reads fields at fixed offsets for speed; this makes sure those offsets are the ones the
 * spec says, so a change to records.json fails loudly at startup instead of decoding garbage.
 */
function checkLayout(): void {
  const field = (list: readonly { name: string; offset: number; count?: number }[], name: string) =>
    list.find((f) => f.name === name);
  const hw = field(records.head, 'w');
  const ew = field(records.ext, 'w');
  const ok =
    RECORD_SIZE === 64 &&
    field(records.head, 'kind')?.offset === 0 &&
    field(records.head, 'func')?.offset === 2 &&
    field(records.head, 'seq')?.offset === 4 &&
    field(records.head, 'time')?.offset === 8 &&
    field(records.head, 'site')?.offset === 16 &&
    hw?.offset === HEAD_WORD_OFFSET &&
    hw.count === HEAD_WORDS &&
    ew?.offset === EXT_WORD_OFFSET &&
    ew.count === EXT_WORDS;
  if (!ok)
    throw new Error('native-shim/spec/records.json changed its layout; update server/src/protocol/spec.ts');
}
checkLayout();
