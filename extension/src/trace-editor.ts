import { closeSync, openSync, readSync } from 'node:fs';
import { rmdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { OpenTiming, TimelineMessage } from '../../server/src/timeline/timeline-protocol';
import { parseWebviewRequest } from '../../server/src/timeline/webview-request';
import {
  traceBatchNotification,
  traceFindingsRequest,
  traceTimelineRequest,
  type TraceBatch,
} from './lsp-ext';
import { reveal, timelineHtml } from './timeline-panel';

/**
 * Trace files (`mpiscope run --trace run.mpitrace`) open as their timeline: a read-only custom editor with
 * the live panel's page (dist/webview.js). The language server decodes the trace into the timeline
 * (mpiscope/traceTimeline), each batch drawn as it comes (mpiscope/traceBatch); then replays it through the
 * same engine as `mpiscope report` (mpiscope/traceFindings): the findings are added to the timeline and go to
 * the Problems panel on the source files they name. Other names open with "Open With… > mpiscope Trace".
 */
export function activate(ctx: vscode.ExtensionContext, client: LanguageClient): void {
  ctx.subscriptions.push(
    client.onNotification(traceBatchNotification, (batch) => streams.get(batch.stream)?.(batch)),
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

/** The openings being decoded, by the stream number their mpiscope/traceBatch notifications carry. */
const streams = new Map<number, (batch: TraceBatch) => void>();
let nextStream = 1;

function resolve(
  ctx: vscode.ExtensionContext,
  client: LanguageClient,
  doc: vscode.CustomDocument,
  panel: vscode.WebviewPanel,
): void {
  const dist = vscode.Uri.joinPath(ctx.extensionUri, 'dist');
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
  const name = doc.uri.path.split('/').pop() ?? 'trace';
  // Replayed once per editor, in two steps: the timeline, posted batch by batch as the language server
  // decodes it, then the findings (the engine's replay, most of the cost) added to it. The decoding starts
  // now, while the page loads; batches that come before the page says ready wait for it (VS Code drops what
  // is posted to a webview whose page has not loaded: measured, 2 of 5 openings lost batches, one all of
  // them). A reload of the page (a second "ready") gets every message so far again.
  const received: TimelineMessage[] = [];
  let ready = false;
  // postMessage settles when the workbench (the renderer, across code-server's websocket) took the message:
  // the time of the last one is the timing's `delivered`.
  const delivered: Thenable<unknown>[] = [];
  const post = (m: unknown): void => void delivered.push(panel.webview.postMessage(m));
  const forward = (m: TimelineMessage): void => {
    received.push(m);
    if (ready) post(m);
  };
  let drawn: Promise<Opened> | undefined;
  let judged: Promise<unknown[]> | undefined;
  const timeline = (): Promise<Opened> => (drawn ??= openTimeline(client, doc.uri.fsPath, forward));
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
      const readyAt = Date.now();
      // The columns are one ArrayBuffer per batch: VS Code carries them as bytes.
      ready = true;
      for (const m of received) post(m);
      let opened: Opened;
      try {
        opened = await timeline();
        await Promise.all(delivered.splice(0));
        const timing: OpenTiming = {
          type: 'timing',
          marks: { ...opened.marks, ready: readyAt, delivered: Date.now() },
        };
        void panel.webview.postMessage(timing);
      } catch (error) {
        drawn = undefined;
        received.length = 0;
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
  /** When each step happened (ms since the epoch), for the page's timing record. */
  readonly marks: Record<string, number>;
}

/**
 * Asks the language server for a trace's timeline; each message it announces goes to `onMessage` as it comes,
 * a data batch with its block of the server's file as `packed` (an ArrayBuffer of its own, which the page's
 * store unpacks). Then deletes the file and its folder, by name, nothing else.
 */
async function openTimeline(
  client: LanguageClient,
  path: string,
  onMessage: (m: TimelineMessage) => void,
): Promise<Opened> {
  const stream = nextStream++;
  const marks: Record<string, number> = { requested: Date.now() };
  let file: { path: string; fd: number } | undefined;
  let failed: Error | undefined;
  streams.set(stream, (batch) => {
    if (failed !== undefined) return;
    try {
      if (batch.bytes === 0) {
        onMessage(batch.message);
        return;
      }
      if (file === undefined) file = { path: batch.columns, fd: openSync(batch.columns, 'r') };
      // Read at once (a block is well under 1 MB): the order of the batches is the order they are posted in.
      // The block goes to the page as it is, in an ArrayBuffer of its own (the page's store unpacks it).
      const block = new Uint8Array(batch.bytes);
      const got = readSync(file.fd, block, 0, batch.bytes, batch.offset);
      if (got !== batch.bytes)
        throw new Error(`the timeline's columns file ended at ${batch.offset + got} bytes`);
      onMessage({ ...batch.message, packed: block.buffer } as TimelineMessage);
      marks.columnsBytes = (marks.columnsBytes ?? 0) + batch.bytes;
      marks.firstBatch ??= Date.now();
      marks.lastBatch = Date.now();
    } catch (error) {
      failed = error as Error;
    }
  });
  let columns: string | undefined;
  try {
    const r = await client.sendRequest(traceTimelineRequest, { path, stream });
    columns = r.columns;
    if (failed !== undefined) throw failed;
    return { id: r.id, marks: { ...marks, ...r.timing, answered: Date.now() } };
  } finally {
    streams.delete(stream);
    if (file !== undefined) closeSync(file.fd);
    const written = columns ?? file?.path;
    if (written !== undefined) {
      await unlink(written).catch(() => undefined);
      await rmdir(dirname(written)).catch(() => undefined);
    }
  }
}
