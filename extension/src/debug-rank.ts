import * as vscode from 'vscode';
import type { DebugRankArguments } from './lsp-ext';
import { MPI_DEBUG_TYPE } from './program-of-file';

/** The native debuggers a rank can be attached with, in order of preference. */
const debuggers: readonly { extension: string; type: DebugRankArguments['debuggerType'] }[] = [
  { extension: 'ms-vscode.cpptools', type: 'cppdbg' },
  { extension: 'vadimcn.vscode-lldb', type: 'lldb' },
];

/** The rank of the thread selected in the Call Stack (thread id = rank + 1), or one the user picks. */
async function chooseRank(session: vscode.DebugSession): Promise<number | undefined> {
  const item = vscode.debug.activeStackItem;
  if (item && item.session.id === session.id) return item.threadId - 1;
  const np = typeof session.configuration.np === 'number' ? session.configuration.np : 2;
  const picked = await vscode.window.showQuickPick(
    Array.from({ length: np }, (_, r) => `rank ${r}`),
    { placeHolder: 'Which rank to attach a native debugger to?' },
  );
  return picked === undefined ? undefined : Number(picked.slice(5));
}

/**
 * mpiscope.debugRank: while an mpi session is stopped, attach a native debugger (C/C++ or CodeLLDB) to
 * one rank's process as a child session, started by the adapter through DAP's startDebugging.
 */
export function activate(ctx: vscode.ExtensionContext): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand('mpiscope.debugRank', async () => {
      const session = vscode.debug.activeDebugSession;
      if (session?.type !== MPI_DEBUG_TYPE) {
        void vscode.window.showErrorMessage(
          'mpiscope: "Debug this rank" needs a running mpi debug session (start one with F5).',
        );
        return;
      }
      const native = debuggers.find((d) => vscode.extensions.getExtension(d.extension) !== undefined);
      if (!native) {
        void vscode.window.showErrorMessage(
          'mpiscope: "Debug this rank" needs a native debugger extension: install C/C++ (ms-vscode.cpptools) or CodeLLDB (vadimcn.vscode-lldb).',
        );
        return;
      }
      const rank = await chooseRank(session);
      if (rank === undefined) return;
      const args: DebugRankArguments = { rank, debuggerType: native.type };
      try {
        await session.customRequest('mpiscope.debugRank', args);
      } catch (error) {
        void vscode.window.showErrorMessage(`mpiscope: ${(error as Error).message}`);
      }
    }),
  );
}
