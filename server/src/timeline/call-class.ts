import { CallClass } from './timeline-protocol';

/**
 * Colour classes of MPI calls, from the spec's function class (native-shim/spec/README.md). A call that
 * moves no message and does not wait is "setup"; waits and tests get their own colour because the time a
 * rank spends in them is the time it waits for someone else.
 */
const BY_SPEC_CLASS: Readonly<Record<string, CallClass>> = {
  send: CallClass.send,
  isend: CallClass.send,
  sendrecv: CallClass.send,
  sendrecv_replace: CallClass.send,
  start: CallClass.send,
  startall: CallClass.send,
  recv: CallClass.recv,
  irecv: CallClass.recv,
  mrecv: CallClass.recv,
  imrecv: CallClass.recv,
  probe: CallClass.recv,
  iprobe: CallClass.recv,
  mprobe: CallClass.recv,
  improbe: CallClass.recv,
  collective: CallClass.collective,
  icollective: CallClass.collective,
  wait: CallClass.wait,
  waitall: CallClass.wait,
  waitany: CallClass.wait,
  waitsome: CallClass.wait,
  test: CallClass.wait,
  testall: CallClass.wait,
  testany: CallClass.wait,
  testsome: CallClass.wait,
  request_get_status: CallClass.wait,
  init: CallClass.setup,
  finalize: CallClass.setup,
  comm_create: CallClass.setup,
  comm_free: CallClass.setup,
  group: CallClass.setup,
  group_free: CallClass.setup,
  type_create: CallClass.setup,
  type_commit: CallClass.setup,
  type_free: CallClass.setup,
  op_create: CallClass.setup,
  op_free: CallClass.setup,
  buffer_attach: CallClass.setup,
  buffer_detach: CallClass.setup,
  send_init: CallClass.setup,
  recv_init: CallClass.setup,
  request_free: CallClass.setup,
  cancel: CallClass.setup,
  win_create: CallClass.setup,
  win_free: CallClass.setup,
  // Fences, locks, flushes and PSCW: the time in them is time spent waiting for the other ranks or the target.
  win_sync: CallClass.wait,
};

export function callClassOf(specClass: string): CallClass {
  return BY_SPEC_CLASS[specClass] ?? CallClass.other;
}
