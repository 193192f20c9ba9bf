import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import {
  MESSAGE_QUEUES_REQUEST,
  type MessageQueuesResponse,
} from '../../server/src/dap/message-queues-request';
import { MPI_DEBUG_TYPE } from './program-of-file';
import { OPEN_SITE_COMMAND, queueGraphHtml } from '../../server/src/dap/queue-graph-html';

/**
 * mpiscope.showMessageQueues: a panel with the message queues of the mpi debug session (asked with the DAP
 * request mpiscope.messageQueues), redrawn each time the job stops while the panel is open.
 */
export function activate(ctx: vscode.ExtensionContext): void {
  let panel: vscode.WebviewPanel | undefined;
  let shown: vscode.DebugSession | undefined;

  const refresh = async (session: vscode.DebugSession): Promise<void> => {
    if (panel === undefined) return;
    shown = session;
    try {
      const q = (await session.customRequest(MESSAGE_QUEUES_REQUEST)) as MessageQueuesResponse;
      if (panel !== undefined) panel.webview.html = queueGraphHtml(q, randomBytes(16).toString('base64'));
    } catch (error) {
      void vscode.window.showErrorMessage(`mpiscope: ${(error as Error).message}`);
    }
  };

  ctx.subscriptions.push(
    vscode.commands.registerCommand('mpiscope.showMessageQueues', async () => {
      const session = vscode.debug.activeDebugSession;
      if (session?.type !== MPI_DEBUG_TYPE) {
        void vscode.window.showErrorMessage(
          'mpiscope: the message queues need a running mpi debug session (start one with F5).',
        );
        return;
      }
      if (panel === undefined) {
        panel = vscode.window.createWebviewPanel(
          'mpiscope.messageQueues',
          'MPI Message Queues',
          vscode.ViewColumn.Beside,
          // No script: links to call sites are command URIs.
          { enableScripts: false, enableCommandUris: [OPEN_SITE_COMMAND] },
        );
        panel.onDidDispose(() => (panel = undefined), undefined, ctx.subscriptions);
      } else panel.reveal(vscode.ViewColumn.Beside);
      await refresh(session);
    }),
    vscode.commands.registerCommand(OPEN_SITE_COMMAND, async (where: { file?: unknown; line?: unknown }) => {
      if (typeof where?.file !== 'string' || typeof where.line !== 'number') return;
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(where.file));
      const line = Math.max(0, where.line - 1);
      await vscode.window.showTextDocument(doc, {
        viewColumn: vscode.ViewColumn.One,
        selection: new vscode.Range(line, 0, line, 0),
      });
    }),
    // Every stop of the shown session redraws the queues: they stand still while it is stopped.
    vscode.debug.registerDebugAdapterTrackerFactory(MPI_DEBUG_TYPE, {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string }) => {
          if (m.type === 'event' && m.event === 'stopped' && panel !== undefined && shown?.id === session.id)
            void refresh(session);
        },
      }),
    }),
  );
}
