/**
 * The mpiscope extension: the language client (whose server hosts MPI jobs and publishes their
 * findings), the `mpi` debug type, the mpicc build task, the status bar and the commands. No analysis
 * here; each feature is a small file with its own activate(ctx).
 */
import type * as vscode from 'vscode';
import * as buildTask from './build-task';
import * as debugConfig from './debug-config';
import * as debugRank from './debug-rank';
import * as languageClient from './language-client';
import * as netTestEditor from './net-test-editor';
import * as queueView from './queue-view';
import * as reportCommand from './report-command';
import * as runCommands from './run-commands';
import * as statusBar from './status-bar';
import * as timelinePanel from './timeline-panel';
import * as traceEditor from './trace-editor';

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  // Registered before the server starts so that the task and the commands exist immediately.
  buildTask.activate(ctx);
  debugRank.activate(ctx);
  netTestEditor.activate(ctx);
  queueView.activate(ctx);
  const client = await languageClient.activate(ctx);
  debugConfig.activate(ctx, client);
  runCommands.activate(ctx, client);
  reportCommand.activate(ctx, client);
  statusBar.activate(ctx, client);
  timelinePanel.activate(ctx, client);
  traceEditor.activate(ctx, client);
}

export function deactivate(): void {
  // Every disposable (the client included) is in ctx.subscriptions; VS Code disposes them.
}
