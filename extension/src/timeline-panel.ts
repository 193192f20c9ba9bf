import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { timelineNotification } from './lsp-ext';
import {
  isTimelineMessage,
  type TimelineMessage,
  type WebviewRequest,
} from '../../server/src/timeline/timeline-protocol';
import { parseWebviewRequest } from '../../server/src/timeline/webview-request';

/**
 * mpiscope.showTimeline: a webview panel with the job's timeline (dist/webview.js). The language server
 * sends the timeline as `mpiscope/timeline` notifications; this host keeps the current job's messages (from
 * its last reset on) so a panel opened late, or reloaded, is replayed everything, and forwards new ones
 * as they come. The webview asks the host to reveal file:line when a call or finding is picked.
 */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  const history: TimelineMessage[] = [];
  let panel: vscode.WebviewPanel | undefined;

  ctx.subscriptions.push(
    client.onNotification(timelineNotification, (message: unknown) => {
      if (!isTimelineMessage(message)) return;
      if (message.type === 'reset') history.length = 0;
      history.push(message);
      void panel?.webview.postMessage(message);
    }),
    vscode.commands.registerCommand('mpiscope.showTimeline', () => {
      if (panel !== undefined) {
        panel.reveal();
        return;
      }
      panel = createPanel(ctx, history);
      panel.onDidDispose(() => (panel = undefined), undefined, ctx.subscriptions);
    }),
  );
}

function createPanel(ctx: vscode.ExtensionContext, history: readonly TimelineMessage[]): vscode.WebviewPanel {
  const dist = vscode.Uri.joinPath(ctx.extensionUri, 'dist');
  const panel = vscode.window.createWebviewPanel(
    'mpiscope.timeline',
    'mpiscope: Timeline',
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: true },
  );
  panel.webview.html = timelineHtml(ctx, panel.webview, 'mpiscope: Timeline');
  panel.webview.onDidReceiveMessage(
    (message: unknown) => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const request: WebviewRequest | string = parseWebviewRequest(message, folders);
      if (typeof request === 'string') {
        // Said, not acted on: a file outside the workspace is not opened on the webview's word.
        if (request.endsWith('outside the workspace'))
          void vscode.window.showWarningMessage(`mpiscope: not opening ${request}.`);
        return;
      }
      if (request.type === 'ready') {
        // The page (re)loaded: it starts empty, so give it the whole job so far.
        for (const m of history) void panel.webview.postMessage(m);
      } else if (request.type === 'reveal') {
        void reveal(request.file, request.line);
      }
    },
    undefined,
    ctx.subscriptions,
  );
  return panel;
}

/** Opens a source file at a line in the first column (a call or finding picked on a timeline). */
export async function reveal(file: string, line: number): Promise<void> {
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = new vscode.Position(Math.max(0, line - 1), 0);
    await vscode.window.showTextDocument(doc, {
      viewColumn: vscode.ViewColumn.One,
      selection: new vscode.Range(pos, pos),
    });
  } catch {
    void vscode.window.showWarningMessage(`mpiscope: cannot open ${file} (is the source on this machine?).`);
  }
}

/** The script's nonce: unpredictable (a CSP nonce guessed is a script injected), new for every page. */
function nonce(): string {
  return randomBytes(24).toString('base64url');
}

/** The timeline page (dist/webview.js) for a webview: the live panel's and the trace editor's. */
export function timelineHtml(ctx: vscode.ExtensionContext, webview: vscode.Webview, title: string): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'webview.js'));
  return html(webview.cspSource, script.toString(), nonce(), title.replace(/[<>&"]/g, ''));
}

/**
 * connect-src: the trace editor's page fetches its columns from a webview resource (trace-editor.ts).
 * Only our one script and our one style element run (by nonce); the components' styles are lit's constructed
 * stylesheets and their per-element styles are set through the CSSOM (styleMap), neither of which style-src
 * governs: no 'unsafe-inline', so an injected style attribute or <style> does nothing.
 */
function html(cspSource: string, script: string, n: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource} data:; connect-src ${cspSource}; style-src ${cspSource} 'nonce-${n}'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${n}">html, body { margin: 0; height: 100%; background: var(--vscode-editor-background); }</style>
</head>
<body>
<mpi-app></mpi-app>
<script type="module" nonce="${n}" src="${script}"></script>
</body>
</html>`;
}
