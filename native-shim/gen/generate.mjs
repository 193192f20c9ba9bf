// Generates the C side of the shim from the spec: node native-shim/gen/generate.mjs OUTDIR
//
// Writes into OUTDIR:
//   msc_records.h   record layout (with _Static_asserts), kind/function/basic type/op/check ids; needs no mpi.h
//   msc_args.h      the msc_args struct: one typed field per parameter role, handed to the class handlers
//   msc_tables.c    tables that need mpi.h: predefined datatype and op handles, function names and classes
//   msc_wrappers.c  one wrapper per function. A wrapper only copies arguments into record words per role
//                   and calls the hand-written handlers of its class (native-shim/src/msc_handlers.c).
//   msc_fortran_wrappers.c  the Fortran wrappers (gen/fortran.mjs): the same recording body per function,
//                   for every symbol of mpif.h, use mpi and use mpi_f08, forwarding to the library's Fortran.
//
// Plain Node ESM with no dependencies, so the session can run it wherever Node runs. A file is rewritten only
// when its content changes, so that make-like rebuilds stay fast.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { genFortranWrappers } from './fortran.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const specDir = join(here, '..', 'spec');
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: node generate.mjs OUTDIR');
  process.exit(2);
}
const records = JSON.parse(readFileSync(join(specDir, 'records.json'), 'utf8'));
const api = JSON.parse(readFileSync(join(specDir, 'mpi-api.json'), 'utf8'));

// How each parameter role becomes an ENTER word; the meaning of the roles is in spec/README.md.
// Classes whose calls can find nothing (msc_state.c's is_poll holds their ENTER and may forget the call).
const POLL_CLASSES = new Set([
  'test',
  'testall',
  'testany',
  'testsome',
  'iprobe',
  'improbe',
  'request_get_status',
]);
// Classes whose wildcard receives --replay-race counts and may force (src/msc_replay.c; the engine counts the same).
const REPLAY_CLASSES = new Set(api.replayClasses ?? fail('mpi-api.json: replayClasses missing'));
// Classes whose handlers (msc_handlers.c, the checks they call in msc_checks.c and msc_checksum.c) read only the
// msc_args fields of the function's own roles (the checks test the role mask before each field) and req_copy:
// their wrappers store those fields and leave the rest of the struct unset instead of zeroing all of it (the
// initializer was a `rep stosq` of 70 words, ~81 instructions per call under callgrind, a fifth of what the shim
// added to an Isend). The memcheck build's handlers read more (msc_memcheck.c): there the struct is zeroed whole.
// A class joins this set only after each handler it calls was read for that.
const OWN_FIELDS_CLASSES = new Set(['send', 'isend', 'recv', 'irecv', 'wait', 'waitall']);
for (const c of REPLAY_CLASSES)
  if (POLL_CLASSES.has(c))
    fail(`mpi-api.json: replayClasses names ${c}, a poll the analyzer does not always see`);
for (const c of api.localClasses ?? fail('mpi-api.json: localClasses missing'))
  if (!api.functions.some((f) => f.class === c))
    fail(`mpi-api.json: localClasses names ${c}, a class no function has`);

const ROLE_KIND = {
  sbuf: 'buf',
  rbuf: 'buf',
  rwbuf: 'buf',
  fn: 'addr',
  ptr: 'addr',
  other: 'addr',
  count: 'value',
  scount: 'value',
  rcount: 'value',
  color: 'value',
  key: 'value',
  value: 'value',
  size: 'value',
  tdisp: 'value',
  tcount: 'value',
  winsize: 'value',
  dispunit: 'value',
  locktype: 'locktype',
  dest: 'rank',
  source: 'rank',
  root: 'rank',
  rank: 'rank',
  trank: 'rank',
  tag: 'tag',
  stag: 'tag',
  rtag: 'tag',
  datatype: 'handle',
  stype: 'handle',
  rtype: 'handle',
  comm: 'handle',
  peercomm: 'handle',
  group: 'handle',
  group2: 'handle',
  op: 'handle',
  win: 'handle',
  ttype: 'handle',
  message: 'handle',
  info: 'handle',
  errhandler: 'handle',
  request: 'handle',
  request_out: 'out',
  comm_out: 'out',
  datatype_out: 'out',
  group_out: 'out',
  op_out: 'out',
  message_out: 'out',
  win_out: 'out',
  status: 'zero',
  statuses: 'zero',
  flag: 'zero',
  index: 'zero',
  indices: 'zero',
  outcount: 'zero',
  requests: 'array',
  counts: 'array',
  displs: 'array',
  scounts: 'array',
  sdispls: 'array',
  rcounts: 'array',
  rdispls: 'array',
  ranks: 'array',
  types: 'array',
  stypes: 'array',
  rtypes: 'array',
};
// Roles without a bit in the role mask (all 64 bits are taken) and without a field in msc_args: only the ENTER/EXIT
// words and the generated argument rules read them. A file handle's word is the handle; MPI_File_open's new handle
// is an EXIT word, and the file is described to the analyzer as the communicator it was opened on (msc_file_opened).
// The topology arrays (MPI_Cart_create's dims and periods, MPI_Dist_graph_create_adjacent's sources and
// destinations) travel in the ARRAY section for the analyzer's neighbourhood checks; no handler reads them.
const EXTRA_ROLE_KIND = {
  file: 'handle',
  file_out: 'out',
  topo_dims: 'array',
  topo_periods: 'array',
  topo_sources: 'array',
  topo_dests: 'array',
  topo_index: 'array',
  topo_edges: 'array',
};
const ALL_ROLE_KIND = { ...ROLE_KIND, ...EXTRA_ROLE_KIND };
// Roles that get no field in msc_args: a function may have several of them and no handler reads them.
const NO_FIELD = new Set(['fn', 'ptr', 'other', 'value', ...Object.keys(EXTRA_ROLE_KIND)]);
// Arrays on the send side are not read when the send buffer is MPI_IN_PLACE (MPI says they are ignored).
const SEND_SIDE_ARRAYS = new Set(['scounts', 'sdispls', 'stypes']);
const HANDLE_TYPES = [
  'MPI_Comm',
  'MPI_Datatype',
  'MPI_Request',
  'MPI_Group',
  'MPI_Op',
  'MPI_Message',
  'MPI_Info',
  'MPI_Errhandler',
  'MPI_Win',
  'MPI_File',
];

const C_TYPES = { u8: 'uint8_t', u16: 'uint16_t', u32: 'uint32_t', u64: 'uint64_t', i64: 'int64_t' };
const SIZES = { u8: 1, u16: 2, u32: 4, u64: 8, i64: 8 };

function fail(msg) {
  console.error(`generate.mjs: ${msg}`);
  process.exit(1);
}

const ident = (s) => s.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();

/** Splits a spec C type like "const int [][3]" into the part before and after the parameter name. */
function declParts(ctype) {
  const i = ctype.indexOf('[');
  if (i < 0) return [ctype, ''];
  return [ctype.slice(0, i).trim(), ctype.slice(i)];
}
function decl(ctype, name) {
  const [pre, post] = declParts(ctype);
  return pre.endsWith('*') ? `${pre}${name}${post}` : `${pre} ${name}${post}`;
}
/** The base handle type of a C type ("MPI_Comm *" → "MPI_Comm"), or undefined. */
function handleType(ctype) {
  const base = ctype
    .replace(/\bconst\b/g, '')
    .replace(/[*[\]0-9]/g, '')
    .trim();
  return HANDLE_TYPES.includes(base) ? base : undefined;
}
const isPointer = (ctype) => ctype.includes('*') || ctype.includes('[');

// ---------------------------------------------------------------- msc_records.h
function genRecords() {
  const L = [];
  L.push(
    '/* Generated by native-shim/gen/generate.mjs from spec/records.json and spec/mpi-api.json. Do not edit. */',
  );
  L.push('#ifndef MSC_RECORDS_H', '#define MSC_RECORDS_H', '#include <stddef.h>', '#include <stdint.h>', '');
  L.push(
    `#define MSC_RECORD_SIZE ${records.recordSize}`,
    `#define MSC_PROTOCOL_VERSION ${records.version}`,
    '',
  );
  for (const [layout, fields] of [
    ['head', records.head],
    ['ext', records.ext],
  ]) {
    L.push(`typedef struct msc_record_${layout} {`);
    let end = 0;
    for (const f of fields) {
      if (f.offset !== end)
        fail(`records.json ${layout}.${f.name}: offset ${f.offset} leaves a gap after ${end}`);
      L.push(`    ${C_TYPES[f.type]} ${f.name}${f.count ? `[${f.count}]` : ''};`);
      end = f.offset + SIZES[f.type] * (f.count ?? 1);
    }
    if (end !== records.recordSize)
      fail(`records.json ${layout} covers ${end} bytes, not ${records.recordSize}`);
    L.push(`} msc_record_${layout};`);
    for (const f of fields) {
      L.push(
        `_Static_assert(offsetof(msc_record_${layout}, ${f.name}) == ${f.offset}, "${layout}.${f.name} offset");`,
      );
    }
    L.push(`_Static_assert(sizeof(msc_record_${layout}) == ${records.recordSize}, "${layout} size");`, '');
  }
  const headWords = records.head.find((f) => f.name === 'w').count;
  const extWords = records.ext.find((f) => f.name === 'w').count;
  L.push(
    'typedef union msc_record { msc_record_head head; msc_record_ext ext; unsigned char bytes[MSC_RECORD_SIZE]; } msc_record;',
  );
  L.push('_Static_assert(sizeof(msc_record) == MSC_RECORD_SIZE, "record size");');
  L.push(`#define MSC_HEAD_WORDS ${headWords}`, `#define MSC_EXT_WORDS ${extWords}`, '');
  for (const [name, k] of Object.entries(records.kinds)) L.push(`#define MSC_KIND_${name} ${k.id}`);
  L.push('');
  api.functions.forEach((f, i) => L.push(`#define MSC_FN_${f.name} ${i}`));
  L.push(`#define MSC_FN_COUNT ${api.functions.length}`, '');
  api.basicTypes.forEach((t, i) => L.push(`#define MSC_BT_${t} ${i}`));
  L.push(`#define MSC_BT_COUNT ${api.basicTypes.length}`, '');
  api.ops.forEach((o, i) => L.push(`#define MSC_OPID_${o} ${i}`));
  L.push(`#define MSC_OPID_COUNT ${api.ops.length}`, '');
  api.checks.forEach((c, i) => L.push(`#define MSC_CHECK_${ident(c.id)} ${i}`));
  L.push(`#define MSC_CHECK_COUNT ${api.checks.length}`, '', '#endif', '');
  return L.join('\n');
}

// ---------------------------------------------------------------- msc_args.h
/** Collects, for every role used anywhere, the one C type its field has; fails on inconsistent use. */
function roleFields() {
  const fields = new Map();
  const put = (name, type, where) => {
    const prev = fields.get(name);
    // An output array (MPI_Type_get_contents' datatypes) shares the field of the input arrays of its role: the
    // field is const, which a pointer to writable elements converts to.
    const bare = (t) => t.replace(/^const /, '');
    if (prev && bare(prev) === bare(type)) {
      fields.set(name, prev.startsWith('const ') ? prev : type);
      return;
    }
    if (prev && prev !== type) fail(`${where}: field ${name} is ${type} here but ${prev} elsewhere`);
    fields.set(name, type);
  };
  for (const f of api.functions) {
    const seen = new Set();
    for (const [ctype, name, role] of f.params) {
      const kind = ALL_ROLE_KIND[role];
      if (!kind) fail(`${f.name}.${name}: unknown role ${role} (add it to spec/README.md and ROLE_KIND)`);
      if (NO_FIELD.has(role)) continue;
      if (seen.has(role)) fail(`${f.name}: role ${role} used twice`);
      seen.add(role);
      const [pre, post] = declParts(ctype);
      const ftype = post ? `${pre} *` : pre;
      const h = handleType(ctype);
      if (kind === 'handle' && h && isPointer(ctype)) {
        put(role, h, f.name);
        put(`${role}_p`, `${h} *`, f.name);
      } else {
        put(role, ftype, f.name);
      }
      if (kind === 'array' || role === 'statuses') put(`${role}_n`, 'int', f.name);
    }
  }
  return fields;
}

function genArgs(fields) {
  const L = ['/* Generated by native-shim/gen/generate.mjs from spec/mpi-api.json. Do not edit. */'];
  L.push('#ifndef MSC_ARGS_H', '#define MSC_ARGS_H', '#include <mpi.h>', '');
  L.push(
    '/* The typed arguments of one call, one field per parameter role. Fields of roles the function does not',
  );
  L.push(
    ' * have are zero. Pointer-passed input handles have both the value (ROLE) and the pointer (ROLE_p). */',
  );
  L.push('typedef struct msc_args {');
  for (const [name, type] of [...fields].sort()) L.push(`    ${decl(type.replace(/\s*\*$/, ' *'), name)};`);
  L.push(
    '    MPI_Request *req_copy; /* the requests array as it was at entry (MPI overwrites completed ones) */',
  );
  L.push('} msc_args;', '');
  // Role bits: msc_role_mask[func] says which fields of msc_args a function has.
  const roles = Object.keys(ROLE_KIND);
  if (roles.length > 64) fail('more than 64 roles do not fit the role mask');
  roles.forEach((r, i) => L.push(`#define MSC_ROLE_${r.toUpperCase()} (1ull << ${i})`));
  L.push('', '#endif', '');
  return L.join('\n');
}

// ---------------------------------------------------------------- msc_tables.c
function genTables() {
  const L = ['/* Generated by native-shim/gen/generate.mjs from spec/mpi-api.json. Do not edit. */'];
  L.push('#include "msc_shim.h"', '');
  L.push(
    '/* Predefined datatypes by basic type id; a library that lacks one gets MPI_DATATYPE_NULL there. */',
  );
  L.push('void msc_fill_basic_types(MPI_Datatype *out)', '{');
  api.basicTypes.forEach((t, i) => {
    // MPI_UB and MPI_LB were removed in MPI-3; Open MPI 4 defines them as a deliberate compile error.
    const guard = t === 'MPI_UB' || t === 'MPI_LB' ? `defined(${t}) && !defined(OPEN_MPI)` : `defined(${t})`;
    L.push(`#if ${guard}`, `    out[${i}] = ${t};`, '#else', `    out[${i}] = MPI_DATATYPE_NULL;`, '#endif');
  });
  L.push('}', '');
  L.push('void msc_fill_ops(MPI_Op *out)', '{');
  api.ops.forEach((o, i) =>
    L.push(`#if defined(${o})`, `    out[${i}] = ${o};`, '#else', `    out[${i}] = MPI_OP_NULL;`, '#endif'),
  );
  L.push('}', '');
  L.push('const char *const msc_func_names[MSC_FN_COUNT] = {');
  for (const f of api.functions) L.push(`    "${f.name}",`);
  L.push('};', '');
  L.push('const char *const msc_basic_type_names[MSC_BT_COUNT] = {');
  for (const t of api.basicTypes) L.push(`    "${t}",`);
  L.push('};', '');
  // Which basic types each predefined op accepts in a reduction (spec typeGroups/opTypeGroups).
  L.push('const unsigned char msc_op_allows[MSC_OPID_COUNT][MSC_BT_COUNT] = {');
  for (const o of api.ops) {
    const groups = api.opTypeGroups?.[o] ?? fail(`opTypeGroups has no entry for ${o}`);
    const ok = new Set(groups.flatMap((g) => api.typeGroups[g] ?? fail(`typeGroups has no group ${g}`)));
    L.push(`    { ${api.basicTypes.map((t) => (ok.has(t) ? 1 : 0)).join(', ')} }, /* ${o} */`);
  }
  L.push('};', '');
  L.push('const char *const msc_role_names[] = {');
  for (const r of Object.keys(ROLE_KIND)) L.push(`    "${r}",`);
  L.push('};', '');
  L.push('const uint64_t msc_role_mask[MSC_FN_COUNT] = {');
  for (const f of api.functions) {
    const bits = [
      ...new Set(
        f.params.filter((p) => !(p[2] in EXTRA_ROLE_KIND)).map((p) => `MSC_ROLE_${p[2].toUpperCase()}`),
      ),
    ];
    L.push(`    ${bits.length ? bits.join(' | ') : '0'}, /* ${f.name} */`);
  }
  L.push('};', '');
  // The roles of each function's parameters, in order, space-separated: FINDING records name a parameter.
  L.push('const char *const msc_param_roles[MSC_FN_COUNT] = {');
  for (const f of api.functions) L.push(`    "${f.params.map((p) => p[2]).join(' ')}",`);
  L.push('};', '');
  // What a function does with the buffers it is given, for the memcheck build's ownership of memory
  // (msc_memcheck.c): the spec's collective ("gather") or one-sided access ("put"), else its class.
  L.push('const char *const msc_func_what[MSC_FN_COUNT] = {');
  for (const f of api.functions) L.push(`    "${f.coll ?? f.rma ?? f.class}",`);
  L.push('};', '');
  L.push('const char *const msc_check_names[MSC_CHECK_COUNT] = {');
  for (const c of api.checks) L.push(`    "${c.id}",`);
  L.push('};', '');
  // MPI's error classes by the spec's id (errorClasses): the libraries number them differently, so the fatal-error
  // handler sends the spec's index of MPI_Error_class's answer (msc_lifecycle.c) and the analyzer names it.
  L.push('int msc_error_class_id(int cls)', '{');
  api.errorClasses.forEach((c, i) =>
    L.push(`#if defined(${c.class})`, `    if (cls == ${c.class}) return ${i};`, '#endif'),
  );
  L.push('    return -1;', '}', '');
  return L.join('\n');
}

// ---------------------------------------------------------------- msc_wrappers.c
function wordExpr(ctype, name, role) {
  const kind = ALL_ROLE_KIND[role];
  const h = handleType(ctype);
  switch (kind) {
    case 'buf':
      return `msc_w_buf(${name})`;
    case 'addr':
      return `msc_w_addr((const void *)${name})`;
    case 'value':
      return `(int64_t)${name}`;
    case 'rank':
      return `msc_w_rank(${name})`;
    case 'tag':
      return `msc_w_tag(${name})`;
    case 'locktype':
      return `msc_w_locktype(${name})`;
    case 'handle':
      if (!h) fail(`${name}: role ${role} needs a handle type, not ${ctype}`);
      return isPointer(ctype) ? `(${name} ? msc_w_${h}(*${name}) : 0)` : `msc_w_${h}(${name})`;
    default:
      return '0';
  }
}

/**
 * The packed form of a function's ENTER (records.json packedEnter), or undefined when it has none: no array
 * parameter, more words than a head record holds, and few enough once narrow values share words and the
 * always-zero outputs are left out. The decoder (server/src/protocol/spec.ts) derives the same from the spec.
 */
function packedPlan(f) {
  const spec = records.packedEnter;
  const scalars = f.params.filter(([, , role]) => ALL_ROLE_KIND[role] !== 'array');
  if (scalars.length !== f.params.length) return undefined;
  const headWords = records.head.find((x) => x.name === 'w').count;
  if (scalars.length <= headWords) return undefined;
  const wide = [];
  const narrow = [];
  for (const p of scalars) {
    const [ctype, name, role] = p;
    if (spec.zeroRoles.includes(role)) {
      if (wordExpr(ctype, name, role) !== '0')
        fail(`${f.name}.${name}: zeroRoles has ${role}, whose word is not 0`);
    } else if (spec.narrowRoles.includes(role) && ctype.trim() === spec.narrowCType) narrow.push(p);
    else wide.push(p);
  }
  return wide.length + Math.ceil(narrow.length / 2) <= headWords ? { wide, narrow } : undefined;
}

function arrayElemKind(ctype) {
  const h = handleType(ctype);
  if (h === 'MPI_Request') return 'MSC_ARR_REQUEST';
  if (h === 'MPI_Datatype') return 'MSC_ARR_DATATYPE';
  return 'MSC_ARR_INT';
}

/** The functions that create attribute keyvals, with the kind msc_keyval_wrap takes (src/msc_callbacks.c). */
const KEYVAL_CREATE = {
  MPI_Comm_create_keyval: 'MSC_KEYVAL_COMM',
  MPI_Type_create_keyval: 'MSC_KEYVAL_TYPE',
  MPI_Win_create_keyval: 'MSC_KEYVAL_WIN',
};

/** The C binding's forwarding: the PMPI entry with the (possibly substituted) C arguments. */
const C_FORWARD = (f, callArgs) => [`    int rc = P${f.name}(${callArgs.join(', ')});`];

function genWrapper(f) {
  const args = f.params.map(([, name]) => name);
  const proto = f.params.length ? f.params.map(([ctype, name]) => decl(ctype, name)).join(', ') : 'void';
  const L = [];
  L.push(`MSC_EXPORT int ${f.name}(${proto})`, '{');
  L.push('    msc_call c;');
  L.push(`    if (!msc_call_begin(&c, MSC_FN_${f.name}, __builtin_return_address(0)))`);
  L.push(`        return P${f.name}(${args.join(', ')});`);
  L.push(...genRecordingBody(f, C_FORWARD));
  L.push('    return rc;', '}', '');
  return L.join('\n');
}

/**
 * What a wrapper does between msc_call_begin and msc_exit: typed arguments, ENTER words, pre handler, the
 * forwarding call, EXIT words, post handler. Shared by the C wrappers and the Fortran ones (gen/fortran.mjs),
 * which declare C locals named like the C parameters before it and forward to the library's own Fortran
 * entry: forward(f, callArgs) returns the lines that call MPI and declare `int rc`.
 */
function genRecordingBody(f, forward, lang = 'c') {
  const params = f.params;
  const byName = new Map(params.map((p) => [p[1], p]));
  const byRole = new Map(params.map((p) => [p[2], p]));
  const args = params.map(([, name]) => name);
  const L = [];
  const cls = f.class;
  const sbuf = byRole.get('sbuf')?.[1];
  const comm = byRole.get('comm')?.[1];
  const root = byRole.get('root')?.[1];

  /** The C expression of an array's length, per its lengthFrom. */
  const lengthExpr = (p) => {
    const from = p[3];
    let len;
    if (byName.has(from)) len = `${from}`;
    else if (from === 'commsize') len = `msc_len_commsize(${comm})`;
    else if (from === 'localsize') len = `msc_len_localsize(${comm})`;
    else if (from === 'rootcommsize') len = `msc_len_rootcommsize(${comm}, ${root})`;
    // A neighbourhood collective's blocks: one per neighbour of its topology (msc_words.c).
    else if (from === 'indegree' || from === 'outdegree') len = `msc_len_${from}(${comm})`;
    // MPI_Graph_create's edges: index[nnodes - 1] of them.
    else if (from === 'graphedges') {
      const index = byRole.get('topo_index') ?? fail(`${f.name}: graphedges without a topo_index param`);
      len = `msc_len_graph_edges(${index[3]}, ${index[1]})`;
    } else
      fail(
        `${f.name}.${p[1]}: lengthFrom ${from} is neither a parameter nor commsize/localsize/rootcommsize/indegree/outdegree`,
      );
    if (
      ['commsize', 'localsize', 'rootcommsize', 'indegree', 'outdegree'].includes(from) &&
      !byName.has(from) &&
      !comm
    )
      fail(`${f.name}: ${from} without a comm param`);
    if (from === 'rootcommsize' && !root) fail(`${f.name}: rootcommsize without a root param`);
    if (SEND_SIDE_ARRAYS.has(p[2]) && sbuf) len = `(${sbuf} == MPI_IN_PLACE ? 0 : ${len})`;
    return `(${p[1]} ? ${len} : 0)`;
  };

  // Typed arguments for the handlers.
  const inits = [];
  const callArgs = [...args];
  const pre = [];
  params.forEach(([ctype, name, role, from], i) => {
    if (NO_FIELD.has(role)) return;
    const kind = ROLE_KIND[role];
    const h = handleType(ctype);
    if (role === 'status') {
      pre.push('    MPI_Status msc_status;');
      inits.push(`.status = (${name} == MPI_STATUS_IGNORE) ? &msc_status : ${name}`);
      callArgs[i] = 'c_args.status';
    } else if (role === 'statuses') {
      const n = byName.has(from) ? from : fail(`${f.name}.${name}: statuses need a length parameter`);
      pre.push('    MPI_Status msc_statuses[MSC_LOCAL_STATUSES];');
      inits.push(
        `.statuses = msc_statuses_for(${name} == MPI_STATUSES_IGNORE ? NULL : ${name}, ${n}, msc_statuses)`,
      );
      inits.push(`.statuses_n = ${n}`);
      callArgs[i] = 'c_args.statuses';
    } else if (kind === 'handle' && h && isPointer(ctype)) {
      inits.push(`.${role} = ${name} ? *${name} : ${nullOf(h)}`, `.${role}_p = ${name}`);
    } else if (kind === 'array') {
      inits.push(`.${role} = ${name}`, `.${role}_n = ${lengthExpr(params[i])}`);
    } else {
      inits.push(`.${role} = ${name}`);
    }
  });
  // An attribute's copy and delete functions run inside other MPI calls: the shim gives MPI trampolines that
  // record the MPI calls they make (src/msc_callbacks.c). The C binding only: a Fortran callback has its own
  // calling convention, and Open MPI's Fortran binding runs it without the C wrappers anyway.
  const keyvalKind = lang === 'c' ? KEYVAL_CREATE[f.name] : undefined;
  if (keyvalKind !== undefined) {
    const [copy, del, , extra] = params;
    L.push(
      `    msc_keyval_fns msc_kv = msc_keyval_wrap(${keyvalKind}, (void (*)(void))${copy[1]}, (void (*)(void))${del[1]}, ${extra[1]});`,
    );
    callArgs[0] = `(${copy[0]})msc_kv.copy`;
    callArgs[1] = `(${del[0]})msc_kv.del`;
    callArgs[3] = 'msc_kv.extra';
  }
  L.push(...pre);
  // --replay-race (src/msc_replay.c): a wildcard receive of the replayed rank may become a receive from the chosen
  // sender, before the arguments are copied anywhere, so that the ENTER, the checks and MPI all see the forced one.
  const replaySource = REPLAY_CLASSES.has(cls) ? byRole.get('source') : undefined;
  if (replaySource !== undefined) {
    if (!comm) fail(`${f.name}: a replayClasses function without a comm param`);
    L.push(`    int msc_forced = msc_replay_armed ? msc_replay_source(&${replaySource[1]}, ${comm}) : 0;`);
  }
  // Class 'other' has handlers that read no argument: such a wrapper skips filling the msc_args struct, whose
  // zeroing alone was a sixth of a recorded MPI_Comm_rank (callgrind). Only when nothing else reads it.
  const noArgs =
    cls === 'other' && !pre.length && !params.some(([, , role]) => ALL_ROLE_KIND[role] === 'array');
  if (!noArgs && OWN_FIELDS_CLASSES.has(cls)) {
    L.push(
      '#ifdef MSC_MEMCHECK',
      `    msc_args c_args = { ${inits.join(', ')} };`,
      '#else',
      '    msc_args c_args;',
    );
    for (const i of inits) L.push(`    c_args${i};`);
    if (!byRole.has('requests')) L.push('    c_args.req_copy = NULL;');
    L.push('#endif');
  } else if (!noArgs) L.push(`    msc_args c_args = { ${inits.join(', ')} };`);
  // The requests array is copied before MPI overwrites completed entries with MPI_REQUEST_NULL.
  // Statuses start out empty: MPI leaves some untouched (MPICH, for send requests), and the COMPLETE
  // records read them.
  if (byRole.has('status')) L.push('    msc_status_init(c_args.status, 1);');
  if (byRole.has('statuses')) L.push('    msc_status_init(c_args.statuses, c_args.statuses_n);');
  if (byRole.has('requests')) {
    L.push('    MPI_Request msc_reqs[MSC_LOCAL_REQUESTS];');
    L.push('    c_args.req_copy = msc_copy_requests(c_args.requests, c_args.requests_n, msc_reqs);');
  }
  // ENTER words, in prototype order; arrays follow as the ARRAY section. A function whose words would spill into
  // an EXT record but fit one record packed writes them packed (records.json packedEnter): one record, one
  // reservation, fewer stores.
  let nw = 0;
  const packed = packedPlan(f);
  if (packed) {
    for (const [ctype, name, role] of packed.wide)
      L.push(`    c.w[${nw++}] = ${wordExpr(ctype, name, role)};`);
    for (let i = 0; i < packed.narrow.length; i += 2) {
      const half = (p) => `(uint64_t)(uint32_t)(int32_t)${wordExpr(p[0], p[1], p[2])}`;
      const [a, b] = [packed.narrow[i], packed.narrow[i + 1]];
      L.push(`    c.w[${nw++}] = (int64_t)(${half(a)}${b ? ` | ${half(b)} << 32` : ''});`);
    }
    L.push('    c.eflags = MSC_ENTER_PACKED;');
  } else {
    for (const [ctype, name, role] of params) {
      const kind = ALL_ROLE_KIND[role];
      if (kind === 'array') continue;
      L.push(`    c.w[${nw++}] = ${wordExpr(ctype, name, role)};`);
    }
  }
  if (nw > 16) fail(`${f.name}: ${nw} words exceed MSC_MAX_WORDS`);
  if (params.filter((p) => ALL_ROLE_KIND[p[2]] === 'array').length > 8)
    fail(`${f.name}: more than MSC_MAX_ARRAYS arrays`);
  L.push(`    c.nw = ${nw};`);
  for (const [ctype, name, role] of params) {
    if (ALL_ROLE_KIND[role] !== 'array') continue;
    // Requests from the entry copy: an ENTER held back (a poll, msc_state.c) is written after MPI nulled
    // the completed entries.
    const ptr = role === 'requests' ? `(c_args.req_copy ? c_args.req_copy : ${name})` : name;
    // An array with no field in msc_args (the topology arrays) has its length computed here.
    const n = NO_FIELD.has(role) ? lengthExpr(params.find((q) => q[1] === name)) : `c_args.${role}_n`;
    L.push(`    msc_add_array(&c, ${arrayElemKind(ctype)}, ${ptr}, ${n});`);
  }
  // A call that cannot wait on another process has its ENTER held and written with its EXIT (one clock read,
  // one reservation: msc_enter_local and msc_exit_local in msc_shim.h). Polls keep msc_enter, which holds them too and forgets
  // those that found nothing.
  const local = api.localClasses.includes(cls) && !POLL_CLASSES.has(cls);
  L.push(local ? '    msc_enter_local(&c);' : '    msc_enter(&c);');
  if (replaySource !== undefined)
    L.push(`    if (msc_forced) msc_replay_forced(&c, ${params.indexOf(replaySource)}, ${replaySource[1]});`);
  L.push(...genRules(f, lang));
  L.push(noArgs ? `    msc_pre_${cls}(&c, NULL);` : `    msc_pre_${cls}(&c, &c_args);`);
  L.push(...forward(f, callArgs));
  L.push('    c.x[0] = rc;', '    c.nx = 1;');
  for (const [ctype, name, role] of params) {
    const h = handleType(ctype);
    if (ALL_ROLE_KIND[role] === 'out') {
      const conv = h === 'MPI_Request' ? `msc_w_new_request(&c, *${name})` : `msc_w_${h}(*${name})`;
      L.push(`    c.x[c.nx++] = (rc == MPI_SUCCESS && ${name}) ? ${conv} : 0;`);
    }
  }
  // A new file handle: described to the analyzer as the communicator it was opened on, so that collective file
  // calls are matched (and seen blocking) like the collectives of that communicator.
  for (const [, name, role] of params) {
    if (role === 'file_out') {
      const comm = byRole.get('comm')?.[1] ?? fail(`${f.name}: file_out without a comm`);
      L.push(
        `    if (rc == MPI_SUCCESS && ${name} && *${name} != MPI_FILE_NULL) msc_file_opened(&c, *${name}, ${comm});`,
      );
    }
  }
  for (const [, name, role] of params) {
    if (role === 'index') L.push(`    c.x[c.nx++] = (${name} && *${name} != MPI_UNDEFINED) ? *${name} : -1;`);
  }
  for (const [, name, role] of params) {
    if (role === 'outcount') {
      const ind = byRole.get('indices')?.[1] ?? fail(`${f.name}: outcount without indices`);
      // The count and the indices that follow it must agree: -1 (and no indices) unless MPI set them.
      L.push(
        `    int msc_outcount = (${name} && *${name} != MPI_UNDEFINED && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)) ? *${name} : -1;`,
      );
      L.push('    c.x[c.nx++] = msc_outcount;');
      L.push(`    c.xarr = ${ind};`, '    c.xarr_n = msc_outcount > 0 ? msc_outcount : 0;');
    }
  }
  for (const [, name, role] of params) {
    if (role === 'flag')
      L.push(`    if (rc == MPI_SUCCESS && ${name} && *${name}) c.xflags |= MSC_FLAG_TRUE;`);
  }
  L.push(noArgs ? `    msc_post_${cls}(&c, NULL, rc);` : `    msc_post_${cls}(&c, &c_args, rc);`);
  // A quiet call (spec/mpi-api.json) that emitted nothing of its own is sampled: msc_exit_quiet in msc_shim.h.
  if (f.quiet === true && !local) fail(`${f.name}: quiet, but its class ${cls} is not in localClasses`);
  L.push(
    f.quiet === true ? '    msc_exit_quiet(&c);' : local ? '    msc_exit_local(&c);' : '    msc_exit(&c);',
  );
  return L;
}

/**
 * The argument rules of a function (spec "rules", each [rule id, parameter names...] with the rule's meaning in the
 * spec's top-level "rules"): one call per rule to its hand-written checker msc_rule_ID (native-shim/src/msc_rules.c),
 * which gets the call, the index of the offending parameter and the named arguments, and emits a FINDING per
 * violation. They run after the ENTER and before MPI sees the call; findings are flushed before forwarding.
 * Rules marked "c" read C-only conventions (logicals as 0/1) and are left out of the Fortran wrappers.
 */
function genRules(f, lang) {
  const list = (f.rules ?? []).filter((r) => lang === 'c' || !api.rules[r[0]]?.c);
  if (!list.length) return [];
  const L = ['    if (msc_checks_on && msc_mpi_ready) {'];
  for (const [id, ...names] of list) {
    const rule = api.rules?.[id] ?? fail(`${f.name}: rule ${id} is not in the spec's rules`);
    const args = [];
    let at = -1;
    rule.params.forEach((formal, k) => {
      const optional = formal.endsWith('?');
      const fname = formal.replace(/\?$/, '');
      const actual = names[k];
      if (fname === 'kind') {
        if (!['cart', 'graph', 'dist_graph', 'neighborhood'].includes(actual ?? ''))
          fail(`${f.name}: rule ${id} needs a topology kind, not ${actual}`);
        args.push(`MSC_TOPO_${actual.toUpperCase()}`);
        return;
      }
      if (actual === undefined) {
        if (!optional) fail(`${f.name}: rule ${id} needs a parameter for ${formal}`);
        args.push(fname === 'root' ? 'MSC_NO_ROOT' : fname === 'comm' ? 'MPI_COMM_NULL' : '0');
        return;
      }
      const idx = f.params.findIndex((p) => p[1] === actual);
      if (idx < 0) fail(`${f.name}: rule ${id} names ${actual}, which is not a parameter`);
      if (at < 0 || fname === rule.at) at = idx;
      const [ctype] = f.params[idx];
      const h = handleType(ctype);
      // Handles passed by pointer (MPI_Type_commit, MPI_Comm_free…) are judged by the handle they point to.
      const handleFormal = ['comm', 'group', 'datatype', 'op', 'file', 'win', 'info', 'errhandler'].includes(
        fname,
      );
      args.push(
        handleFormal && h && isPointer(ctype) && !ctype.includes('[')
          ? `(${actual} ? *${actual} : ${nullOf(h)})`
          : actual,
      );
    });
    L.push(`        msc_rule_${id.replace(/-/g, '_')}(&c, ${at}${args.map((a) => `, ${a}`).join('')});`);
  }
  L.push('        msc_rules_done();', '    }');
  return L;
}

function nullOf(h) {
  return {
    MPI_Comm: 'MPI_COMM_NULL',
    MPI_Datatype: 'MPI_DATATYPE_NULL',
    MPI_Request: 'MPI_REQUEST_NULL',
    MPI_Group: 'MPI_GROUP_NULL',
    MPI_Op: 'MPI_OP_NULL',
    MPI_Message: 'MPI_MESSAGE_NULL',
    MPI_Info: 'MPI_INFO_NULL',
    MPI_Errhandler: 'MPI_ERRHANDLER_NULL',
    MPI_Win: 'MPI_WIN_NULL',
    MPI_File: 'MPI_FILE_NULL',
  }[h];
}

function genWrappers() {
  const L = ['/* Generated by native-shim/gen/generate.mjs from spec/mpi-api.json. Do not edit. */'];
  L.push('#include "msc_shim.h"', '');
  // MPI-3.1 still has the deprecated calls (MPI_Attr_*, MPI_Keyval_*); their wrappers forward to them on purpose.
  L.push('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', '');
  const names = new Set();
  for (const f of api.functions) {
    if (names.has(f.name)) fail(`${f.name} is listed twice`);
    names.add(f.name);
    // Calls of a later MPI standard (MPICH 4.0's large-count and persistent-collective calls…) exist only where
    // mpi.h declares them; their id is kept everywhere, so the analyzer decodes every library alike.
    if (f.since) L.push(`#if MPI_VERSION >= ${f.since}`);
    L.push(genWrapper(f));
    if (f.since) L.push('#endif', '');
  }
  return L.join('\n');
}

function writeIfChanged(name, text) {
  const p = join(outDir, name);
  if (existsSync(p) && readFileSync(p, 'utf8') === text) return;
  writeFileSync(p, text);
}

mkdirSync(outDir, { recursive: true });
writeIfChanged('msc_records.h', genRecords());
writeIfChanged('msc_args.h', genArgs(roleFields()));
writeIfChanged('msc_tables.c', genTables());
writeIfChanged('msc_wrappers.c', genWrappers());
writeIfChanged(
  'msc_fortran_wrappers.c',
  genFortranWrappers({
    api,
    ROLE_KIND: ALL_ROLE_KIND,
    handleType,
    isPointer,
    genRecordingBody,
    nullOf,
    fail,
  }),
);
