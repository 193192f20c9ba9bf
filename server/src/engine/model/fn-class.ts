/**
 * What the per-call handlers (calls.ts) need to know of each function, found once from the spec's tables and
 * kept by function id: its class as a small integer, and whether it has the parameters some of them look for.
 * The handlers of every ENTER and EXIT switch on the integer (a jump table) rather than on the class string
 * (a chain of string comparisons, the common classes near its end), and skip what a function cannot need
 * (reading a role it does not have, a lookup of its output word by parameter name) without testing for it.
 */
import { layouts } from '../../protocol/spec';
import { paramName } from './fn-roles';

/** The classes the handlers tell apart (mpi-api.json `class`); every other class is OTHER. */
export const C = {
  OTHER: 0,
  INIT: 1,
  FINALIZE: 2,
  SEND: 3,
  ISEND: 4,
  SEND_INIT: 5,
  RECV_INIT: 6,
  RECV: 7,
  IRECV: 8,
  SENDRECV: 9,
  SENDRECV_REPLACE: 10,
  PROBE: 11,
  MPROBE: 12,
  IMPROBE: 13,
  IMRECV: 14,
  WAIT: 15,
  TEST: 16,
  WAITALL: 17,
  WAITANY: 18,
  WAITSOME: 19,
  TESTALL: 20,
  TESTANY: 21,
  TESTSOME: 22,
  START: 23,
  STARTALL: 24,
  REQUEST_FREE: 25,
  COLLECTIVE: 26,
  ICOLLECTIVE: 27,
  COMM_CREATE: 28,
  WIN_CREATE: 29,
  WIN_FREE: 30,
  WIN_SYNC: 31,
  RMA: 32,
  GROUP_FREE: 33,
  COMM_FREE: 34,
  REQUEST_GET_STATUS: 35,
  BUFFER_ATTACH: 36,
  BUFFER_DETACH: 37,
  GROUP: 38,
  CANCEL: 39,
  COLL_INIT: 40,
} as const;

const BY_NAME: Readonly<Record<string, number>> = {
  init: C.INIT,
  finalize: C.FINALIZE,
  send: C.SEND,
  isend: C.ISEND,
  send_init: C.SEND_INIT,
  recv_init: C.RECV_INIT,
  recv: C.RECV,
  irecv: C.IRECV,
  sendrecv: C.SENDRECV,
  sendrecv_replace: C.SENDRECV_REPLACE,
  probe: C.PROBE,
  mprobe: C.MPROBE,
  improbe: C.IMPROBE,
  imrecv: C.IMRECV,
  wait: C.WAIT,
  test: C.TEST,
  waitall: C.WAITALL,
  waitany: C.WAITANY,
  waitsome: C.WAITSOME,
  testall: C.TESTALL,
  testany: C.TESTANY,
  testsome: C.TESTSOME,
  start: C.START,
  startall: C.STARTALL,
  request_free: C.REQUEST_FREE,
  collective: C.COLLECTIVE,
  icollective: C.ICOLLECTIVE,
  comm_create: C.COMM_CREATE,
  win_create: C.WIN_CREATE,
  win_free: C.WIN_FREE,
  win_sync: C.WIN_SYNC,
  rma: C.RMA,
  group_free: C.GROUP_FREE,
  comm_free: C.COMM_FREE,
  request_get_status: C.REQUEST_GET_STATUS,
  buffer_attach: C.BUFFER_ATTACH,
  buffer_detach: C.BUFFER_DETACH,
  group: C.GROUP,
  cancel: C.CANCEL,
  coll_init: C.COLL_INIT,
};

/** Each function's class code, by function id. */
export const classOf: Uint8Array = Uint8Array.from(layouts, (l) => BY_NAME[l.spec.cls] ?? C.OTHER);

/** A scalar parameter with this role (fn-roles.ts RoleReader reads scalars only). */
function hasScalar(id: number, role: string): boolean {
  const slot = layouts[id]?.roleSlot.get(role);
  return slot !== undefined && slot >= 0;
}

/**
 * Functions outside class comm_create with a parent communicator and a new one (topologies, MPI_Comm_idup…):
 * they count among the parent's creating calls (calls.ts onEnter).
 */
export const makesCommFromParent: Uint8Array = Uint8Array.from(layouts, (l, id) =>
  classOf[id] !== C.COMM_CREATE && hasScalar(id, 'comm_out') && hasScalar(id, 'comm') ? 1 : 0,
);

/** Functions with a request_out parameter. */
export const hasRequestOut: Uint8Array = Uint8Array.from(layouts, (_, id) =>
  hasScalar(id, 'request_out') ? 1 : 0,
);

/** The EXIT word of each function's request_out parameter (FunctionLayout.outWord), -1 when it has none. */
export const requestOutWord: Int16Array = Int16Array.from(layouts, (l) => {
  const name = paramName(l.spec, 'request_out');
  return name === undefined ? -1 : (l.outWord.get(name) ?? -1);
});

/** The classes Wait*, Test*: the calls that complete requests given to them. */
export function isTestClass(code: number): boolean {
  return code === C.TEST || code === C.TESTALL || code === C.TESTANY || code === C.TESTSOME;
}
