import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/**
 * The net-test result files (`*.nettest.json`, written by `mpiscope net-test`) open as heatmaps: a read-only
 * custom editor whose webview is dist/netview.js, the same page `mpiscope view` writes standalone. The file's
 * text goes to the page as it is; the page checks it with the CLI's validator and says what is wrong.
 */
export function activate(ctx: vscode.ExtensionContext): void {
  ctx.subscriptions.push(
    vscode.window.registerCustomEditorProvider(
      'mpiscope.netTest',
      { openCustomDocument, resolveCustomEditor: (doc, panel) => resolve(ctx, doc, panel) },
      { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: true },
    ),
  );
}

function openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
  return { uri, dispose: () => undefined };
}

async function resolve(
  ctx: vscode.ExtensionContext,
  doc: vscode.CustomDocument,
  panel: vscode.WebviewPanel,
): Promise<void> {
  const dist = vscode.Uri.joinPath(ctx.extensionUri, 'dist');
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
  const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'netview.js'));
  const n = nonce();
  const send = async (): Promise<void> => {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(doc.uri));
    const name: string = doc.uri.path.split('/').pop() ?? 'net-test';
    void panel.webview.postMessage({ type: 'net-test', names: [name], texts: [text] });
  };
  panel.webview.onDidReceiveMessage((m: unknown) => {
    if (typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'ready') void send();
  });
  // A new run written over the file shows at once.
  const watcher = vscode.workspace.createFileSystemWatcher(
    new vscode.RelativePattern(vscode.Uri.joinPath(doc.uri, '..'), doc.uri.path.split('/').pop() ?? '*'),
  );
  watcher.onDidChange(() => void send());
  panel.onDidDispose(() => {
    watcher.dispose();
  });
  panel.webview.html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${panel.webview.cspSource} 'nonce-${n}'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${n}">html, body { margin: 0; height: 100%; background: var(--vscode-editor-background); } mpi-heatmap { height: 100vh; box-sizing: border-box; padding: 8px; }</style>
</head>
<body>
<mpi-heatmap></mpi-heatmap>
<script type="module" nonce="${n}" src="${script.toString()}"></script>
</body>
</html>`;
  await Promise.resolve();
}

/** Unpredictable (Math.random is not: a nonce guessed is a script injected), new for every page. */
function nonce(): string {
  return randomBytes(24).toString('base64url');
}
