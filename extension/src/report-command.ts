import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { openReportRequest, openTraceRequest, type OpenReportParams, type OpenReportResult } from './lsp-ext';
import type { RequestType } from 'vscode-languageclient';

type OpenRequest = RequestType<OpenReportParams, OpenReportResult, void>;

/** Asks for a file (unless the command came with one), has the server load it, and says what it found. */
function opener(client: LanguageClient, request: OpenRequest, filters: Record<string, string[]>) {
  return async (resource?: vscode.Uri): Promise<void> => {
    const uri =
      resource instanceof vscode.Uri
        ? resource
        : (await vscode.window.showOpenDialog({ filters, canSelectMany: false }))?.[0];
    if (!uri) return;
    try {
      const result = await client.sendRequest(request, { path: uri.fsPath });
      const what = `${result.findings} finding(s) in ${result.files} file(s) from ${vscode.workspace.asRelativePath(uri)}`;
      if (result.findings > 0) await vscode.commands.executeCommand('workbench.actions.view.problems');
      void vscode.window.showInformationMessage(`mpiscope: ${what}.`);
    } catch (error) {
      void vscode.window.showErrorMessage(`mpiscope: ${(error as Error).message}`);
    }
  };
}

/**
 * mpiscope.openReport shows the findings of a `mpiscope run --json` report (from CI, say) as diagnostics;
 * mpiscope.openTrace rebuilds them from a `--trace` file with the same engine.
 */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand(
      'mpiscope.openReport',
      opener(client, openReportRequest, { 'mpiscope report': ['json'] }),
    ),
    vscode.commands.registerCommand(
      'mpiscope.openTrace',
      opener(client, openTraceRequest, { 'mpiscope trace': ['*'] }),
    ),
  );
}
