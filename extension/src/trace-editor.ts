import { readFile, rmdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { parseWebviewRequest } from '../../server/src/timeline/webview-request';
import { unpackTimeline } from '../../server/src/timeline/packed-columns';
import type { OpenTiming, TimelineMessage } from '../../server/src/timeline/timeline-protocol';
import { traceFindingsRequest, traceTimelineRequest } from './lsp-ext';
import { reveal, timelineHtml } from './timeline-panel';

/**
 * Trace files (`mpiscope run --trace run.mpitrace`) open as their timeline: a read-only custom editor with
 * the live panel's page (dist/webview.js). The language server decodes the trace into the timeline
 * (mpiscope/traceTimeline), drawn at once; then replays it through the same engine as `mpiscope report`
 * (mpiscope/traceFindings): the findings are added to the timeline and go to the Problems panel on the
 * source files they name. Other names open with "Open With… > mpiscope Trace".
 */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  ctx.subscriptions.push(
    vscode.window.registerCustomEditorProvider(
      'mpiscope.trace',
      {
        openCustomDocument: (uri) => ({ uri, dispose: () => undefined }),
        resolveCustomEditor: (doc, panel) => resolve(ctx, client, doc, panel),
      },
      { webviewOptions: { retainContextWhenHidden: true }, supportsMultipleEditorsPerDocument: true },
    ),
  );
}

function resolve(
  ctx: vscode.ExtensionContext,
  client: LanguageClient,
  doc: vscode.CustomDocument,
  panel: vscode.WebviewPanel,
): void {
  const dist = vscode.Uri.joinPath(ctx.extensionUri, 'dist');
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
  const name = doc.uri.path.split('/').pop() ?? 'trace';
  // Replayed once per editor, in two steps: the timeline as soon as the trace is decoded, then the findings
  // (the engine's replay, most of the cost) added to it. A reload of the page (or a second "ready") gets the
  // same messages again. The decoding starts now, while the page loads, not when it says ready.
  let drawn: Promise<Opened> | undefined;
  let judged: Promise<unknown[]> | undefined;
  const timeline = (): Promise<Opened> => (drawn ??= openTimeline(client, doc.uri.fsPath));
  timeline().catch(() => undefined); // Reported when the page asks for it.
  const findings = (id: number): Promise<unknown[]> =>
    (judged ??= client.sendRequest(traceFindingsRequest, { id }).then((r) => {
      if (r.findings > 0)
        void vscode.window.setStatusBarMessage(
          `mpiscope: ${r.findings} finding(s) of ${name} in the Problems panel`,
          8000,
        );
      return r.messages;
    }));
  panel.webview.onDidReceiveMessage(
    async (message: unknown) => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const request = parseWebviewRequest(message, folders);
      if (typeof request === 'string') {
        if (request.endsWith('outside the workspace'))
          void vscode.window.showWarningMessage(`mpiscope: not opening ${request}.`);
        return;
      }
      if (request.type === 'reveal') {
        void reveal(request.file, request.line);
        return;
      }
      let opened: Opened;
      try {
        opened = await timeline();
        const posting = Date.now();
        // The columns are typed arrays, one ArrayBuffer per batch: VS Code carries them as bytes.
        for (const m of opened.messages) void panel.webview.postMessage(m);
        const timing: OpenTiming = {
          type: 'timing',
          marks: { ...opened.marks, posting, posted: Date.now() },
        };
        void panel.webview.postMessage(timing);
      } catch (error) {
        drawn = undefined;
        void panel.webview.postMessage({ type: 'reset', ranks: 0, program: `${name}: cannot be shown` });
        void vscode.window.showErrorMessage(`mpiscope: cannot open ${name}: ${(error as Error).message}`);
        return;
      }
      try {
        for (const m of await findings(opened.id)) void panel.webview.postMessage(m);
      } catch (error) {
        // The timeline stays; only its findings are missing, and the message says so.
        void vscode.window.showErrorMessage(
          `mpiscope: the findings of ${name} could not be judged: ${(error as Error).message}`,
        );
      }
    },
    undefined,
    ctx.subscriptions,
  );
  panel.webview.html = timelineHtml(ctx, panel.webview, `mpiscope: ${name}`);
}

interface Opened {
  readonly id: number;
  /** The timeline's messages, their columns typed arrays over one ArrayBuffer per batch. */
  readonly messages: TimelineMessage[];
  /** When each step happened (ms since the epoch), for the page's timing record. */
  readonly marks: Record<string, number>;
}

/**
 * Asks the language server for a trace's timeline and reads the columns file it wrote (then deletes it: the
 * file and its folder, by name, nothing else).
 */
async function openTimeline(client: LanguageClient, path: string): Promise<Opened> {
  const requested = Date.now();
  const r = await client.sendRequest(traceTimelineRequest, { path });
  const answered = Date.now();
  let bytes: Buffer;
  try {
    bytes = await readFile(r.columns);
  } finally {
    await unlink(r.columns).catch(() => undefined);
    await rmdir(dirname(r.columns)).catch(() => undefined);
  }
  const read = Date.now();
  const messages = unpackTimeline(r.messages, bytes);
  return {
    id: r.id,
    messages,
    marks: { requested, ...r.timing, answered, read, unpacked: Date.now() },
  };
}
