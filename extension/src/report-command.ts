import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { openReportRequest } from './lsp-ext';

/** mpiscope.openReport: shows the findings of a `mpiscope run --json` report (from CI, say) as diagnostics. */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand('mpiscope.openReport', async (resource?: vscode.Uri) => {
      const uri =
        resource instanceof vscode.Uri
          ? resource
          : (await vscode.window.showOpenDialog({ filters: { 'mpiscope report': ['json'] }, canSelectMany: false }))?.[0];
      if (!uri) return;
      try {
        const result = await client.sendRequest(openReportRequest, { path: uri.fsPath });
        const message = `mpiscope: ${result.findings} finding(s) in ${result.files} file(s) from ${vscode.workspace.asRelativePath(uri)}.`;
        if (result.findings > 0) await vscode.commands.executeCommand('workbench.actions.view.problems');
        void vscode.window.showInformationMessage(message);
      } catch (error) {
        void vscode.window.showErrorMessage(`mpiscope: ${(error as Error).message}`);
      }
    }),
  );
}
