import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { activeFileConfiguration } from './debug-config';
import { clearFindingsRequest, stopRequest } from './lsp-ext';

/**
 * mpiscope.run starts the active file's program under mpiscope without stopping on findings (a
 * no-debug launch of the mpi type, so output and termination behave as with F5); mpiscope.stop ends
 * the job however it was started; mpiscope.clearFindings removes the markers.
 */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand('mpiscope.run', async (resource?: vscode.Uri) => {
      if (resource instanceof vscode.Uri) await vscode.window.showTextDocument(resource);
      const config = activeFileConfiguration();
      if (!config) {
        void vscode.window.showErrorMessage('mpiscope: open the C file of your MPI program to run it.');
        return;
      }
      const folder =
        vscode.window.activeTextEditor &&
        vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri);
      await vscode.debug.startDebugging(
        folder,
        { ...config, name: 'mpiscope: run', stopOnFinding: false },
        { noDebug: true },
      );
    }),
    vscode.commands.registerCommand('mpiscope.stop', () => client.sendRequest(stopRequest)),
    vscode.commands.registerCommand('mpiscope.clearFindings', () => client.sendRequest(clearFindingsRequest)),
  );
}
