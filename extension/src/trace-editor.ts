import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { BlockReply, OpenTiming, TimelineMessage } from '../../server/src/timeline/timeline-protocol';
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
    { dispose: () => [...folders].forEach((remove) => remove()) },
  );
}

/** Removers of the trace editors' folders still there (run when the extension stops, too). */
const folders = new Set<() => void>();

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
  // The language server writes the timeline's columns file in a folder of this editor's own, which the page
  // may load resources from: it fetches each batch's block itself (columnsAt), so the bytes go from
  // code-server to the page's frame without this process reading them or the workbench relaying a message
  // (the extension host's reading and posting were 0.5-0.7 s of its CPU per opening). The file goes when the
  // page has the whole job (it says `loaded`), the folder with the editor or the extension.
  const folder = mkdtempSync(join(tmpdir(), 'mpiscope-trace-'));
  const removeFolder = (): void => {
    rmSync(folder, { recursive: true, force: true });
    folders.delete(removeFolder);
  };
  folders.add(removeFolder);
  panel.onDidDispose(removeFolder);
  panel.webview.options = { enableScripts: true, localResourceRoots: [dist, vscode.Uri.file(folder)] };
  const columnsUrl = (path: string): string => panel.webview.asWebviewUri(vscode.Uri.file(path)).toString();
  const columns: { path?: string } = {};
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
  let loadedOnce = false;
  // The findings' replay (the engine: ~1.3 s of the language server's CPU at a million events) is asked for
  // once the page holds the whole job (it says `loaded`), not as soon as the timeline is answered: on two
  // cores it ran beside the page's fetching and ingest of the last batches, on the way to the first whole
  // frame. A page that reloads waits for its own `loaded` again.
  let wholeJob = deferred();
  let judged: Promise<unknown[]> | undefined;
  const timeline = (): Promise<Opened> =>
    (drawn ??= openTimeline(client, { path: doc.uri.fsPath, folder, columnsUrl, columns }, forward));
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
      if (request.type === 'block') {
        // The page could not fetch a block (its log says why): posted instead, as bytes.
        void panel.webview.postMessage(readBlock(columns.path, request.offset, request.bytes));
        return;
      }
      if (request.type === 'loaded') {
        wholeJob.resolve();
        // Once the timeline is answered (every block announced), the file and the server's folder for it go.
        const opened = await drawn?.catch(() => undefined);
        // Only under this editor's folder (where it asked the server to write): never another path.
        if (opened !== undefined && columns.path !== undefined && dirname(dirname(columns.path)) === folder) {
          rmSync(dirname(columns.path), { recursive: true, force: true });
          columns.path = undefined;
          loadedOnce = true;
        }
        return;
      }
      if (loadedOnce) {
        // The page reloaded after its columns file went: decode the trace again for it.
        loadedOnce = false;
        drawn = undefined;
        received.length = 0;
      }
      const readyAt = Date.now();
      ready = true;
      const loaded = (wholeJob = deferred()).promise;
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
        await loaded;
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

interface Source {
  /** The trace file. */
  readonly path: string;
  /** The editor's folder the language server writes the columns file under. */
  readonly folder: string;
  /** A file's address for the page's fetch (a webview resource). */
  readonly columnsUrl: (path: string) => string;
  /** The columns file, once the first batch named it (the `block` requests read it). */
  readonly columns: { path?: string };
}

/**
 * Asks the language server for a trace's timeline; each message it announces goes to `onMessage` as it comes,
 * a data batch with where its block of the server's file is (`columnsAt`: the page fetches it and its store
 * unpacks it). The file stays until the editor closes (its folder is deleted then).
 */
async function openTimeline(
  client: LanguageClient,
  source: Source,
  onMessage: (m: TimelineMessage) => void,
): Promise<Opened> {
  const stream = nextStream++;
  const marks: Record<string, number> = { requested: Date.now() };
  let url: string | undefined;
  streams.set(stream, (batch) => {
    if (batch.bytes === 0) {
      onMessage(batch.message);
      return;
    }
    if (source.columns.path !== batch.columns) {
      source.columns.path = batch.columns;
      url = source.columnsUrl(batch.columns);
    }
    const columnsAt = { url: url ?? '', offset: batch.offset, bytes: batch.bytes };
    onMessage({ ...batch.message, columnsAt } as TimelineMessage);
    marks.columnsBytes = (marks.columnsBytes ?? 0) + batch.bytes;
    marks.firstBatch ??= Date.now();
    marks.lastBatch = Date.now();
  });
  try {
    const r = await client.sendRequest(traceTimelineRequest, {
      path: source.path,
      stream,
      folder: source.folder,
    });
    return { id: r.id, marks: { ...marks, ...r.timing, answered: Date.now() } };
  } finally {
    streams.delete(stream);
  }
}

/** A block of the columns file for a page whose fetch failed: the bytes, or why they cannot be read. */
function readBlock(path: string | undefined, offset: number, bytes: number): BlockReply {
  if (path === undefined) return { type: 'block', offset, error: 'no columns file has been announced yet' };
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const block = new Uint8Array(bytes);
    const got = readSync(fd, block, 0, bytes, offset);
    if (got !== bytes)
      return { type: 'block', offset, error: `the columns file ended at ${offset + got} bytes` };
    return { type: 'block', offset, packed: block.buffer };
  } catch (error) {
    return { type: 'block', offset, error: (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A promise and what settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
