import type { DebugRankArguments } from '../lsp/protocol';

/**
 * The child debug configuration that attaches a native debugger to one rank's process. Both debuggers
 * need the executable for symbols; the pid selects the rank.
 */
export function nativeAttachConfiguration(
  request: DebugRankArguments,
  pid: number,
  program: string,
): Record<string, unknown> {
  const name = `rank ${request.rank} (pid ${pid})`;
  if (request.debuggerType === 'lldb') {
    return { type: 'lldb', request: 'attach', name, pid, program };
  }
  return { type: 'cppdbg', request: 'attach', name, program, processId: String(pid), MIMode: 'gdb' };
}

export function isDebugRankArguments(value: unknown): value is DebugRankArguments {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.rank === 'number' &&
    Number.isInteger(v.rank) &&
    (v.debuggerType === 'cppdbg' || v.debuggerType === 'lldb')
  );
}
